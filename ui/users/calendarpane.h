#pragma once

#include <QWidget>

class QHBoxLayout;
class QLabel;
class QPushButton;
class QTableView;
class QToolButton;

namespace lantern {
class CalendarModel;
}

namespace lantern::ui {

/** The Users view's month: ‹ title › and This month above the calendar grid (CalendarDelegate's
    day cells on `model`) and its legend. Page Up and Page Down in the grid turn the month as the
    arrows do; what turning does is the view's (previousButton(), nextButton(), thisMonthButton()). */
class CalendarPane final : public QWidget {
    Q_OBJECT

public:
    /** `arrowSide`: the ‹ and › buttons' side in pixels (the view's search field's height). */
    CalendarPane(CalendarModel *model, int arrowSide, QWidget *parent);

    QTableView *grid() const { return m_grid; }
    QToolButton *previousButton() const { return m_previous; }
    QToolButton *nextButton() const { return m_next; }
    QPushButton *thisMonthButton() const { return m_thisMonth; }
    QLabel *title() const { return m_title; }

private:
    QHBoxLayout *buildMonthRow(int arrowSide);
    void buildGrid(CalendarModel *model);

    QToolButton *m_previous;
    QToolButton *m_next;
    QPushButton *m_thisMonth;
    QLabel *m_title;
    QTableView *m_grid;
};

} // namespace lantern::ui
