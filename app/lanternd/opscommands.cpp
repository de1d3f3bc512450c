#include "opscommands.h"

#include "audit/auditlog.h"
#include "checkin/checkindrain.h"
#include "checkin/checkinrecovery.h"
#include "envelope/campaignrepair.h"
#include "envelope/envelopedrain.h"
#include "envelope/enveloperecovery.h"
#include "envelope/poollending.h"
#include "payout/payoutgateway.h"
#include "payout/payoutratelimit.h"
#include "commandcontext.h"
#include "core/errors.h"
#include "queue/queueoverview.h"
#include "queue/workerheartbeat.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "sql/sqlworker.h"
#include "token/usertoken.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QCoreApplication>
#include <QHostInfo>
#include <QRegularExpression>
#include <QJsonArray>
#include <QProcessEnvironment>
#include <QThread>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace lantern::cli {

namespace {

std::atomic_bool s_stopRequested{false};

void requestStop(int)
{
    s_stopRequested.store(true);
}

/** Waits up to `ms`, waking early when a stop is requested; runs `duringWait` every 50 ms. */
void pause(int ms, const std::function<void()> &duringWait = {})
{
    const QDeadlineTimer deadline(ms);
    while (!deadline.hasExpired() && !s_stopRequested.load()) {
        if (duringWait)
            duringWait();
        QThread::msleep(static_cast<unsigned long>(std::clamp<qint64>(deadline.remainingTime(), 0, 50)));
    }
}

QString defaultWorkerId()
{
    QString host = QHostInfo::localHostName();
    host.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]")), QStringLiteral("_"));
    return (host.isEmpty() ? QStringLiteral("worker") : host.left(40)) + QLatin1Char('-') + QString::number(QCoreApplication::applicationPid());
}

/** Check-in figures at the top level (as before envelopes existed), payouts in their own object;
    "refused" and "repaired" (grabs of a Redis that lost state) only when there were any. */
QJsonObject statsJson(const QString &workerId, const DrainStats &checkins, const EnvelopeDrainStats &payouts)
{
    QJsonObject payoutJson{{QStringLiteral("processed"), payouts.claimed},
                           {QStringLiteral("persisted"), payouts.persisted},
                           {QStringLiteral("paid"), payouts.paid},
                           {QStringLiteral("retried"), payouts.retried},
                           {QStringLiteral("dead_lettered"), payouts.deadLettered}};
    if (payouts.refused > 0 || payouts.repaired > 0) {
        payoutJson.insert(QStringLiteral("refused"), payouts.refused);
        payoutJson.insert(QStringLiteral("repaired"), payouts.repaired);
    }
    return {{QStringLiteral("worker"), workerId},
            {QStringLiteral("processed"), checkins.claimed},
            {QStringLiteral("persisted"), checkins.persisted},
            {QStringLiteral("dead_lettered"), checkins.deadLettered},
            {QStringLiteral("payouts"), payoutJson}};
}

/** Renews the heartbeat, with the worker's payout figures, when a third of its TTL has passed.
    A failed beat throws and is not retried before the next third either, so a caller polling it
    never hammers a dead Redis. */
class HeartbeatPacer {
public:
    HeartbeatPacer(WorkerHeartbeat &heartbeat, RedisClient &redis, std::function<WorkerPayoutFigures()> figures)
        : m_heartbeat(heartbeat), m_redis(redis), m_figures(std::move(figures))
    {
    }
    void operator()()
    {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        if (now - m_lastBeatMs >= m_heartbeat.ttlSeconds() * 1000 / 3) {
            m_lastBeatMs = now;
            m_heartbeat.beat(m_redis, now, m_figures());
        }
    }

private:
    WorkerHeartbeat &m_heartbeat;
    RedisClient &m_redis;
    std::function<WorkerPayoutFigures()> m_figures;
    qint64 m_lastBeatMs = 0;
};

} // namespace

bool stopRequested()
{
    return s_stopRequested.load();
}

void installStopHandlers()
{
    std::signal(SIGTERM, requestStop);
    std::signal(SIGINT, requestStop);
}

int runMigrate(CommandContext &context)
{
    SqlConnection &sql = context.sql();  // migrates on open
    printJson({{QStringLiteral("schema_version"), Migrator(sql).currentVersion()}});
    return 0;
}

namespace {

/** A whole-number option of `work` in [min, max], or `fallback` when absent. */
int workOption(CommandContext &context, const QString &name, int fallback, int min, int max)
{
    bool ok = true;
    const int value = context.line().value(name, QString::number(fallback)).toInt(&ok);
    if (!ok || value < min || value > max)
        throw InvalidInputError(
                QCoreApplication::translate("lantern::cli::Commands", "invalid --%1: expected %2 to %3").arg(name).arg(min).arg(max));
    return value;
}

/** A worker's batches allocate and free a few hundred kilobytes each (statements' bound values,
    claimed entries); glibc would give that back to the kernel after every batch (brk and munmap,
    each a TLB shootdown on every CPU: a fifth of a check-in worker's time on the development VM).
    The worker keeps up to 64 MB instead. */
/** MySQL connections a check-in pass is written over at once: two kept one worker up with the
    HTTP storm on 2 cores, as two workers with one each did (docs/decisions.md). */
constexpr int CheckinConnections = 2;

void keepFreedMemory()
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

} // namespace

int runWork(CommandContext &context)
{
    const QString workerId = context.line().value(QStringLiteral("id"), defaultWorkerId());
    KeySchema::validateWorkerId(workerId);
    const int batch = workOption(context, QStringLiteral("batch"), 500, 1, 10000);
    const int inFlight = workOption(context, QStringLiteral("in-flight"), DefaultPayoutsInFlight, 1, 1024);
    const bool once = context.line().switches.contains(QStringLiteral("once"));
    keepFreedMemory();
    WorkerHeartbeat heartbeat(context.keys(), workerId, WorkerHeartbeat::configuredTtlSeconds());

    // Both reachable before this worker registers; the payout provider and its shared rate are
    // chosen by the environment.
    const SqlConnection &firstSql = context.sql();
    RedisClient &redis = context.redis();
    // On MySQL a check-in pass is written over several connections at once (CheckinDrain::
    // setWriters): one worker then gets several of the database's threads in a storm.
    std::vector<std::unique_ptr<SqlWorker>> checkinWorkers;
    QList<SqlWorker *> checkinWriters;
    if (firstSql.dialect() == DbUrl::Dialect::MySql) {
        for (int i = 1; i < CheckinConnections; ++i) {
            checkinWorkers.push_back(std::make_unique<SqlWorker>(firstSql.url()));
            checkinWriters << checkinWorkers.back().get();
        }
    }
    const std::unique_ptr<PayoutGateway> gateway = makePayoutGateway(redis, context.keys().prefix(), QProcessEnvironment::systemEnvironment(), inFlight);
    std::optional<PayoutRateLimit> rate;
    if (const std::optional<double> perSecond = PayoutRateLimit::rateFromEnvironment())
        rate.emplace(context.keys().prefix(), *perSecond);
    // One drain for the whole run, so payouts stay in flight between passes; a new one after an
    // outage, which takes over what its backup lists hold.
    std::unique_ptr<EnvelopeDrain> drain;
    PayoutCallCounts earlierDrains;  // the calls of the drains an outage ended
    HeartbeatPacer pacer(heartbeat, redis, [&drain, &earlierDrains] {
        PayoutCallCounts counts = earlierDrains;
        WorkerPayoutFigures figures;
        if (drain) {
            counts += drain->dispatcher().counts();
            figures.inFlight = drain->dispatcher().inFlight();
        }
        figures.paid = counts.paid;
        figures.calls = counts.calls;
        figures.providerErrors = counts.providerErrors;
        return figures;
    });
    if (!once)
        warnIfGrabsCanBeLost(context, "work");
    EnvelopeDrainOptions payoutOptions;
    payoutOptions.batchSize = batch;
    payoutOptions.inFlight = inFlight;
    payoutOptions.rate = rate ? &*rate : nullptr;
    payoutOptions.keepAlive = [&pacer] { pacer(); };
    DrainStats checkins;
    EnvelopeDrainStats payouts;
    RedisRunWatch redisRun;
    const auto passOnce = [&] {
        SqlConnection &sql = context.sql();  // reopened after an outage
        pacer();
        // A Redis that restarted (or failed over) may have rolled back grabs the ledger holds:
        // campaigns that lost state are rebuilt from SQL before their tasks are drained.
        if (redisRun.changed(redis)) {
            for (const CampaignRepairReport &report : CampaignRepair(redis, sql, context.keys()).checkAll()) {
                AuditLog(sql).record(QStringLiteral("worker:") + workerId, QStringLiteral("campaign.repair"), QStringLiteral("campaign:%1").arg(report.campaignId),
                                     report.toJson(), QDateTime::currentMSecsSinceEpoch());
                const QString message = QCoreApplication::translate("lantern::cli::Commands",
                                                                    "Redis lost grabs of campaign %1 that the ledger holds; rebuilt its Redis state from SQL")
                                                .arg(report.campaignId);
                std::fprintf(stderr, "lanternd work: %s\n", message.toLocal8Bit().constData());
                ++payouts.repaired;
            }
            redisRun.checked();  // not before: a check cut short by an outage runs again
        }
        CheckinDrain checkinDrain(redis, sql, context.keys(), workerId, batch);
        checkinDrain.setWriters(checkinWriters);
        const DrainStats c = checkinDrain.pass();
        if (!drain)
            drain = std::make_unique<EnvelopeDrain>(redis, sql, context.keys(), workerId, *gateway, payoutOptions);
        const EnvelopeDrainStats p = drain->advance(std::chrono::milliseconds(250));
        checkins += c;
        payouts += p;
        return c.claimed + p.claimed + (drain->busy() ? 1 : 0);
    };

    if (once) {
        while (passOnce() > 0) {
        }
    } else {
        // The long-running loop: drain, back off on outages, stop cleanly on SIGTERM.
        int backoffMs = 100;
        while (!s_stopRequested.load()) {
            try {
                const qint64 work = passOnce();
                backoffMs = 100;
                if (work == 0)
                    pause(200);
            } catch (const UnavailableError &error) {
                if (drain)
                    earlierDrains += drain->dispatcher().counts();
                drain.reset();  // what it held is in its backup lists; the next one takes it over
                const QString message =
                        QCoreApplication::translate("lantern::cli::Commands", "%1; retrying in %2 ms").arg(error.message()).arg(backoffMs);
                std::fprintf(stderr, "lanternd work: %s\n", message.toLocal8Bit().constData());
                context.closeSql();  // a dropped SQL connection is not reused; Redis reconnects by itself
                // Waiting out an outage is not dying: keep beating, or recovery would take this
                // worker for dead and hand its backup list to another one meanwhile. A Redis
                // outage needs no report here; the next pass reports it.
                pause(backoffMs, [&pacer] {
                    try {
                        pacer();
                    } catch (const UnavailableError &) {
                    }
                });
                backoffMs = std::min(backoffMs * 2, 5000);
            }
        }
        // Payouts in flight finish and are recorded before the worker goes; if Redis or SQL is
        // gone by then, they stay in the backup lists for recovery.
        if (drain) {
            try {
                payouts += drain->finish();
            } catch (const UnavailableError &error) {
                std::fprintf(stderr, "lanternd work: %s\n", error.message().toLocal8Bit().constData());
            }
        }
    }
    heartbeat.stop(redis);
    redis.command({QByteArrayLiteral("SREM"), context.keys().workerSet(), workerId.toUtf8()});
    printJson(statsJson(workerId, checkins, payouts));
    return 0;
}

int runRecover(CommandContext &context)
{
    std::optional<QString> worker;
    if (context.line().has(QStringLiteral("worker"))) {
        worker = context.line().value(QStringLiteral("worker"));
        KeySchema::validateWorkerId(*worker);
    }
    SqlConnection &sql = context.sql();
    CheckinRecovery checkins(context.redis(), sql, context.keys());
    EnvelopeRecovery payouts(context.redis(), sql, context.keys());
    const RecoveryReport report = BackupQueueRecovery(context.redis(), context.keys(), {&checkins, &payouts}).recover(worker);
    // Grabs of sub-pooled campaigns interrupted between their lend and their settle (docs/cluster.md).
    const LentSettlement lent = PoolLending(context.redis(), context.keys()).settleEveryCampaign(LentGraceMs, context.nowMs());
    if (report.reclaimed > 0 || worker) {
        AuditLog(sql).record(context.actor(), QStringLiteral("queue.recover"), worker.value_or(QStringLiteral("expired-workers")),
                             {{QStringLiteral("workers"), QJsonArray::fromStringList(report.workers)},
                              {QStringLiteral("requeued"), report.requeued},
                              {QStringLiteral("completed"), report.completed},
                              {QStringLiteral("dead_lettered"), report.deadLettered}},
                             context.nowMs());
    }
    QJsonObject json{{QStringLiteral("reclaimed"), report.reclaimed},
                     {QStringLiteral("requeued"), report.requeued},
                     {QStringLiteral("completed"), report.completed},
                     {QStringLiteral("dead_lettered"), report.deadLettered},
                     {QStringLiteral("workers"), QJsonArray::fromStringList(report.workers)}};
    if (lent.found > 0)
        json.insert(QStringLiteral("lent_settled"), QJsonObject{{QStringLiteral("kept"), lent.kept}, {QStringLiteral("returned"), lent.returned + lent.refunded}});
    printJson(json);
    return 0;
}

int runQueues(CommandContext &context)
{
    const QueueOverview overview = QueueOverview::read(context.redis(), context.keys(), context.nowMs());
    QJsonArray queues;
    for (const QueueStatus &queue : overview.queues)
        queues.append(QJsonObject{{QStringLiteral("name"), queue.name},
                                  {QStringLiteral("depth"), queue.depth},
                                  {QStringLiteral("oldest_age_s"), queue.oldestAgeS}});
    // A live worker's payout figures, as it said with its last beat (issue 12); only when it did.
    const auto payoutsJson = [](const WorkerPayoutFigures &figures) {
        return QJsonObject{{QStringLiteral("paid"), figures.paid},
                           {QStringLiteral("paid_per_s"), figures.paidPerSecond},
                           {QStringLiteral("in_flight"), figures.inFlight},
                           {QStringLiteral("calls"), figures.calls},
                           {QStringLiteral("provider_errors"), figures.providerErrors}};
    };
    QJsonArray workers;
    bool anyPayouts = false;
    for (const WorkerStatus &worker : overview.workers) {
        QJsonObject json{{QStringLiteral("id"), worker.id},
                         {QStringLiteral("alive"), worker.alive},
                         {QStringLiteral("backup_depth"), worker.backupDepth},
                         {QStringLiteral("last_beat_s"), worker.lastBeatS ? QJsonValue(*worker.lastBeatS) : QJsonValue()}};
        if (worker.payouts) {
            json.insert(QStringLiteral("payouts"), payoutsJson(*worker.payouts));
            anyPayouts = true;
        }
        workers.append(json);
    }
    QJsonObject json{{QStringLiteral("queues"), queues}, {QStringLiteral("workers"), workers}, {QStringLiteral("dead_letter"), overview.deadLetter}};
    if (overview.refused > 0)  // grabs the ledger refused after Redis lost state (issue 15)
        json.insert(QStringLiteral("refused_grabs"), overview.refused);
    if (anyPayouts)
        json.insert(QStringLiteral("payouts"), payoutsJson(overview.payouts));
    printJson(json);
    return 0;
}

int runToken(CommandContext &context)
{
    const qint64 uid = context.user();
    bool ok = true;
    const qint64 ttl = context.line().value(QStringLiteral("ttl-s"), QStringLiteral("3600")).toLongLong(&ok);
    if (!ok || ttl < 1 || ttl > 366LL * 86400)
        throw InvalidInputError(QCoreApplication::translate("lantern::cli::Commands", "invalid --ttl-s: expected 1 to 31622400 seconds"));
    const UserTokens tokens(context.config().tokenSalt, context.config().tokenSecret.toUtf8());
    const qint64 expiresAt = context.nowMs() / 1000 + ttl;
    printJson({{QStringLiteral("uid"), uid},
               {QStringLiteral("token"), tokens.tokenFor(uid)},
               {QStringLiteral("bearer"), tokens.mintBearer(uid, expiresAt)},
               {QStringLiteral("expires_at"), QDateTime::fromSecsSinceEpoch(expiresAt, Qt::UTC).toString(Qt::ISODate)}});
    return 0;
}

} // namespace lantern::cli
