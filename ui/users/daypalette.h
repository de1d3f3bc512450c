#pragma once

#include "console/users/calendarmodel.h"

#include <QColor>

namespace lantern::ui {

/** The colours of a calendar day, shared by the grid and its legend so they always agree. */
struct DayColors {
    QColor fill;
    QColor border;  // invalid: no border
    QColor text;
};

DayColors dayColors(CalendarModel::DayState state);
/** The ring drawn around today, whatever its state. */
QColor todayRingColor();
/** The frame around the selected day. */
QColor selectionColor();

} // namespace lantern::ui
