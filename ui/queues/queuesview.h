#pragma once

#include "console/common/dedicatedthread.h"
#include "console/queues/queuehistory.h"
#include "console/queues/queuesnapshot.h"
#include "common/consoleview.h"

#include <QTimer>

#include <memory>

class QLabel;
class QTableView;

namespace lantern {
class QueueService;
class QueueTableModel;
class QueueWorkerModel;
}

namespace lantern::ui {

class DeadLetterPanel;
class MessageBanner;
class QueueThroughputChart;

/** The Queues view for on-call engineers: every queue's backlog and the age of its oldest task,
    a throughput chart built from successive refreshes, workers with their heartbeat and what
    they hold in flight, and the dead-letter lists (inspect, retry, discard). Redis and SQL work
    runs on a QueueService on its own thread; a refresh is ignored while one is out. */
class QueuesView final : public ConsoleView {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QueuesView)

public:
    explicit QueuesView(QWidget *parent = nullptr);
    ~QueuesView() override;

    QString viewName() const override { return QStringLiteral("queues"); }
    QString title() const override { return tr("Queues"); }
    void attachBackend(const Config &config) override;
    /** Uses `service`, which lives on another thread and outlives this view's use of it. */
    void setService(QueueService *service);
    void refresh() override;
    /** While hidden the view still reads the queues every HiddenSampleMs, so its chart has the
        time it was away (the window refreshes only the view on screen). */
    static constexpr int HiddenSampleMs = 10'000;
    bool wantsAutoRefresh() const override;
    void prepareScreenshot(const ScreenshotRequest &request) override;
    QVariantMap viewState() const override;
    void restoreViewState(const QVariantMap &state) override;

    bool isLoading() const { return m_waitingFor != 0; }
    QueueTableModel *queueModel() const { return m_queues; }
    QueueWorkerModel *workerModel() const { return m_workers; }
    DeadLetterPanel *deadLetters() const { return m_deadLetters; }
    MessageBanner *banner() const { return m_banner; }
    const QueueHistory &history() const { return m_history; }

Q_SIGNALS:
    void loadRequested(quint64 serial);
    /** A snapshot is on screen. */
    void loaded(const lantern::QueueSnapshot &snapshot);

protected:
    void readOnlyChanged() override;

private:
    void onLoaded(quint64 serial, const QueueSnapshot &snapshot);
    void followLink(const QString &link);
    void onLoadFailed(quint64 serial, const QString &message, const QString &detail);
    void updateSummary(const QueueSnapshot &snapshot);

    std::unique_ptr<DedicatedThread<QueueService>> m_thread;
    QueueService *m_service = nullptr;
    QueueTableModel *m_queues;
    QueueWorkerModel *m_workers;
    QueueHistory m_history;
    quint64 m_serial = 0;
    quint64 m_waitingFor = 0;
    int m_screenshotSamples = 0;
    QTimer m_screenshotTimer;
    QTimer m_hiddenSampling;  // keeps a short throughput history while another view is shown

    MessageBanner *m_banner;
    QLabel *m_summary;
    QTableView *m_queueTable;
    QTableView *m_workerTable;
    QueueThroughputChart *m_chart;
    DeadLetterPanel *m_deadLetters;
};

} // namespace lantern::ui
