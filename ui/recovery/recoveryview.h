#pragma once

#include "console/common/dedicatedthread.h"
#include "console/recovery/recoverysnapshot.h"
#include "common/consoleview.h"

#include <memory>

class QDateEdit;
class QLabel;
class QSortFilterProxyModel;
class QPushButton;
class QTableView;
class QTreeView;

namespace lantern {
class RecoveryLedgerModel;
class RecoveryService;
class RecoveryTaskModel;
}

namespace lantern::ui {

class MessageBanner;
class QueueJobBar;

/** The Recovery view for on-call engineers: the backup lists of dead workers, each task with
    what SQL and the payout provider say about it and what compensation will do; compensation
    of one worker or all (what `lanternd recover --worker W` does, audited), with progress and
    Cancel; the ledger check of the campaigns involved; and check-in reconciliation of a day. */
class RecoveryView final : public ConsoleView {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RecoveryView)

public:
    explicit RecoveryView(QWidget *parent = nullptr);
    ~RecoveryView() override;

    QString viewName() const override { return QStringLiteral("recovery"); }
    QString title() const override { return tr("Recovery"); }
    void attachBackend(const Config &config) override;
    /** Uses `service`, which lives on another thread and outlives this view's use of it. */
    void setService(RecoveryService *service);
    void refresh() override;
    bool wantsAutoRefresh() const override;
    void prepareScreenshot(const ScreenshotRequest &request) override;

    /** Open the confirmation dialogs. */
    void compensateSelected();
    void compensateAll();
    void reconcileDay();

    bool isLoading() const { return m_waitingFor != 0; }
    bool isJobRunning() const { return m_job != 0; }
    RecoveryTaskModel *taskModel() const { return m_tasks; }
    RecoveryLedgerModel *ledgerModel() const { return m_ledger; }
    /** Shows taskModel() through a sort proxy (a header click sorts workers and, under each,
        its tasks, on their raw values; the model's order until then). */
    QTreeView *taskTree() const { return m_tree; }
    QTableView *ledgerTable() const { return m_ledgerTable; }
    MessageBanner *banner() const { return m_banner; }
    QDateEdit *reconcileDate() const { return m_date; }
    QLabel *reconcileResult() const { return m_reconcileResult; }

Q_SIGNALS:
    void loadRequested(quint64 serial);
    void compensateRequested(quint64 job, const QStringList &workers, const QString &operatorName);
    void cancelRequested(quint64 job);
    void reconcileRequested(quint64 serial, QDate day, const QString &operatorName);

    void loaded(const lantern::RecoverySnapshot &snapshot);
    void jobDone(const QString &summary);
    void reconcileShown(const lantern::ReconcileReport &report);

protected:
    void readOnlyChanged() override { updateActions(); }
    void operatorChanged() override { updateActions(); }

private:
    void onLoaded(quint64 serial, const RecoverySnapshot &snapshot);
    void onFailed(quint64 serial, const QString &message, const QString &detail);
    void onReconciled(quint64 serial, const ReconcileReport &report);
    void confirmCompensation(const QStringList &workers);
    QString selectedWorker() const;
    void updateActions();

    std::unique_ptr<DedicatedThread<RecoveryService>> m_thread;
    RecoveryService *m_service = nullptr;
    RecoveryTaskModel *m_tasks;
    QSortFilterProxyModel *m_taskOrder;  // the tree shows m_tasks through it: sorted by a header click
    RecoveryLedgerModel *m_ledger;
    quint64 m_serial = 0;
    quint64 m_waitingFor = 0;
    quint64 m_job = 0;
    quint64 m_reconciling = 0;
    QDate m_today;

    MessageBanner *m_banner;
    QLabel *m_summary;
    QTreeView *m_tree;
    QPushButton *m_compensate;
    QPushButton *m_compensateAll;
    QueueJobBar *m_jobBar;
    QTableView *m_ledgerTable;
    QDateEdit *m_date;
    QPushButton *m_reconcile;
    QLabel *m_reconcileResult;
};

} // namespace lantern::ui
