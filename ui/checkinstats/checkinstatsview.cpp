#include "checkinstats/checkinstatsview.h"

#include "console/checkinstats/monthstatsmodel.h"
#include "console/checkinstats/monthstatsservice.h"
#include "common/consoletheme.h"
#include "common/messagebanner.h"

#include <QBarCategoryAxis>
#include <QStackedBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QDateEdit>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace lantern::ui {

CheckinStatsView::CheckinStatsView(QWidget *parent)
    : ConsoleView(parent),
      m_model(new MonthStatsModel(this)),
      m_banner(new MessageBanner(this)),
      m_month(new QDateEdit(this)),
      m_refreshButton(new QPushButton(tr("&Show"), this)),
      m_active(new QLabel(this)),
      m_everyDay(new QLabel(this)),
      m_asOf(new QLabel(this)),
      m_chart(new QChartView(this)),
      m_checkedInSet(new QBarSet(tr("Checked in"))),
      m_makeupSet(new QBarSet(tr("Make-ups"))),
      m_days(new QBarCategoryAxis),
      m_counts(new QValueAxis),
      m_table(new QTableView(this))
{
    m_month->setDisplayFormat(QStringLiteral("yyyy-MM"));
    m_month->setCalendarPopup(true);
    m_month->setEnabled(false);
    m_refreshButton->setEnabled(false);
    connect(m_refreshButton, &QPushButton::clicked, this, &CheckinStatsView::refresh);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Month:"), this));
    top->addWidget(m_month);
    top->addWidget(m_refreshButton);
    top->addSpacing(24);
    top->addWidget(m_active);
    top->addSpacing(16);
    top->addWidget(m_everyDay);
    top->addSpacing(16);
    top->addWidget(m_asOf);
    top->addStretch(1);
    m_asOf->setObjectName(QStringLiteral("asOf"));
    m_asOf->setToolTip(tr("The figures a worker keeps, read from every user's bits once a minute"));
    m_active->setObjectName(QStringLiteral("activeUsers"));
    m_everyDay->setObjectName(QStringLiteral("everyDayUsers"));
    m_active->setToolTip(tr("Users who checked in at least once this month"));
    m_everyDay->setToolTip(tr("Users who checked in on every day of the month so far, make-ups included"));

    // Stacked: a day's bar is everyone signed, its make-ups on top of those who signed on the day.
    auto *series = new QStackedBarSeries;
    m_checkedInSet->setColor(QColor(0x1a, 0x73, 0xe8));
    m_makeupSet->setColor(QColor(0xe3, 0x74, 0x00));
    series->append(m_checkedInSet);
    series->append(m_makeupSet);
    auto *chart = new QChart;
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setBackgroundRoundness(0);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->addSeries(series);
    chart->addAxis(m_days, Qt::AlignBottom);
    chart->addAxis(m_counts, Qt::AlignLeft);
    series->attachAxis(m_days);
    series->attachAxis(m_counts);
    m_counts->setLabelFormat(QStringLiteral("%d"));
    m_counts->setMin(0);
    m_chart->setChart(chart);
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setMinimumHeight(260);

    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_chart);
    splitter->addWidget(m_table);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 12, 16, 8);  // as every other view
    layout->addWidget(m_banner);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);
}

CheckinStatsView::~CheckinStatsView() = default;

void CheckinStatsView::attachBackend(const Config &config)
{
    m_thread = std::make_unique<DedicatedThread<MonthStatsService>>(QStringLiteral("checkin-stats"), config);
    setService(m_thread->get());
}

void CheckinStatsView::setService(MonthStatsService *service)
{
    m_service = service;
    connect(this, &CheckinStatsView::loadRequested, service, &MonthStatsService::load, Qt::QueuedConnection);
    connect(service, &MonthStatsService::loaded, this, &CheckinStatsView::onLoaded, Qt::QueuedConnection);
    connect(service, &MonthStatsService::loadFailed, this, &CheckinStatsView::onFailed, Qt::QueuedConnection);
    const QDate today = service->config().today();
    {
        const QSignalBlocker blocker(m_month);
        m_month->setMaximumDate(today);
        m_month->setDate(today);
    }
    m_month->setEnabled(true);
    m_refreshButton->setEnabled(true);
    showMonth(today);
}

void CheckinStatsView::refresh()
{
    if (m_service && !isBusy())
        showMonth(m_month->date());
}

QVariantMap CheckinStatsView::viewState() const
{
    return {{QStringLiteral("month"), m_month->date()}};
}

void CheckinStatsView::restoreViewState(const QVariantMap &state)
{
    const QDate month = state.value(QStringLiteral("month")).toDate();
    if (month.isValid())
        showMonth(month);
}

void CheckinStatsView::showMonth(QDate month)
{
    if (!m_service)
        return;
    const QDate first(month.year(), month.month(), 1);
    if (m_month->date() != month) {
        const QSignalBlocker blocker(m_month);
        m_month->setDate(month);
    }
    m_waitingFor = ++m_serial;
    m_refreshButton->setEnabled(false);
    Q_EMIT loadRequested(m_waitingFor, first);
}

void CheckinStatsView::onLoaded(quint64 serial, const MonthStats &stats)
{
    if (serial != m_waitingFor)
        return;
    m_waitingFor = 0;
    m_refreshButton->setEnabled(true);
    m_banner->readSucceeded();  // a read failure goes; a message the operator has not dismissed stays
    m_model->setStats(stats);
    const QLocale locale;
    m_active->setText(tr("Active this month: %1").arg(locale.toString(stats.activeUsers)));
    m_everyDay->setText(tr("Every day so far: %1").arg(locale.toString(stats.everyDayUsers)));
    //: When the figures shown were read by a worker (they are kept, not read on each refresh).
    m_asOf->setText(stats.asOfMs ? tr("As of %1").arg(locale.toString(QDateTime::fromMSecsSinceEpoch(*stats.asOfMs).time(), QLocale::ShortFormat))
                                 : QString());
    m_asOf->setVisible(stats.asOfMs.has_value());

    m_checkedInSet->remove(0, m_checkedInSet->count());
    m_makeupSet->remove(0, m_makeupSet->count());
    QStringList days;
    qint64 highest = 0;
    for (const DayStats &day : stats.days) {
        days << QString::number(day.date.day());
        m_checkedInSet->append(double(day.checkedIn - day.makeups));
        m_makeupSet->append(double(day.makeups));
        highest = std::max(highest, day.checkedIn);
    }
    m_days->clear();
    m_days->append(days);
    m_counts->setMax(highest < 5 ? 5.0 : std::ceil(double(highest) * 1.1));
    //: The month in the chart's title, as QDate::toString formats it ("April 2026"; "2026年4月")
    const QString monthFormat = tr("MMMM yyyy");
    m_chart->chart()->setTitle(tr("Check-ins and make-ups per day, %1").arg(locale.toString(stats.month, monthFormat)));
    ConsoleTheme::style(m_chart->chart());  // the palette's colours, light or dark
    Q_EMIT dataRead(ServerStatus::Servers(ServerStatus::Server::Redis), QDateTime::currentDateTime());  // read from Redis only
    Q_EMIT monthShown();
}

void CheckinStatsView::onFailed(quint64 serial, const QString &message)
{
    if (serial != m_waitingFor)
        return;
    m_waitingFor = 0;
    m_refreshButton->setEnabled(true);
    m_banner->showMessage(MessageBanner::Kind::Error, tr("Could not read the check-in statistics."), message);
    Q_EMIT failed(message);
}

void CheckinStatsView::prepareScreenshot(const ScreenshotRequest &request)
{
    auto *const once = new QObject(this);
    connect(this, &CheckinStatsView::monthShown, once, [this, once] {
        delete once;
        Q_EMIT screenshotReady();
    });
    connect(this, &CheckinStatsView::failed, once, [this, once](const QString &message) {
        delete once;
        Q_EMIT screenshotFailed(message);
    });
    showMonth(request.month.isValid() ? request.month : m_month->date());
}

} // namespace lantern::ui
