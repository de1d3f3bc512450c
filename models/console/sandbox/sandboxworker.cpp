#include "sandboxworker.h"

#include "checkin/checkindrain.h"
#include "core/errors.h"
#include "core/wallclock.h"
#include "operations/workerheartbeat.h"
#include "operations/workershift.h"
#include "payout/payoutdispatcher.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QScopeGuard>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace lantern {

SandboxWorker::SandboxWorker(Config config, QObject *parent)
    : QObject(parent),
      m_config(std::move(config)),
      m_keys(m_config.keyPrefix, m_config.shards),
      m_workerId(QStringLiteral("sandbox-%1").arg(QCoreApplication::applicationPid())),
      m_timer(new QTimer(this))
{
    qRegisterMetaType<lantern::SeedSummary>();
    m_timer->setInterval(PassIntervalMs);
    connect(m_timer, &QTimer::timeout, this, &SandboxWorker::pass);
}

SandboxWorker::~SandboxWorker()
{
    // Runs in the worker's thread (DedicatedThread): the end of the shift, as `lanternd work` ends it.
    if (m_shift) {
        try {
            m_shift->retire();
        } catch (const std::exception &) {
            // The server may already be gone at shutdown; nothing is left to clean then.
        }
    }
}

void SandboxWorker::start()
{
    try {
        m_redis = std::make_unique<RedisClient>(m_config.redis);
        m_redis->ensureConnected();
        m_sql = std::make_unique<SqlConnection>(m_config.db);
        Migrator(*m_sql).migrate();

        SeedSummary summary = SandboxSeeder(*m_redis, m_keys, m_config.checkin, m_config.timeZone).seed(m_config.today());
        summary.persisted = CheckinDrain(*m_redis, *m_sql, m_keys, m_workerId).drainAll().persisted;
        m_campaigns = std::make_unique<SandboxCampaigns>(*m_redis, *m_sql, m_keys, m_workerId);
        m_demo = m_campaigns->seed(nowMs());
        summary.campaigns = m_demo;
        // The live campaign's provider fails now and then, as real ones do: the worker retries.
        m_gateway = std::make_unique<SimulatedPayoutGateway>(*m_redis, m_keys.prefix(), SimulationKnobs{0.05, 0}, 42);
        m_lastCrowdMs = nowMs();

        WorkerShiftOptions options;
        options.workerId = m_workerId;
        options.heartbeatTtlS = WorkerHeartbeat::configuredTtlSeconds();
        options.today = [this] { return m_config.today(); };
        // Beside the sandbox's database, never in the user's own error log.
        options.errorLogPath = QFileInfo(m_config.db.path).absolutePath() + QStringLiteral("/errors.log");
        const DbUrl db = m_config.db;
        m_shift = std::make_unique<WorkerShift>(*m_redis, [db] { return std::make_unique<SqlConnection>(db); }, m_keys, *m_gateway, options);
        m_shift->keepBeating();  // known to the Queues view from the start
        m_timer->start();
        Q_EMIT seeded(summary);
    } catch (const std::exception &error) {
        Q_EMIT failed(tr("The sandbox could not be prepared."), QString::fromStdString(error.what()));
    }
}

void SandboxWorker::setCrowdRate(int grabsPerSecond)
{
    m_crowdRate = std::clamp(grabsPerSecond, 0, MaxCrowdRate);
}

void SandboxWorker::crowdPass()
{
    if (m_crowdRate <= 0 || nowMs() - m_lastCrowdMs < CrowdIntervalMs)
        return;
    // Into every live campaign, the seeded one and any the operator launched: a launch can be
    // rehearsed end to end. Grabs into a campaign that is not live are refused.
    m_lastCrowdMs = nowMs();
    try {
        for (const qint64 id : m_campaigns->campaignIds()) {
            if (!m_soldOut.contains(id) && m_campaigns->crowdPass(id, nowMs(), m_crowdRate) == SandboxCampaigns::SoldOut)
                m_soldOut << id;
        }
    } catch (const UnavailableError &) {
        // The crowd waits out an outage with the worker, whose step reports it.
    }
}

void SandboxWorker::pass()
{
    // The payout drain runs a local event loop while payouts are in flight, in which this timer
    // may fire again: one pass at a time.
    if (m_passing)
        return;
    m_passing = true;
    const auto done = qScopeGuard([this] { m_passing = false; });
    crowdPass();
    const qint64 persistedBefore = m_shift->stats().checkins.persisted;
    ShiftStep step;
    try {
        step = m_shift->step();
    } catch (const PayoutWaitInterrupted &) {
        m_timer->stop();  // the thread is stopping; the payouts out stay in the backup list
        return;
    } catch (const std::exception &error) {
        // Not an outage: a fault that retrying would only repeat. The worker stops, and says so.
        m_timer->stop();
        Q_EMIT failed(tr("The sandbox worker stopped."), QString::fromStdString(error.what()));
        return;
    }
    m_timer->setInterval(std::min(step.pauseMs, int(PassIntervalMs)));
    if (!step.outage.isEmpty()) {
        m_failing = true;
        Q_EMIT passFailed(step.outage);
    } else if (m_failing && !m_shift->waitingOutOutage()) {
        m_failing = false;
        Q_EMIT recovered();
    }
    if (const qint64 rows = m_shift->stats().checkins.persisted - persistedBefore; rows > 0)
        Q_EMIT persisted(rows);
}

} // namespace lantern
