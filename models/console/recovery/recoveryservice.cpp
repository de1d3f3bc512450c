#include "console/recovery/recoveryservice.h"

#include "audit/auditlog.h"
#include "checkin/checkinentry.h"
#include "envelope/campaignpools.h"
#include "envelope/campaignstore.h"
#include "envelope/campaignverifier.h"
#include "envelope/payouttask.h"
#include "operations/queueoverview.h"
#include "operations/workerrecovery.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "sql/sqlconnection.h"

#include <QProcessEnvironment>

#include <algorithm>
#include <climits>
#include <memory>

namespace lantern {

namespace {

QByteArrayList llen(const QByteArray &key)
{
    return {QByteArrayLiteral("LLEN"), key};
}

bool simulatedProvider()
{
    return QProcessEnvironment::systemEnvironment().value(QStringLiteral("LANTERN_PAYOUT_URL")).isEmpty();
}

} // namespace

RecoveryService::RecoveryService(Config config, QObject *parent) : QueueJobRunner(std::move(config), parent)
{
    qRegisterMetaType<lantern::RecoverySnapshot>();
    qRegisterMetaType<lantern::ReconcileReport>();
}

RecoveryService::~RecoveryService() = default;

void RecoveryService::load(quint64 serial)
{
    try {
        RecoverySnapshot snapshot;
        snapshot.readAtMs = nowMs();
        snapshot.today = config().today();
        // The dead workers' lists are counted there, once; of the live ones only that they beat
        // (issue 26: their figures were 1,000 HMGETs a refresh that this view never shows).
        const QueueOverview overview = QueueOverview::read(redis(), keys(), snapshot.readAtMs, QueueOverview::LiveWorkers::Liveness);
        for (const WorkerStatus &worker : overview.workers) {
            if (worker.alive)
                continue;
            snapshot.workers << backlogOf(worker);
            for (const RecoveryTask &task : std::as_const(snapshot.workers.constLast().tasks)) {
                if (task.kind == RecoveryTask::Kind::Payout)
                    m_watched.insert(task.campaignId);
            }
        }
        snapshot.ledger = ledgerChecks(overview);
        Q_EMIT loaded(serial, snapshot);
    } catch (const std::exception &error) {
        const auto [message, detail] = explain(error);
        Q_EMIT loadFailed(serial, message, detail);
    }
}

DeadWorkerBacklog RecoveryService::backlogOf(const WorkerStatus &worker)
{
    DeadWorkerBacklog backlog;
    backlog.id = worker.id;
    backlog.backupDepth = worker.backupDepth;
    // The oldest entries of the lists that hold anything (counted by the overview), up to MaxTasksShown.
    for (const BackupList &list : worker.held) {
        if (backlog.tasks.size() >= MaxTasksShown)
            break;
        const qint64 take = std::min<qint64>(list.length, MaxTasksShown - backlog.tasks.size());
        QByteArrayList entries;
        for (const RedisValue &entry : redis().command({QByteArrayLiteral("LRANGE"), list.key, QByteArray::number(-take), QByteArrayLiteral("-1")}).elements)
            entries.prepend(entry.toBytes());  // oldest first
        QList<RecoveryTask> listed;
        for (const QByteArray &raw : std::as_const(entries)) {
            RecoveryTask task;
            task.queue = list.queue;
            task.raw = raw;
            listed << task;
        }
        inspect(listed);
        backlog.tasks << listed;
    }
    return backlog;
}

void RecoveryService::inspect(QList<RecoveryTask> &tasks)
{
    // The outcome shown is the one compensation will have: the recoveries' own test decides it.
    QList<RecoveryTask *> checkins;
    QList<RecoveryTask *> payouts;
    for (RecoveryTask &task : tasks) {
        if (task.queue == QLatin1String("checkin")) {
            const auto entry = CheckinEntry::fromJson(task.raw);
            if (!entry)
                continue;
            task.kind = RecoveryTask::Kind::Checkin;
            task.uid = entry->uid;
            task.date = entry->date;
            task.checkinKind = entry->kind;
            task.atMs = entry->atMs;
            checkins << &task;
            continue;
        }
        const auto payout = PayoutTask::fromJson(task.raw);
        if (!payout)
            continue;
        task.kind = RecoveryTask::Kind::Payout;
        task.uid = payout->uid;
        task.campaignId = payout->campaignId;
        task.seq = payout->seq;
        task.amountCents = payout->amountCents;
        task.atMs = payout->atMs;
        payouts << &task;
    }
    if (!checkins.isEmpty())
        inspectCheckins(checkins);
    if (!payouts.isEmpty())
        inspectPayouts(payouts);
}

namespace {
QString marks(qsizetype count)
{
    return QStringList(count, QStringLiteral("?")).join(QLatin1Char(','));
}
} // namespace

void RecoveryService::inspectCheckins(const QList<RecoveryTask *> &tasks)
{
    // One list's check-ins at once: the log rows of their users on their days (a superset of the
    // pairs, matched here; each pair a primary key), where it was a SELECT per task. Done when
    // the row is there, as CheckinRecovery::isDone.
    QSet<qint64> uids;
    QSet<QDate> days;
    for (const RecoveryTask *task : tasks) {
        uids.insert(task->uid);
        days.insert(task->date);
    }
    QVariantList values;
    for (const qint64 uid : std::as_const(uids))
        values << uid;
    for (const QDate &day : std::as_const(days))
        values << day.toString(Qt::ISODate);
    QSqlQuery rows = sql().exec(QStringLiteral("SELECT uid, day FROM checkin_log WHERE uid IN (%1) AND day IN (%2)").arg(marks(uids.size()), marks(days.size())),
                                values);
    QSet<std::pair<qint64, QDate>> logged;
    while (rows.next())
        logged.insert({rows.value(0).toLongLong(), rows.value(1).toDate()});
    for (RecoveryTask *task : tasks) {
        task->persisted = logged.contains({task->uid, task->date});
        task->outcome = task->persisted ? RecoveryTask::Outcome::Complete : RecoveryTask::Outcome::Requeue;
    }
}

void RecoveryService::inspectPayouts(const QList<RecoveryTask *> &tasks)
{
    // One list's payouts at once (issue 26: three statements and an HGET per task were 4,000
    // round trips for 1,000 held tasks): their grab rows, their payout rows, the provider's ledger.
    QMap<qint64, QVariantList> seqsOf;  // campaign -> seqs
    QStringList idempotencyKeys;
    for (const RecoveryTask *task : tasks) {
        seqsOf[task->campaignId] << task->seq;
        idempotencyKeys << PayoutTask{task->campaignId, task->seq, task->uid, task->amountCents, task->atMs}.idempotencyKey();
    }
    QSet<std::pair<qint64, qint64>> grabbed;  // (campaign, seq) with a grab row
    for (auto it = seqsOf.cbegin(); it != seqsOf.cend(); ++it) {
        QSqlQuery rows = sql().exec(QStringLiteral("SELECT seq FROM grab WHERE campaign_id = ? AND seq IN (%1)").arg(marks(it.value().size())),
                                    QVariantList{it.key()} + it.value());
        while (rows.next())
            grabbed.insert({it.key(), rows.value(0).toLongLong()});
    }
    QHash<QString, QString> statusOf;
    QSqlQuery rows = sql().exec(QStringLiteral("SELECT idempotency_key, status FROM payout WHERE idempotency_key IN (%1)").arg(marks(idempotencyKeys.size())),
                                QVariantList(idempotencyKeys.cbegin(), idempotencyKeys.cend()));
    while (rows.next())
        statusOf.insert(rows.value(0).toString(), rows.value(1).toString());
    QList<std::optional<qint64>> provider;
    if (simulatedProvider())
        provider = SimulatedPayoutGateway(redis(), keys().prefix(), SimulationKnobs{}, 0).paidAmounts(idempotencyKeys);
    for (qsizetype i = 0; i < tasks.size(); ++i) {
        RecoveryTask &task = *tasks[i];
        task.persisted = grabbed.contains({task.campaignId, task.seq});
        task.payoutStatus = statusOf.value(idempotencyKeys[i]);
        if (i < provider.size())
            task.providerPaidCents = provider[i];
        // As EnvelopeRecovery::isDone: a paid payout row is done.
        task.outcome = task.payoutStatus == QLatin1String("paid") ? RecoveryTask::Outcome::Complete : RecoveryTask::Outcome::Requeue;
    }
}

QList<LedgerCheck> RecoveryService::ledgerChecks(const QueueOverview &overview)
{
    QList<qint64> campaigns;
    for (const QueueStatus &queue : overview.queues) {
        if (queue.campaignId)
            campaigns << *queue.campaignId;
    }
    QList<LedgerCheck> checks;
    CampaignVerifier verifier(redis(), sql(), keys());
    const std::unique_ptr<SimulatedPayoutGateway> ledger = verifier.readSimulatedLedger();
    verifier.keepSplits(&m_splits);
    verifier.judgeFromTally(&m_tallies);  // rules 2 and 3 from the running tally (issue 26); `lanternd verify` reads every row
    CampaignStore store(sql());
    QList<qint64> watched = m_watched.values();
    std::sort(watched.begin(), watched.end());
    for (const qint64 id : std::as_const(watched)) {
        if (!campaigns.contains(id))
            continue;
        const auto campaign = store.find(id);
        if (!campaign)
            continue;
        LedgerCheck check;
        check.campaignId = id;
        check.name = campaign->name;
        // Queued (summed over its pools by the overview) and held by the dead (their lists, counted
        // there); the live workers' lists are counted only when nothing else is on its way, since
        // then they alone decide whether the campaign is drained (issue 26): while anything is
        // queued or held by the dead, "in flight" is 0 and the check waits either way.
        const QString queueName = QStringLiteral("payout:%1").arg(id);
        for (const QueueStatus &queue : overview.queues) {
            if (queue.campaignId == id)
                check.queued = queue.depth;
        }
        for (const WorkerStatus &worker : overview.workers) {
            for (const BackupList &list : worker.held) {  // the dead's (LiveWorkers::Liveness)
                if (list.queue == queueName)
                    check.heldByDead += list.length;
            }
        }
        if (check.queued + check.heldByDead == 0)
            check.inFlight = liveHeld(id, overview);
        for (const Violation &violation : verifier.verify(id))
            //: One broken rule of the ledger check (DESIGN §4), as the Campaigns view words it too.
            check.violations << tr("Rule %1: %2").arg(violation.invariant).arg(violation.detail);
        if (!check.violations.isEmpty())
            check.state = LedgerCheck::State::Broken;
        else if (check.queued + check.inFlight + check.heldByDead > 0)
            check.state = LedgerCheck::State::Waiting;
        else
            check.state = LedgerCheck::State::Balanced;
        checks << check;
    }
    return checks;
}

qint64 RecoveryService::liveHeld(qint64 campaignId, const QueueOverview &overview)
{
    QList<QByteArrayList> commands;
    const QByteArrayList pools = CampaignPools::read(redis(), keys(), campaignId).names();
    for (const QByteArray &pool : pools) {
        for (const WorkerStatus &worker : overview.workers) {
            if (worker.alive)  // the dead's lists are in the overview
                commands << llen(keys().campaignBackup(pool, worker.id));
        }
    }
    qint64 held = 0;
    if (!commands.isEmpty()) {
        for (const RedisValue &length : redis().pipeline(commands))
            held += length.toInteger();
    }
    return held;
}

void RecoveryService::compensate(quint64 job, const QStringList &workers, const QString &operatorName)
{
    struct State {
        QStringList pending;
        qint64 total = 0;
        RecoveryReport report;
        QStringList skipped;  // alive again
    };
    auto state = std::make_shared<State>();
    state->pending = workers;
    state->total = workers.size();
    const QString actor = operatorName.trimmed();
    auto step = [this, state, actor]() -> QueueJobStep {
        if (actor.isEmpty())
            throw InvalidInputError(tr("an operator name is required"));
        if (state->pending.isEmpty())
            return {state->total, state->total, true};
        const QString worker = state->pending.takeFirst();
        KeySchema::validateWorkerId(worker);
        if (redis().command({QByteArrayLiteral("EXISTS"), keys().workerHeartbeat(worker)}).toInteger() == 1) {
            state->skipped << worker;  // it beat again meanwhile: its lists are in use
        } else {
            // What `lanternd recover --worker W` does, lending settlement and audit row included.
            const RecoveryReport report = WorkerRecovery(redis(), sql(), keys()).recover(worker, actor, QStringLiteral("console"), nowMs()).queues;
            state->report.reclaimed += report.reclaimed;
            state->report.requeued += report.requeued;
            state->report.completed += report.completed;
            state->report.deadLettered += report.deadLettered;
        }
        const qint64 done = state->total - state->pending.size();
        return {done, state->total, state->pending.isEmpty()};
    };
    auto summary = [state](bool cancelled) {
        const RecoveryReport &r = state->report;
        QString words = tr("Compensated %n worker(s):", nullptr, int(state->total - state->pending.size() - state->skipped.size())) + QLatin1Char(' ')
                + tr("%n task(s) completed from SQL, %1 re-queued, %2 set aside as unreadable.", nullptr, int(std::min<qint64>(r.completed, INT_MAX)))
                          .arg(r.requeued)
                          .arg(r.deadLettered);
        if (!state->skipped.isEmpty())
            words += QLatin1Char(' ') + tr("Skipped because their heartbeat came back: %1.").arg(state->skipped.join(tr(", ", "separator between the items of a list")));
        if (cancelled)
            words += QLatin1Char(' ') + tr("Cancelled: %n worker(s) left untouched.", nullptr, int(state->pending.size()));
        return words;
    };
    startJob(job, access::Action::Recover, std::move(step), std::move(summary));
}

void RecoveryService::reconcile(quint64 serial, QDate day, const QString &operatorName)
{
    try {
        const QString actor = operatorName.trimmed();
        if (actor.isEmpty())
            throw InvalidInputError(tr("an operator name is required"));
        if (!day.isValid() || day > config().today())
            throw InvalidInputError(tr("cannot reconcile %1: it is after today").arg(day.toString(Qt::ISODate)));
        SqlConnection &connection = sql();
        const ReconcileReport report = Reconciler(redis(), connection, keys(), config().checkin).reconcile(day, nowMs());
        AuditLog(connection).record(actor, QStringLiteral("checkin.reconcile"), day.toString(Qt::ISODate),
                                    {{QStringLiteral("redis_count"), report.redisCount},
                                     {QStringLiteral("db_count"), report.dbCount},
                                     {QStringLiteral("missing"), report.missing},
                                     {QStringLiteral("backfilled"), report.backfilled},
                                     {QStringLiteral("via"), QStringLiteral("console")}},
                                    nowMs());
        Q_EMIT reconciled(serial, report);
    } catch (const std::exception &error) {
        const auto [message, detail] = explain(error, access::Action::Reconcile);
        Q_EMIT reconcileFailed(serial, message, detail);
    }
}

} // namespace lantern
