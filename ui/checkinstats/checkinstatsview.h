#pragma once

#include "checkin/monthstats.h"
#include "console/common/dedicatedthread.h"
#include "common/consoleview.h"

#include <memory>

class QBarSet;
class QBarCategoryAxis;
class QChartView;
class QDateEdit;
class QLabel;
class QPushButton;
class QTableView;
class QValueAxis;

namespace lantern {
class MonthStatsModel;
class MonthStatsService;
}

namespace lantern::ui {

class MessageBanner;

/** Check-in statistics: for a month, users checked in and make-ups per day (a bar chart and a
    table) and the month's cohorts (active at least once, every day so far), read from the check-in
    bits by a MonthStatsService on its own thread; only the answer to the newest request is shown. */
class CheckinStatsView final : public ConsoleView {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CheckinStatsView)

public:
    explicit CheckinStatsView(QWidget *parent = nullptr);
    ~CheckinStatsView() override;

    QString viewName() const override { return QStringLiteral("stats"); }
    QString title() const override { return tr("Check-in statistics"); }
    void attachBackend(const Config &config) override;
    /** Talks to `service` (on another thread, outliving this view's use of it). */
    void setService(MonthStatsService *service);
    void refresh() override;
    void prepareScreenshot(const ScreenshotRequest &request) override;
    QVariantMap viewState() const override;
    void restoreViewState(const QVariantMap &state) override;

    /** Loads and shows `month`. */
    void showMonth(QDate month);
    MonthStatsModel *model() const { return m_model; }
    QLabel *activeLabel() const { return m_active; }
    QLabel *everyDayLabel() const { return m_everyDay; }
    QLabel *asOfLabel() const { return m_asOf; }
    QChartView *chartView() const { return m_chart; }
    bool isBusy() const { return m_waitingFor != 0; }

Q_SIGNALS:
    void loadRequested(quint64 serial, QDate month);
    /** A month is on screen. */
    void monthShown();
    /** A request failed; its message is on screen. */
    void failed(const QString &message);

private:
    void onLoaded(quint64 serial, const MonthStats &stats);
    void onFailed(quint64 serial, const QString &message);

    MonthStatsModel *m_model;
    MessageBanner *m_banner;
    QDateEdit *m_month;
    QPushButton *m_refreshButton;
    QLabel *m_active;
    QLabel *m_everyDay;
    QLabel *m_asOf;
    QChartView *m_chart;
    QBarSet *m_checkedInSet;
    QBarSet *m_makeupSet;
    QBarCategoryAxis *m_days;
    QValueAxis *m_counts;
    QTableView *m_table;
    std::unique_ptr<DedicatedThread<MonthStatsService>> m_thread;
    MonthStatsService *m_service = nullptr;
    quint64 m_serial = 0;
    quint64 m_waitingFor = 0;
};

} // namespace lantern::ui
