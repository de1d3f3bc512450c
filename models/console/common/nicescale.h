#pragma once

#include <QtGlobal>

namespace lantern {

/** Round axis figures for the console's charts: a step of 1, 2 or 5 × 10^k and a maximum that
    is a whole number of steps, so tick labels are short, distinct and evenly spaced (never
    "0, 0, 1" on an empty chart, never 13:04:17 on a time axis). */
struct NiceScale {
    double max = 1;
    double step = 1;
    int intervals() const { return int(max / step + 0.5); }

    /** The smallest nice step that covers `value` in at most `maxIntervals` steps, never below
        `minimumStep` (1 for counts: no fractional ticks). */
    static NiceScale covering(double value, int maxIntervals = 4, double minimumStep = 1);
    /** A time span in ms: steps of 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1 h. */
    static qint64 timeStepMs(qint64 spanMs, int maxIntervals = 5);
};

} // namespace lantern
