#include "opscommands.h"

#include "commandcontext.h"
#include "core/errors.h"
#include "operations/queueoverview.h"
#include "operations/workerrecovery.h"
#include "operations/workershift.h"
#include "payout/payoutgateway.h"
#include "payout/payoutratelimit.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "stopsignal.h"
#include "token/usertoken.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QHostInfo>
#include <QJsonArray>
#include <QProcessEnvironment>
#include <QRegularExpression>

#include <cstdio>
#include <memory>
#include <optional>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace lantern::cli {

namespace {

QString defaultWorkerId()
{
    QString host = QHostInfo::localHostName();
    host.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]")), QStringLiteral("_"));
    return (host.isEmpty() ? QStringLiteral("worker") : host.left(40)) + QLatin1Char('-') + QString::number(QCoreApplication::applicationPid());
}

/** Check-in figures at the top level (as before envelopes existed), payouts in their own object;
    "refused" and "repaired" (grabs of a Redis that lost state) and "timetable" only when there
    were any. */
QJsonObject statsJson(const QString &workerId, const WorkerShiftStats &stats)
{
    const DrainStats &checkins = stats.checkins;
    const EnvelopeDrainStats &payouts = stats.payouts;
    QJsonObject payoutJson{{QStringLiteral("processed"), payouts.claimed},
                           {QStringLiteral("persisted"), payouts.persisted},
                           {QStringLiteral("paid"), payouts.paid},
                           {QStringLiteral("retried"), payouts.retried},
                           {QStringLiteral("dead_lettered"), payouts.deadLettered}};
    if (payouts.refused > 0 || payouts.repaired > 0) {
        payoutJson.insert(QStringLiteral("refused"), payouts.refused);
        payoutJson.insert(QStringLiteral("repaired"), payouts.repaired);
    }
    QJsonObject json{{QStringLiteral("worker"), workerId},
                     {QStringLiteral("processed"), checkins.claimed},
                     {QStringLiteral("persisted"), checkins.persisted},
                     {QStringLiteral("dead_lettered"), checkins.deadLettered},
                     {QStringLiteral("payouts"), payoutJson}};
    // The campaigns' timetable (issue 30), only when this worker kept some of it.
    if (stats.transitionsMade > 0 || stats.transitionsMissed > 0 || stats.launchesPrepared > 0)
        json.insert(QStringLiteral("timetable"), QJsonObject{{QStringLiteral("made"), stats.transitionsMade},
                                                             {QStringLiteral("missed"), stats.transitionsMissed},
                                                             {QStringLiteral("prepared"), stats.launchesPrepared}});
    return json;
}

/** A line on stderr while the worker runs (a repair, an outage). */
void report(const QString &line)
{
    std::fprintf(stderr, "lanternd work: %s\n", line.toLocal8Bit().constData());
    std::fflush(stderr);
}

} // namespace

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
    WorkerShiftOptions options;
    options.workerId = context.line().value(QStringLiteral("id"), defaultWorkerId());
    KeySchema::validateWorkerId(options.workerId);
    options.batch = workOption(context, QStringLiteral("batch"), 500, 1, 10000);
    options.inFlight = workOption(context, QStringLiteral("in-flight"), DefaultPayoutsInFlight, 1, 1024);
    options.checkinConnections = CheckinConnections;
    options.heartbeatTtlS = WorkerHeartbeat::configuredTtlSeconds();
    options.today = [&context] { return context.today(); };
    const bool once = context.line().switches.contains(QStringLiteral("once"));
    keepFreedMemory();

    // SQL, then Redis, reachable before the worker registers; the payout provider and its
    // shared rate are chosen by the environment.
    context.sql();
    RedisClient &redis = context.redis();
    const std::unique_ptr<PayoutGateway> gateway = makePayoutGateway(redis, context.keys().prefix(), QProcessEnvironment::systemEnvironment(), options.inFlight);
    std::optional<PayoutRateLimit> rate;
    if (const std::optional<double> perSecond = PayoutRateLimit::rateFromEnvironment())
        rate.emplace(context.keys().prefix(), *perSecond);
    options.rate = rate ? &*rate : nullptr;
    WorkerShift shift(redis, [&context] { return context.takeSql(); }, context.keys(), *gateway, options);
    shift.setReporter([](const QString &line) { report(line); });
    if (once) {
        shift.drainAll();
    } else {
        warnIfGrabsCanBeLost(context, "work");
        // The long-running loop: step, pause as the shift says (beating meanwhile), stop cleanly
        // on SIGTERM once the payouts in flight are recorded.
        while (!stopRequested()) {
            const ShiftStep step = shift.step();
            if (!step.outage.isEmpty())
                report(step.outage);
            if (step.pauseMs > 0)
                pauseUnlessStopped(step.pauseMs, [&shift] { shift.keepBeating(); });
        }
        if (const QString outage = shift.finish(); !outage.isEmpty())
            report(outage);
    }
    shift.retire();
    printJson(statsJson(options.workerId, shift.stats()));
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
    const WorkerRecoveryReport report = WorkerRecovery(context.redis(), sql, context.keys()).recover(worker, context.actor(), {}, context.nowMs());
    QJsonObject json{{QStringLiteral("reclaimed"), report.queues.reclaimed},
                     {QStringLiteral("requeued"), report.queues.requeued},
                     {QStringLiteral("completed"), report.queues.completed},
                     {QStringLiteral("dead_lettered"), report.queues.deadLettered},
                     {QStringLiteral("workers"), QJsonArray::fromStringList(report.queues.workers)}};
    if (report.lent.found > 0)
        json.insert(QStringLiteral("lent_settled"),
                    QJsonObject{{QStringLiteral("kept"), report.lent.kept}, {QStringLiteral("returned"), report.lent.returned + report.lent.refunded}});
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
