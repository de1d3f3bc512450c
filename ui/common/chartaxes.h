#pragma once

#include <QtGlobal>

class QDateTimeAxis;

namespace lantern::ui {

/** Sets a time axis to span [firstMs, lastMs] widened to round times, with a tick on each
    (every 1, 2, 5, 10, 15, 30 s, 1 min, ...: NiceScale::timeStepMs), at most `maxIntervals`. */
void setRoundTimeRange(QDateTimeAxis *axis, qint64 firstMs, qint64 lastMs, int maxIntervals = 4);

} // namespace lantern::ui
