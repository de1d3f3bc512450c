#include "operations/workershift.h"

#include "core/errors.h"
#include "envelope/campaignrepair.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "sql/sqlworker.h"

#include <QDateTime>

#include <algorithm>

namespace lantern {

WorkerShift::WorkerShift(RedisClient &redis, SqlOpener openSql, const KeySchema &keys, PayoutGateway &gateway, WorkerShiftOptions options)
    : m_redis(redis),
      m_openSql(std::move(openSql)),
      m_keys(keys),
      m_gateway(gateway),
      m_options(std::move(options)),
      m_heartbeat(keys, m_options.workerId, m_options.heartbeatTtlS),
      m_pacer(m_heartbeat, redis, [this] { return payoutFigures(); }),
      m_timetable(redis, keys, m_options.workerId),
      m_retryAt(0)
{
    SqlConnection &connection = sql();  // reachable before the worker registers
    // On MySQL a check-in pass is written over several connections at once: one worker then gets
    // several of the database's threads in a storm (docs/decisions.md).
    if (connection.dialect() == DbUrl::Dialect::MySql) {
        for (int i = 1; i < m_options.checkinConnections; ++i)
            m_checkinWriters.push_back(std::make_unique<SqlWorker>(connection.url()));
    }
}

WorkerShift::~WorkerShift() = default;

SqlConnection &WorkerShift::sql()
{
    if (!m_sql)
        m_sql = m_openSql();
    return *m_sql;
}

WorkerPayoutFigures WorkerShift::payoutFigures() const
{
    PayoutCallCounts counts = m_earlierDrains;
    WorkerPayoutFigures figures;
    if (m_drain) {
        counts += m_drain->dispatcher().counts();
        figures.inFlight = m_drain->dispatcher().inFlight();
    }
    figures.paid = counts.paid;
    figures.calls = counts.calls;
    figures.providerErrors = counts.providerErrors;
    figures.checkinsPersisted = m_stats.checkins.persisted;
    figures.grabsPersisted = m_stats.payouts.persisted;
    figures.held = m_held.total();
    return figures;
}

void WorkerShift::keepBeating()
{
    try {
        m_pacer();
    } catch (const UnavailableError &) {
        // Waiting out an outage is not dying; the next step reports the outage.
    }
}

void WorkerShift::repairIfRedisChanged(SqlConnection &connection)
{
    // A Redis that restarted (or failed over) may have rolled back grabs the ledger holds:
    // campaigns that lost state are rebuilt from SQL before their tasks are drained.
    if (!m_redisRun.changed(m_redis))
        return;
    for (const CampaignRepairReport &report : CampaignRepair(m_redis, connection, m_keys).checkAll()) {
        report.audit(connection, QStringLiteral("worker:") + m_options.workerId, QDateTime::currentMSecsSinceEpoch());
        ++m_stats.payouts.repaired;
        if (m_report)
            m_report(tr("Redis lost grabs of campaign %1 that the ledger holds; rebuilt its Redis state from SQL").arg(report.campaignId));
    }
    m_redisRun.checked();  // not before: a check cut short by an outage runs again
}

qint64 WorkerShift::pass()
{
    SqlConnection &connection = sql();  // opened again after an outage
    m_pacer();
    repairIfRedisChanged(connection);
    const TimetableRound timetable = m_timetable.keep(connection, [this] { m_pacer(); }, m_report);
    m_stats.transitionsMade += timetable.made;
    m_stats.transitionsMissed += timetable.missed;
    m_stats.launchesPrepared += timetable.prepared;
    m_nextDueInMs = timetable.nextDueInMs;
    CheckinDrain checkins(m_redis, connection, m_keys, m_options.workerId, m_options.batch);
    QList<SqlWorker *> writers;
    for (const std::unique_ptr<SqlWorker> &writer : m_checkinWriters)
        writers << writer.get();
    checkins.setWriters(writers);
    checkins.setTally(&m_held);
    const DrainStats c = checkins.pass();
    m_stats.checkins += c;
    if (!m_drain) {
        EnvelopeDrainOptions options;
        options.batchSize = m_options.batch;
        options.inFlight = m_options.inFlight;
        options.rate = m_options.rate;
        options.errorLogPath = m_options.errorLogPath;
        options.keepAlive = [this] { m_pacer(); };
        options.tally = &m_held;
        m_drain = std::make_unique<EnvelopeDrain>(m_redis, connection, m_keys, m_options.workerId, m_gateway, options);
    }
    // Payouts run no longer than until the next transition's time.
    const EnvelopeDrainStats p = m_drain->advance(std::min(m_options.slice, std::chrono::milliseconds(m_nextDueInMs.value_or(m_options.slice.count()))));
    m_stats.payouts += p;
    return c.claimed + p.claimed + (m_drain->busy() ? 1 : 0) + timetable.made + timetable.missed + timetable.prepared;
}

void WorkerShift::spend()
{
    if (m_drain)
        m_earlierDrains += m_drain->dispatcher().counts();
    m_drain.reset();  // what it held is in its backup lists; the next one takes it over
    m_sql.reset();    // a dropped SQL connection is not reused; Redis reconnects by itself
    m_clean = false;
}

ShiftStep WorkerShift::step()
{
    if (!m_retryAt.hasExpired()) {
        keepBeating();
        return {0, int(std::max<qint64>(1, m_retryAt.remainingTime())), {}};
    }
    try {
        // The ledger check feeds /metrics while the shift runs; a one-shot drain (drainAll) leaves
        // no verdict behind in Redis.
        m_ledgerCheck.runIfDue(m_redis, sql(), m_keys, m_options.workerId, QDateTime::currentMSecsSinceEpoch());
        if (m_options.today)
            m_monthStats.keepIfDue(m_redis, m_keys, m_options.workerId, m_options.today(), QDateTime::currentMSecsSinceEpoch());
        const qint64 work = pass();
        m_backoffMs = FirstBackoffMs;
        m_clean = true;
        m_inOutage = false;
        // Idle, it wakes for the timetable's next transition (a few ms early or late is caught up
        // by the next step, on Redis's clock).
        const int pause = int(std::clamp<qint64>(m_nextDueInMs.value_or(IdlePauseMs), 1, IdlePauseMs));
        return {work, work > 0 ? 0 : pause, {}};
    } catch (const UnavailableError &error) {
        spend();
        m_inOutage = true;
        ShiftStep outage{0, m_backoffMs, tr("%1; retrying in %2 ms").arg(error.message()).arg(m_backoffMs)};
        // Waiting out an outage is not dying: the heartbeat goes on meanwhile (keepBeating), or
        // recovery would take this worker for dead and hand its backup lists to another one.
        m_retryAt.setRemainingTime(m_backoffMs);
        m_backoffMs = std::min(m_backoffMs * 2, MaxBackoffMs);
        return outage;
    } catch (...) {
        spend();
        throw;
    }
}

void WorkerShift::drainAll()
{
    try {
        while (pass() > 0) {
        }
        m_clean = true;
    } catch (...) {
        spend();
        throw;
    }
}

QString WorkerShift::finish()
{
    if (!m_drain)
        return {};
    try {
        m_stats.payouts += m_drain->finish();
        return {};
    } catch (const UnavailableError &error) {
        spend();
        return error.message();
    } catch (...) {
        spend();
        throw;
    }
}

void WorkerShift::retire()
{
    // Idle between beats, the shift may hold a connection the server dropped (it restarted, or
    // failed over): the client sees the hang-up before it sends (RedisConnection::isUsable) and
    // connects afresh. A server still unreachable is said; the heartbeat expires by itself and
    // recovery takes what the backup lists hold.
    if (m_clean && !(m_drain && m_drain->busy()))
        m_heartbeat.retire(m_redis);
    else
        m_heartbeat.stop(m_redis);
}

} // namespace lantern
