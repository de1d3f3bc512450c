#include "schemephases.h"

#include "childprocess.h"
#include "clientload.h"
#include "uidsample.h"

#include "core/errors.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QThread>

namespace lantern::bench {

namespace {

const QString CrashWorker = QStringLiteral("strategies-crash");
const QString RecoveryWorker = QStringLiteral("strategies-recovery");
constexpr int PollDeadlineMs = 300'000;

/** Clients of `scheme` on `campaignId`, each answer counted in `tally`. */
ClientFactory schemeClients(Scheme scheme, const StrategySettings &settings, const KeySchema &keys, qint64 campaignId, GrabTally &tally)
{
    return [scheme, &settings, &keys, campaignId, &tally](RedisClient &redis) -> ClientRequest {
        std::shared_ptr<SchemeClient> client = makeSchemeClient(scheme, redis, settings.db, keys, campaignId, settings.scheme, tally);
        return [client, &tally](qint64 uid) {
            const qint64 start = steadyNs();
            const GrabAnswer answer = client->grab(uid);
            tally.count(answer, start, steadyNs());
        };
    };
}

double secondsSince(qint64 startNs)
{
    return static_cast<double>(steadyNs() - startNs) / 1e9;
}

} // namespace

QString answerName(GrabAnswer answer)
{
    switch (answer) {
    case GrabAnswer::Ok: return QStringLiteral("ok");
    case GrabAnswer::Already: return QStringLiteral("already");
    case GrabAnswer::SoldOut: return QStringLiteral("sold out");
    case GrabAnswer::Busy: return QStringLiteral("busy");
    }
    return {};
}

SchemePhases::SchemePhases(const StrategySettings &settings, RedisClient &redis, SqlConnection &sql)
    : m_settings(settings), m_redis(redis), m_sql(sql), m_keys(settings.bench.prefix), m_book(redis, sql, m_keys), m_attempts(grabAttempts(settings))
{
    if (!m_workDir.isValid())
        throw LanternError(QStringLiteral("cannot create a temporary directory: %1").arg(m_workDir.errorString()));
}

std::unique_ptr<ChildProcess> SchemePhases::startWorker(const QString &workerId)
{
    return std::make_unique<ChildProcess>(m_settings.lanternd,
                                          QStringList{QStringLiteral("work"), QStringLiteral("--id"), workerId} + lanterndConnection(m_settings),
                                          m_workDir.path(), workerId,
                                          QStringList{QStringLiteral("LANTERN_HEARTBEAT_TTL_S=%1").arg(m_settings.heartbeatTtlS)});
}

double SchemePhases::waitUntilPersisted(qint64 campaignId)
{
    const qint64 start = steadyNs();
    const QDeadlineTimer deadline(PollDeadlineMs);
    for (;;) {
        const LedgerState state = m_book.read(Scheme::LanternPath, campaignId);
        if (state.pending == 0)
            return secondsSince(start);
        if (deadline.hasExpired())
            throw LanternError(QStringLiteral("campaign %1: %2 grabs still not in SQL after %3 s").arg(campaignId).arg(state.pending).arg(PollDeadlineMs / 1000));
        QThread::msleep(20);  // poll with a deadline: the worker reports nothing else we could wait on
    }
}

QString SchemePhases::verify(qint64 campaignId)
{
    // lanternd verify exits 4 when an invariant is broken: that is a figure here, not a failure.
    const QJsonObject answer = runLanternd(m_settings.lanternd,
                                           QStringList{QStringLiteral("verify"), QStringLiteral("--campaign"), QString::number(campaignId)}
                                                   + lanterndConnection(m_settings),
                                           4);
    if (answer.value(QStringLiteral("ok")).toBool())
        return QStringLiteral("ok");
    return QStringLiteral("%1 violations").arg(answer.value(QStringLiteral("violations")).toArray().size());
}

StormResult SchemePhases::storm(Scheme scheme, int round)
{
    const qint64 campaignId = m_book.create(scheme, m_settings.envelopes, m_settings.bench.seed);
    std::unique_ptr<ChildProcess> worker;
    if (scheme == Scheme::LanternPath)
        worker = startWorker(QStringLiteral("strategies-storm-%1").arg(round));

    GrabTally tally;
    StormResult result;
    result.figures = runClientLoad(m_settings.bench.redis, m_settings.bench.clients, m_attempts,
                                   schemeClients(scheme, m_settings, m_keys, campaignId, tally));
    if (worker) {
        result.persistSeconds = waitUntilPersisted(campaignId);
        worker->stop();
        result.verify = verify(campaignId);
    }
    result.ok = tally.ok;
    result.already = tally.already;
    result.soldOut = tally.soldOut;
    result.busy = tally.busy;
    result.retries = tally.retries;
    result.duplicates = tally.duplicates;
    result.sellOutSeconds = tally.secondsToSellOut();
    result.ledger = m_book.read(scheme, campaignId);
    return result;
}

CrashResult SchemePhases::crash(Scheme scheme, qint64 grantable)
{
    const qint64 campaignId = m_book.create(scheme, m_settings.envelopes, m_settings.bench.seed);
    const bool lantern = scheme == Scheme::LanternPath;
    CrashResult result;

    // The client that grabs right after the kill, connected beforehand so its first grab times
    // the scheme and not a connection.
    RedisClient probeRedis(m_settings.bench.redis);
    GrabTally probeTally;
    const std::unique_ptr<SchemeClient> probe = makeSchemeClient(scheme, probeRedis, m_settings.db, m_keys, campaignId, m_settings.scheme, probeTally);

    std::unique_ptr<ChildProcess> worker;
    if (lantern)
        worker = startWorker(CrashWorker);
    ChildProcess grabber(QCoreApplication::applicationFilePath(), childArguments(m_settings, scheme, campaignId), m_workDir.path(),
                         QStringLiteral("grabber-%1").arg(static_cast<int>(scheme)));

    // Wait on what the database (Redis for 6) shows, then kill: 1-5 once the threshold is granted;
    // 6 once it is granted and the worker holds a batch in its backup list (claimed, not yet
    // acknowledged), so that the kill leaves it something to recover.
    const qint64 threshold = std::max<qint64>(1, (std::min(grantable, m_settings.envelopes) * m_settings.killAtPercent + 99) / 100);
    const QByteArray backup = m_keys.campaignBackup(campaignId, CrashWorker);
    const auto length = [this](const QByteArray &key) { return m_redis.command({QByteArrayLiteral("LLEN"), key}).toInteger(); };
    const QDeadlineTimer deadline(PollDeadlineMs);
    for (;;) {
        if (m_book.granted(scheme, campaignId) >= threshold && (!lantern || length(backup) > 0))
            break;
        const bool grabberDone = grabber.waitForExit(2);
        if (grabberDone && (!lantern || length(backup) + length(m_keys.campaignTasks(campaignId)) == 0))
            break;  // ended before the kill point: nothing left in flight
        if (worker && !worker->isRunning())
            throw LanternError(QStringLiteral("lanternd work exited during the crash run: %1").arg(worker->errorText()));
        if (deadline.hasExpired())
            throw LanternError(QStringLiteral("scheme %1 did not reach its kill point in %2 s").arg(static_cast<int>(scheme)).arg(PollDeadlineMs / 1000));
    }
    result.killed = lantern ? length(backup) > 0 : grabber.isRunning();
    if (!grabber.isRunning() && !grabber.errorText().isEmpty())
        throw LanternError(QStringLiteral("the grabbing child of scheme %1 failed: %2").arg(static_cast<int>(scheme)).arg(grabber.errorText()));
    grabber.kill();
    if (worker)
        worker->kill();
    const qint64 killedNs = steadyNs();

    result.grantedAtKill = m_book.granted(scheme, campaignId);
    if (scheme == Scheme::DistributedLock) {
        const qint64 left = m_redis.command({QByteArrayLiteral("PTTL"), schemeLockKey(m_keys, campaignId)}).toInteger();
        result.inFlight = left > 0 ? QStringLiteral("the lock, %1 ms of its lease left").arg(left) : QStringLiteral("no lock");
    } else if (lantern) {
        result.inFlight = QStringLiteral("%1 tasks in the worker's backup list, %2 queued")
                                  .arg(length(backup))
                                  .arg(length(m_keys.campaignTasks(campaignId)));
    } else if (scheme == Scheme::RedisQueue) {
        result.inFlight = QStringLiteral("envelopes between LPOP and INSERT");
    } else {
        result.inFlight = QStringLiteral("its open transactions");
    }

    result.firstGrabAnswer = answerName(probe->grab(SentinelUid));
    result.firstGrabMs = static_cast<double>(steadyNs() - killedNs) / 1e6;

    switch (scheme) {
    case Scheme::DistributedLock: result.recovery = QStringLiteral("none: the lease runs out"); break;
    case Scheme::RedisQueue: result.recovery = QStringLiteral("none"); break;
    case Scheme::LanternPath: {
        // Automatic recovery, as a timer or an operator runs it: once the dead worker's heartbeat
        // has expired, `lanternd recover` re-queues its backup list; a worker drains the rest.
        const QDeadlineTimer heartbeat(qint64{m_settings.heartbeatTtlS} * 1000 + 10'000);
        while (m_redis.command({QByteArrayLiteral("EXISTS"), m_keys.workerHeartbeat(CrashWorker)}).toInteger() == 1) {
            if (heartbeat.hasExpired())
                throw LanternError(QStringLiteral("the killed worker's heartbeat did not expire"));
            QThread::msleep(20);  // poll with a deadline: an expiry sends nothing to wait on
        }
        const QJsonObject recovered = runLanternd(m_settings.lanternd, QStringList{QStringLiteral("recover")} + lanterndConnection(m_settings));
        runLanternd(m_settings.lanternd,
                    QStringList{QStringLiteral("work"), QStringLiteral("--once"), QStringLiteral("--id"), RecoveryWorker} + lanterndConnection(m_settings));
        result.recovery = QStringLiteral("heartbeat expired, `lanternd recover` (requeued %1, completed %2), `lanternd work --once`")
                                  .arg(recovered.value(QStringLiteral("requeued")).toInteger())
                                  .arg(recovered.value(QStringLiteral("completed")).toInteger());
        break;
    }
    default: result.recovery = QStringLiteral("none: InnoDB rolls the dead connections back"); break;
    }
    result.recoveredSeconds = std::max(secondsSince(killedNs), result.firstGrabMs / 1000);
    result.ledger = m_book.read(scheme, campaignId);
    if (lantern)
        result.verify = verify(campaignId);
    return result;
}

void SchemePhases::runChild(const StrategySettings &settings)
{
    const KeySchema keys(settings.bench.prefix);
    GrabTally tally;
    runClientLoad(settings.bench.redis, settings.bench.clients, grabAttempts(settings),
                  schemeClients(static_cast<Scheme>(settings.childScheme), settings, keys, settings.childCampaign, tally));
}

} // namespace lantern::bench
