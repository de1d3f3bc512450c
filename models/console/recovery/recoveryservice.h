#pragma once

#include "console/queues/queuejobrunner.h"
#include "console/recovery/recoverysnapshot.h"
#include "envelope/campaignfigures.h"

#include <QSet>

namespace lantern {

struct QueueOverview;
struct WorkerStatus;

/** The Recovery view's Redis and SQL work, on a thread of its own (see QueueJobRunner): dead
    workers' backup lists with each task's SQL and payout state, the ledger check of the
    campaigns they touch, compensation (what `lanternd recover --worker W` does, audited, one
    worker per step, cancellable between workers) and check-in reconciliation of a day. */
class RecoveryService final : public QueueJobRunner {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RecoveryService)

public:
    static constexpr int MaxTasksShown = 200;  // per worker

    explicit RecoveryService(Config config, QObject *parent = nullptr);
    ~RecoveryService() override;

public Q_SLOTS:
    void load(quint64 serial);
    /** Reclaims each named worker's backup lists (skipping one whose heartbeat came back). */
    void compensate(quint64 job, const QStringList &workers, const QString &operatorName);
    /** Reconciler::reconcile for `day` (not after today), with an audit row. */
    void reconcile(quint64 serial, QDate day, const QString &operatorName);

Q_SIGNALS:
    void loaded(quint64 serial, const lantern::RecoverySnapshot &snapshot);
    void loadFailed(quint64 serial, const QString &message, const QString &detail);
    void reconciled(quint64 serial, const lantern::ReconcileReport &report);
    void reconcileFailed(quint64 serial, const QString &message, const QString &detail);

private:
    /** `pools`: every launched pool (CampaignPools::launched), read once per load. */
    DeadWorkerBacklog backlogOf(const WorkerStatus &worker);
    /** One list's entries: what each is and where SQL and the provider stand on it. */
    void inspect(QList<RecoveryTask> &tasks);
    void inspectCheckins(const QList<RecoveryTask *> &tasks);
    void inspectPayouts(const QList<RecoveryTask *> &tasks);
    QList<LedgerCheck> ledgerChecks(const QueueOverview &overview);
    /** What the live workers that say their depth hold of the campaign, one LLEN per list. */
    qint64 liveHeld(qint64 campaignId, const QueueOverview &overview);

    QSet<qint64> m_watched;  // campaigns seen in dead workers' lists: their check stays on screen
    SplitMemos m_splits;     // the ledger check's splits, kept between refreshes
    TallyMemos m_tallies;    // what the rows differed from the tally, kept until a change by hand
};

} // namespace lantern
