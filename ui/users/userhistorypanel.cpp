#include "users/userhistorypanel.h"

#include "console/users/userhistorymodels.h"
#include "console/users/usermonth.h"
#include "common/consoletheme.h"
#include "users/daypalette.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QLegend>
#include <QLineSeries>
#include <QLocale>
#include <QStackedBarSeries>
#include <QTableView>
#include <QValueAxis>

namespace lantern::ui {

namespace {

QTableView *makeTable(QAbstractItemModel *model, QWidget *parent)
{
    auto *table = new QTableView(parent);
    table->setModel(model);
    table->verticalHeader()->hide();
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    table->horizontalHeader()->setStretchLastSection(true);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    return table;
}

} // namespace

UserHistoryPanel::UserHistoryPanel(QWidget *parent)
    : QTabWidget(parent),
      m_history(new CheckinHistoryModel(this)),
      m_ledger(new LedgerModel(this)),
      m_chart(new QChart),
      m_chartView(new QChartView(m_chart, this)),
      m_historyView(makeTable(m_history, this)),
      m_ledgerView(makeTable(m_ledger, this))
{
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setBackgroundRoundness(0);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    m_chartView->setMinimumHeight(140);  // room for six months at 1366×768, in Chinese too
    ConsoleTheme::style(m_chart);  // dark too before the first user is shown
    // A short chart gets fewer ticks (every two or four weeks) rather than elided labels.
    connect(m_chart, &QChart::plotAreaChanged, this, &UserHistoryPanel::fitDayTicks);
    addTab(m_chartView, tr("Streak chart"));
    addTab(m_historyView, tr("Check-ins"));
    addTab(m_ledgerView, tr("Points ledger"));
    setDocumentMode(true);
}

UserHistoryPanel::~UserHistoryPanel() = default;

void UserHistoryPanel::showUser(const UserMonth &month)
{
    m_history->setRows(month.recentCheckins);
    m_ledger->setRows(month.recentLedger);
    fillChart(month);
}

void UserHistoryPanel::clearUser()
{
    m_history->setRows({});
    m_ledger->setRows({});
    m_chart->removeAllSeries();
    for (QAbstractAxis *axis : m_chart->axes())
        m_chart->removeAxis(axis);
    m_chart->setTitle(QString());
}

void UserHistoryPanel::fitDayTicks()
{
    const QList<QAbstractAxis *> axes = m_chart->axes(Qt::Vertical);
    auto *axis = axes.isEmpty() ? nullptr : qobject_cast<QValueAxis *>(axes.first());
    if (!axis)
        return;
    const double room = m_chart->plotArea().height();
    const double perLabel = fontMetrics().height() * 1.6;
    double weeks = 1;
    while (weeks < 8 && (axis->max() / (7 * weeks)) * perLabel > room)
        weeks *= 2;
    if (axis->tickInterval() != 7 * weeks)
        axis->setTickInterval(7 * weeks);
}

void UserHistoryPanel::fillChart(const UserMonth &month)
{
    clearUser();
    m_history->setRows(month.recentCheckins);
    m_ledger->setRows(month.recentLedger);

    auto *normal = new QBarSet(tr("Checked in"));
    auto *makeup = new QBarSet(tr("Make-up"));
    normal->setColor(dayColors(CalendarModel::DayState::Signed).fill);
    makeup->setColor(dayColors(CalendarModel::DayState::MakeUp).fill);
    auto *longest = new QLineSeries;
    longest->setName(tr("Longest run"));
    QStringList categories;
    int top = 1;
    for (int i = 0; i < month.history.size(); ++i) {
        const MonthFigure &figure = month.history.at(i);
        *normal << figure.signedDays - figure.makeupDays;
        *makeup << figure.makeupDays;
        longest->append(i, figure.longest);
        categories << QLocale().toString(figure.month, QStringLiteral("MMM"));
        top = std::max({top, figure.signedDays, figure.longest});
    }
    auto *bars = new QStackedBarSeries;
    bars->append(normal);
    bars->append(makeup);
    m_chart->addSeries(bars);
    m_chart->addSeries(longest);
    QPen pen(QColor(0x1a, 0x73, 0xe8));
    pen.setWidth(2);
    longest->setPen(pen);
    longest->setPointsVisible(true);

    auto *axisX = new QBarCategoryAxis;
    axisX->append(categories);
    auto *axisY = new QValueAxis;
    // Whole weeks on the axis: 0, 7, 14, ... up to the month length (or a longer run).
    axisY->setRange(0, 7 * ((std::max(31, top) + 6) / 7));
    axisY->setTickType(QValueAxis::TicksDynamic);
    axisY->setTickAnchor(0);
    axisY->setTickInterval(7);
    axisY->setLabelFormat(QStringLiteral("%d"));
    axisY->setTitleText(tr("days"));
    m_chart->addAxis(axisX, Qt::AlignBottom);
    m_chart->addAxis(axisY, Qt::AlignLeft);
    for (QAbstractSeries *series : m_chart->series()) {
        series->attachAxis(axisX);
        series->attachAxis(axisY);
    }
    ConsoleTheme::style(m_chart);
}

} // namespace lantern::ui
