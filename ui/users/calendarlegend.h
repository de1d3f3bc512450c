#pragma once

#include <QWidget>

namespace lantern::ui {

/** What the calendar's colours mean: one swatch per day state, drawn with the grid's palette. */
class CalendarLegend final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CalendarLegend)

public:
    explicit CalendarLegend(QWidget *parent = nullptr);
};

} // namespace lantern::ui
