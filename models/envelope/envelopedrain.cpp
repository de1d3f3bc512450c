#include "envelope/envelopedrain.h"

#include "queue/backuptally.h"

#include "envelope/campaignpools.h"
#include "envelope/poolretirement.h"
#include "envelope/campaignrepair.h"
#include "envelope/ledgertally.h"
#include "envelope/poollending.h"
#include "payout/payoutgateway.h"
#include "queue/queuepipeline.h"
#include "queue/reliablequeue.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "sql/sqlworker.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QStandardPaths>

#include <algorithm>
#include <exception>

namespace lantern {

namespace {
constexpr std::chrono::milliseconds CampaignsReadEvery{1000};
constexpr std::chrono::milliseconds LentCheckEvery{5000};

const LuaScript &refusedGrabScript()
{
    static const LuaScript script(QStringLiteral("grab_refused"));
    return script;
}

double drainSeconds(const QElapsedTimer &timer)
{
    return static_cast<double>(timer.nsecsElapsed()) / 1e9;
}
} // namespace

EnvelopeDrainStats &EnvelopeDrainStats::operator+=(const EnvelopeDrainStats &other)
{
    claimed += other.claimed;
    persisted += other.persisted;
    paid += other.paid;
    retried += other.retried;
    deadLettered += other.deadLettered;
    refused += other.refused;
    repaired += other.repaired;
    return *this;
}

EnvelopeDrain::EnvelopeDrain(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, QString workerId, PayoutGateway &gateway,
                             EnvelopeDrainOptions options)
    : m_redis(redis), m_sql(sql), m_keys(keys), m_workerId(std::move(workerId)), m_options(std::move(options))
{
    KeySchema::validateWorkerId(m_workerId);
    if (m_options.errorLogPath.isEmpty()) {
        m_options.errorLogPath = QProcessEnvironment::systemEnvironment().value(QStringLiteral("LANTERN_ERROR_LOG"));
        if (m_options.errorLogPath.isEmpty())
            m_options.errorLogPath =
                    QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/lantern/errors.log");
    }
    PayoutDispatchOptions dispatch;
    dispatch.maxInFlight = m_options.inFlight;
    dispatch.attempts = m_options.payAttempts;
    dispatch.backoff = std::chrono::milliseconds(m_options.backoffMs);
    dispatch.rate = m_options.rate;
    dispatch.redis = &m_redis;
    dispatch.keepAlive = m_options.keepAlive;
    m_dispatcher = std::make_unique<PayoutDispatcher>(gateway, std::move(dispatch));
    if (m_options.ledgerThread && m_sql.dialect() == DbUrl::Dialect::MySql) {
        m_writer = std::make_unique<SqlWorker>(m_sql.url());
        m_recorder = std::make_unique<SqlWorker>(m_sql.url());
    }
}

EnvelopeDrain::~EnvelopeDrain() = default;

ReliableQueue EnvelopeDrain::queueOf(const QByteArray &pool) const
{
    return {m_keys.campaignTasks(pool), m_keys.campaignBackup(pool, m_workerId), m_keys.campaignDeadLetter(pool)};
}

const QByteArrayList &EnvelopeDrain::pools()
{
    if (m_exhausted || m_poolsFresh.hasExpired()) {
        // Closed campaigns' drained pools leave the set as workers pass by (issue 26), so it holds
        // the campaigns that can still have work, not every campaign ever launched.
        if (m_retireDue.hasExpired()) {
            PoolRetirement(m_redis, m_keys).run();
            m_retireDue.setRemainingTime(std::chrono::seconds(PoolRetirement::LockSeconds));
        }
        m_pools = CampaignPools::launched(m_redis, m_keys);
        m_poolsFresh.setRemainingTime(CampaignsReadEvery);
    }
    return m_pools;
}

bool EnvelopeDrain::busy() const
{
    return !m_dispatcher->idle() || !m_unrecorded.isEmpty() || !m_unsettled.isEmpty() || !m_prefetched.isEmpty();
}

EnvelopeDrainStats EnvelopeDrain::drainAll()
{
    EnvelopeDrainStats total;
    for (;;) {
        const EnvelopeDrainStats stats = advance(std::chrono::milliseconds(1000));
        total += stats;
        if (stats.claimed == 0 && m_exhausted && m_dispatcher->idle())
            break;
    }
    total += finish();
    return total;
}

EnvelopeDrainStats EnvelopeDrain::pass()
{
    EnvelopeDrainStats stats = advanceBatch(std::chrono::milliseconds(0), false);
    stats += finish();
    return stats;
}

EnvelopeDrainStats EnvelopeDrain::advance(std::chrono::milliseconds slice)
{
    return advanceBatch(slice, true);
}

EnvelopeDrainStats EnvelopeDrain::claimTrip(bool claim, QList<Claimed> &claimed)
{
    // One round trip: settle what the last transaction recorded, take over what this worker's
    // backup lists held before it started, and claim a batch per campaign when asked.
    EnvelopeDrainStats stats;
    QueuePipeline trip;
    QList<Outcome> deadLetters;
    stats += settleInto(trip, deadLetters);
    QList<std::pair<QByteArray, int>> reads;  // pool, handle
    QList<std::pair<QByteArray, int>> claims;
    for (const QByteArray &id : pools()) {
        if (!m_resumed.contains(id))
            reads.append({id, trip.readBackup(queueOf(id))});
        if (claim)
            claims.append({id, trip.claim(queueOf(id), m_options.batchSize)});
    }
    runTrip(trip);
    for (const Outcome &outcome : std::as_const(deadLetters))
        logDeadLetter(outcome.claimed.pool, outcome.claimed.raw, outcome.why);

    const auto collect = [&](const QByteArray &id, const QByteArrayList &entries) {
        for (const QByteArray &raw : entries) {
            if (const auto task = PayoutTask::fromJson(raw)) {
                claimed.append({id, raw, *task, 0});
            } else {
                queueOf(id).deadLetter(m_redis, raw, {QStringLiteral("malformed task"), 0, 0});
                if (m_options.tally)
                    m_options.tally->change(queueOf(id).backupKey(), -1);
                logDeadLetter(id, raw, QStringLiteral("malformed task"));
                ++stats.deadLettered;
            }
            ++stats.claimed;
        }
    };
    for (const auto &[id, handle] : std::as_const(reads)) {
        collect(id, trip.entries(handle));
        m_resumed.insert(id);
    }
    bool shortClaim = claim;
    for (const auto &[id, handle] : std::as_const(claims)) {
        collect(id, trip.entries(handle));
        shortClaim = shortClaim && trip.entries(handle).size() < m_options.batchSize;
    }
    if (claim)
        m_exhausted = shortClaim;
    return stats;
}

EnvelopeDrainStats EnvelopeDrain::advanceBatch(std::chrono::milliseconds slice, bool prefetch)
{
    const QDeadlineTimer deadline(slice);
    EnvelopeDrainStats stats;
    takeOutcomes();
    if (m_lentFresh.hasExpired())
        settleInterruptedLends();

    // 1. The batch: claimed while the last transaction ran (prefetched), else now, when the
    //    payouts waiting would not keep the window full for long.
    const int lowWater = 2 * m_dispatcher->window();
    QList<Claimed> claimed = std::exchange(m_prefetched, {});
    stats += std::exchange(m_prefetchedStats, {});
    if (claimed.isEmpty())
        stats += claimTrip(m_dispatcher->backlog() < lowWater, claimed);

    // 2. One transaction: the finished payouts recorded, the new grabs and pending payouts in SQL
    //    before any money moves for them; then the accepted envelopes join the payouts in flight.
    //    With `prefetch`, the next batch is claimed meanwhile.
    if (!claimed.isEmpty() || !m_unrecorded.isEmpty())
        stats += writeBatch(claimed, prefetch);

    // 3. Payouts run until more work is wanted, all are done, or the slice is over.
    if (!deadline.hasExpired() && !m_dispatcher->idle()) {
        QElapsedTimer waited;
        waited.start();
        m_dispatcher->wait([this, lowWater] { return !m_exhausted && m_dispatcher->backlog() < lowWater; }, deadline);
        m_timings.waitSeconds += drainSeconds(waited);
    }
    takeOutcomes();
    return stats;
}

EnvelopeDrainStats EnvelopeDrain::finish()
{
    EnvelopeDrainStats stats;
    while (busy()) {
        if (!m_prefetched.isEmpty()) {
            stats += std::exchange(m_prefetchedStats, {});
            stats += writeBatch(std::exchange(m_prefetched, {}), false);
        }
        if (!m_dispatcher->idle()) {
            QElapsedTimer waited;
            waited.start();
            m_dispatcher->wait({}, QDeadlineTimer(QDeadlineTimer::Forever));
            m_timings.waitSeconds += drainSeconds(waited);
        }
        takeOutcomes();
        if (!m_unrecorded.isEmpty())
            stats += writeBatch({}, false);
        QueuePipeline trip;
        QList<Outcome> deadLetters;
        stats += settleInto(trip, deadLetters);
        runTrip(trip);
        for (const Outcome &outcome : std::as_const(deadLetters))
            logDeadLetter(outcome.claimed.pool, outcome.claimed.raw, outcome.why);
    }
    return stats;
}

void EnvelopeDrain::takeOutcomes()
{
    for (const PayoutOutcome &outcome : m_dispatcher->takeOutcomes()) {
        const auto paying = m_paying.constFind(outcome.tag);
        if (paying == m_paying.cend())
            continue;  // not one of ours: nothing to record
        const Claimed claimed = *paying;
        m_paying.erase(paying);
        const PayoutResult &result = outcome.result;
        if (result.status == PayoutResult::Status::Paid) {
            m_unrecorded.append(
                    {claimed, {claimed.task, QStringLiteral("paid"), result.providerRef, outcome.calls, !claimed.payoutRecorded}, Settle::Done, {}});
            continue;
        }
        const bool giveUp = result.status == PayoutResult::Status::PermanentFailure
                || (claimed.attemptsSoFar + outcome.calls) >= m_options.maxFailedPasses * m_options.payAttempts;
        m_unrecorded.append({claimed,
                             {claimed.task, giveUp ? QStringLiteral("failed") : QStringLiteral("pending"), QString(), outcome.calls,
                              !claimed.payoutRecorded},
                             giveUp ? Settle::GiveUp : Settle::Later,
                             result.error});
    }
}

EnvelopeDrainStats EnvelopeDrain::writeBatch(const QList<Claimed> &claimed, bool prefetch)
{
    EnvelopeDrainStats stats;
    QList<PayoutRecord> records;
    records.reserve(m_unrecorded.size());
    for (const Outcome &outcome : std::as_const(m_unrecorded))
        records << outcome.record;
    QList<PayoutTask> tasks;
    tasks.reserve(claimed.size());
    for (const Claimed &entry : claimed)
        tasks << entry.task;

    QElapsedTimer timer;
    timer.start();
    const LedgerWrite written = writeLedger(records, tasks, prefetch);
    m_timings.sqlSeconds += drainSeconds(timer);
    ++m_timings.batches;

    for (const Outcome &outcome : std::as_const(m_unrecorded)) {
        if (outcome.record.status == QLatin1String("paid"))
            ++stats.paid;
    }
    m_unsettled << m_unrecorded;
    m_unrecorded.clear();
    stats.persisted += written.persisted();
    stats.refused += written.refusedRows;

    // The ledger's verdict per task: a refused grab needs no payout; one paid by an earlier pass
    // only leaves the backup list; every other envelope is paid under its own idempotency key.
    for (const auto &[entry, grab] : matchVerdicts(claimed, written)) {
        if (grab == nullptr || grab->paid) {
            m_unsettled.append({entry, {}, Settle::Done, {}});
            continue;
        }
        Claimed paying = entry;
        paying.attemptsSoFar = grab->attemptsSoFar;
        paying.payoutRecorded = grab->recorded;
        const quint64 tag = m_nextTag++;
        m_dispatcher->submit(tag, {paying.task.idempotencyKey(), paying.task.campaignId, paying.task.seq, paying.task.uid, paying.task.amountCents});
        m_paying.insert(tag, paying);
    }
    if (!written.refusals.isEmpty())
        stats += handleRefusals(written.refusals);
    return stats;
}

QList<std::pair<EnvelopeDrain::Claimed, const AcceptedGrab *>> EnvelopeDrain::matchVerdicts(const QList<Claimed> &claimed, const LedgerWrite &written)
{
    QList<std::pair<Claimed, const AcceptedGrab *>> verdicts;
    verdicts.reserve(claimed.size());
    // A batch that went in whole comes back as it was given: accepted in the claims' order.
    const auto sameGrab = [](const PayoutTask &a, const PayoutTask &b) { return a.campaignId == b.campaignId && a.seq == b.seq && a.uid == b.uid; };
    bool inOrder = written.refusals.isEmpty() && written.accepted.size() == claimed.size();
    for (qsizetype i = 0; inOrder && i < claimed.size(); ++i)
        inOrder = sameGrab(claimed.at(i).task, written.accepted.at(i).task);
    if (inOrder) {
        for (qsizetype i = 0; i < claimed.size(); ++i)
            verdicts.append({claimed.at(i), &written.accepted.at(i)});
        return verdicts;
    }
    QHash<std::pair<qint64, qint64>, QList<Claimed>> byEnvelope;  // (campaign, seq) -> claimed tasks
    for (const Claimed &entry : claimed)
        byEnvelope[{entry.task.campaignId, entry.task.seq}] << entry;
    const auto take = [&byEnvelope](const PayoutTask &task) {
        QList<Claimed> &same = byEnvelope[{task.campaignId, task.seq}];
        const auto match = std::find_if(same.begin(), same.end(), [&task](const Claimed &c) { return c.task.uid == task.uid; });
        Claimed found = *match;
        same.erase(match);
        return found;
    };
    for (const GrabRefusal &refusal : written.refusals)
        verdicts.append({take(refusal.task), nullptr});
    for (const AcceptedGrab &grab : written.accepted)
        verdicts.append({take(grab.task), &grab});
    return verdicts;
}

LedgerWrite EnvelopeDrain::writeLedger(const QList<PayoutRecord> &records, const QList<PayoutTask> &tasks, bool prefetch)
{
    const int writer = LedgerTally::writerOf(m_workerId);
    if (!m_writer)
        return PayoutLedger(m_sql, writer).write(records, tasks);
    // The payouts in flight keep running in this thread's event loop while the transactions run on
    // the writers' threads; their outcomes wait for the next transactions, like any that come in
    // between. The finished payouts and the new grabs go in two transactions on two connections at
    // once: each holds its own rules (a grab row before its money moves, an outcome in SQL before
    // its task leaves the backup list), and the server writes both tables on two cores.
    const bool split = !records.isEmpty() && !tasks.isEmpty();
    const auto wake = [dispatcher = m_dispatcher.get()] { QMetaObject::invokeMethod(dispatcher, &PayoutDispatcher::recheck, Qt::QueuedConnection); };
    LedgerWrite written;
    if (split)
        m_recorder->start([&](SqlConnection &sql) { PayoutLedger(sql, LedgerTally::secondWriterOf(writer)).write(records, {}); }, wake);
    m_writer->start([&](SqlConnection &sql) { written = PayoutLedger(sql, writer).write(split ? QList<PayoutRecord>() : records, tasks); },
                    wake);
    const auto writing = [this] { return m_writer->busy() || m_recorder->busy(); };
    std::exception_ptr error;
    try {
        if (prefetch)
            prefetchNext();
        while (writing() && !m_dispatcher->idle())
            m_dispatcher->wait([&writing] { return !writing(); }, QDeadlineTimer(QDeadlineTimer::Forever));
    } catch (...) {
        error = std::current_exception();  // the wait's error is the one to report (the drain is spent either way)
    }
    // The jobs write into this frame's locals: both end before they do.
    for (SqlWorker *worker : {m_writer.get(), m_recorder.get()}) {
        try {
            worker->take();
        } catch (...) {
            if (!error)
                error = std::current_exception();
        }
    }
    if (error)
        std::rethrow_exception(error);
    return written;
}

void EnvelopeDrain::prefetchNext()
{
    // What the last transaction recorded is settled and the next batch claimed while this one is
    // written: the batch steps' Redis round trip no longer waits for SQL, nor SQL for it. Only
    // when the payouts waiting would not keep the window full for long, as in advance().
    QElapsedTimer timer;
    timer.start();
    m_prefetchedStats += claimTrip(m_dispatcher->backlog() < 2 * m_dispatcher->window(), m_prefetched);
    m_timings.overlappedSeconds += drainSeconds(timer);
}

EnvelopeDrainStats EnvelopeDrain::settleInto(QueuePipeline &trip, QList<Outcome> &deadLetters)
{
    EnvelopeDrainStats stats;
    QHash<QByteArray, QByteArrayList> done;  // pool -> entries
    for (const Outcome &outcome : std::as_const(m_unsettled)) {
        const QByteArray &id = outcome.claimed.pool;
        switch (outcome.settle) {
        case Settle::Done:
            done[id] << outcome.claimed.raw;
            break;
        case Settle::Later:
            trip.retryLater(queueOf(id), outcome.claimed.raw);
            ++stats.retried;
            break;
        case Settle::GiveUp:
            trip.deadLetter(queueOf(id), outcome.claimed.raw, {outcome.why, outcome.claimed.attemptsSoFar + outcome.record.calls, 0});
            deadLetters << outcome;
            ++stats.deadLettered;
            break;
        }
    }
    for (auto it = done.cbegin(); it != done.cend(); ++it)
        trip.acknowledge(queueOf(it.key()), it.value());
    m_unsettled.clear();
    return stats;
}

void EnvelopeDrain::settleInterruptedLends()
{
    m_lentFresh.setRemainingTime(LentCheckEvery);
    PoolLending(m_redis, m_keys).settleEveryCampaign(LentGraceMs, QDateTime::currentMSecsSinceEpoch());
}

void EnvelopeDrain::runTrip(QueuePipeline &trip)
{
    if (trip.isEmpty())
        return;
    QElapsedTimer timer;
    timer.start();
    trip.run(m_redis, m_options.tally);
    m_timings.redisSeconds += drainSeconds(timer);
    ++m_timings.redisTrips;
}

EnvelopeDrainStats EnvelopeDrain::handleRefusals(const QList<GrabRefusal> &refusals)
{
    EnvelopeDrainStats stats;
    QList<qint64> undoneCampaigns;
    for (const GrabRefusal &refusal : refusals) {
        if (refusal.notLaunched)
            continue;  // forged in Redis, not lost by it: nothing there to undo or repair from SQL
        const qint64 id = refusal.task.campaignId;
        // The user's draw lives in its home pool, where the refused envelope goes back too.
        const CampaignPools pools = CampaignPools::read(m_redis, m_keys, id);
        const QByteArray home = pools.name(pools.homeOf(refusal.task.uid));
        const RedisValue reply = refusedGrabScript().run(
                m_redis, {m_keys.campaignMeta(home), m_keys.campaignPool(home), m_keys.campaignDraws(home), m_keys.campaignRefused(home)},
                {QByteArray::number(refusal.task.seq), QByteArray::number(refusal.task.amountCents), QByteArray::number(refusal.task.uid),
                 refusal.held, refusal.holder != 0 ? QByteArray::number(refusal.holder) : QByteArray()});
        if (reply.toBytes() != "seen" && !undoneCampaigns.contains(id))
            undoneCampaigns << id;
    }
    if (undoneCampaigns.isEmpty())
        return stats;
    // Settled first: the repair reads the backup lists as grabs still on their way to SQL.
    QueuePipeline trip;
    QList<Outcome> deadLetters;
    stats += settleInto(trip, deadLetters);
    runTrip(trip);
    for (const Outcome &outcome : std::as_const(deadLetters))
        logDeadLetter(outcome.claimed.pool, outcome.claimed.raw, outcome.why);

    // A refused grab means Redis forgot grabs the ledger holds, so its pool may still hand them
    // out: rebuild the campaign's Redis state from SQL (skipped while another process does).
    for (const qint64 id : std::as_const(undoneCampaigns)) {
        if (const auto report = CampaignRepair(m_redis, m_sql, m_keys).repairIfFree(id)) {
            report->audit(m_sql, QStringLiteral("worker:") + m_workerId, QDateTime::currentMSecsSinceEpoch());
            ++stats.repaired;
        }
    }
    return stats;
}

void EnvelopeDrain::logDeadLetter(const QByteArray &pool, const QByteArray &entry, const QString &why)
{
    QDir().mkpath(QFileInfo(m_options.errorLogPath).absolutePath());
    QFile log(m_options.errorLogPath);
    if (log.open(QIODevice::Append | QIODevice::Text)) {
        const QJsonObject line{{QStringLiteral("at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)},
                               {QStringLiteral("worker"), m_workerId},
                               {QStringLiteral("queue"), QString::fromUtf8(m_keys.campaignTasks(pool))},
                               {QStringLiteral("task"), QString::fromUtf8(entry)},
                               {QStringLiteral("error"), why}};
        log.write(QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n');
    }
}

} // namespace lantern
