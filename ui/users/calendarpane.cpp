#include "users/calendarpane.h"

#include "users/calendardelegate.h"
#include "users/calendarlegend.h"
#include "console/users/calendarmodel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QShortcut>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace lantern::ui {

CalendarPane::CalendarPane(CalendarModel *model, int arrowSide, QWidget *parent)
    : QWidget(parent),
      m_previous(new QToolButton(this)),
      m_next(new QToolButton(this)),
      m_thisMonth(new QPushButton(tr("This month"), this)),
      m_title(new QLabel(this)),
      m_grid(new QTableView(this))
{
    auto *monthRow = buildMonthRow(arrowSide);
    buildGrid(model);
    auto *column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 8, 0);
    column->addLayout(monthRow);
    column->addWidget(m_grid, 1);
    column->addWidget(new CalendarLegend(this));
}

QHBoxLayout *CalendarPane::buildMonthRow(int arrowSide)
{
    m_previous->setObjectName(QStringLiteral("previousMonthButton"));
    m_next->setObjectName(QStringLiteral("nextMonthButton"));
    m_thisMonth->setObjectName(QStringLiteral("thisMonthButton"));
    m_previous->setFixedSize(arrowSide, arrowSide);
    m_next->setFixedSize(arrowSide, arrowSide);
    QFont chevronFont = m_previous->font();
    chevronFont.setPointSizeF(chevronFont.pointSizeF() * 1.8);
    m_previous->setFont(chevronFont);
    m_next->setFont(chevronFont);
    m_previous->setText(QStringLiteral("‹"));
    m_previous->setAccessibleName(tr("Previous month"));
    m_previous->setAutoRaise(true);
    m_previous->setToolTip(tr("Previous month (Ctrl+Page Up, or Page Up in the calendar)"));
    m_previous->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_PageUp));
    m_next->setText(QStringLiteral("›"));
    m_next->setAccessibleName(tr("Next month"));
    m_next->setAutoRaise(true);
    m_next->setToolTip(tr("Next month (Ctrl+Page Down, or Page Down in the calendar)"));
    m_next->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_PageDown));
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setAlignment(Qt::AlignCenter);
    m_title->setMinimumWidth(m_title->fontMetrics().averageCharWidth() * 16);
    auto *row = new QHBoxLayout;
    row->addWidget(m_previous);
    row->addWidget(m_title);
    row->addWidget(m_next);
    row->addStretch();
    row->addWidget(m_thisMonth);
    // In the calendar, Page Up and Page Down turn the month (as in a paper one) instead of
    // moving the selection to the first or last row.
    auto *pageUp = new QShortcut(QKeySequence(Qt::Key_PageUp), m_grid, nullptr, nullptr, Qt::WidgetShortcut);
    auto *pageDown = new QShortcut(QKeySequence(Qt::Key_PageDown), m_grid, nullptr, nullptr, Qt::WidgetShortcut);
    connect(pageUp, &QShortcut::activated, m_previous, &QToolButton::click);
    connect(pageDown, &QShortcut::activated, m_next, &QToolButton::click);
    return row;
}

void CalendarPane::buildGrid(CalendarModel *model)
{
    m_grid->setModel(model);
    m_grid->setItemDelegate(new CalendarDelegate(m_grid));
    m_grid->setSelectionMode(QAbstractItemView::SingleSelection);
    m_grid->setSelectionBehavior(QAbstractItemView::SelectItems);
    m_grid->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_grid->setShowGrid(false);
    m_grid->setFrameShape(QFrame::NoFrame);
    m_grid->setFocusPolicy(Qt::StrongFocus);
    m_grid->setStyleSheet(QStringLiteral("QTableView { background: transparent; selection-background-color: transparent; }"));
    m_grid->verticalHeader()->setVisible(false);
    m_grid->verticalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_grid->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_grid->horizontalHeader()->setHighlightSections(false);
    m_grid->horizontalHeader()->setSectionsClickable(false);
    m_grid->horizontalHeader()->setStyleSheet(
            QStringLiteral("QHeaderView::section { background: transparent; border: none; padding: 4px; color: palette(placeholder-text); font-weight: 600; }"));
    m_grid->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_grid->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    const int cell = fontMetrics().height();
    m_grid->setMinimumSize(7 * cell * 4, 6 * cell * 3 + m_grid->horizontalHeader()->sizeHint().height());
}

} // namespace lantern::ui
