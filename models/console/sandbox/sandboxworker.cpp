#include "sandboxworker.h"

#include "checkin/checkindrain.h"
#include "core/wallclock.h"
#include "envelope/envelopedrain.h"
#include "payout/simulatedpayoutgateway.h"
#include "queue/workerheartbeat.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QScopeGuard>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace lantern {

namespace {
constexpr int MaxBackoffMs = 5000;
} // namespace

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
    // Runs in the worker's thread (DedicatedThread): a clean stop, as `lanternd work` does.
    if (m_heartbeat && m_redis) {
        try {
            m_heartbeat->stop(*m_redis);
            m_redis->command({QByteArrayLiteral("SREM"), m_keys.workerSet(), m_workerId.toUtf8()});
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

        m_heartbeat = std::make_unique<WorkerHeartbeat>(m_keys, m_workerId, WorkerHeartbeat::configuredTtlSeconds());
        m_heartbeat->beat(*m_redis, nowMs());
        m_lastBeatMs = nowMs();
        m_timer->start();
        Q_EMIT seeded(summary);
    } catch (const std::exception &error) {
        Q_EMIT failed(tr("The sandbox could not be prepared."), QString::fromStdString(error.what()));
    }
}

EnvelopeDrainOptions SandboxWorker::drainOptions() const
{
    EnvelopeDrainOptions options;
    // Beside the sandbox's database, never in the user's own error log.
    options.errorLogPath = QFileInfo(m_config.db.path).absolutePath() + QStringLiteral("/errors.log");
    return options;
}

void SandboxWorker::setCrowdRate(int grabsPerSecond)
{
    m_crowdRate = std::clamp(grabsPerSecond, 0, MaxCrowdRate);
}

void SandboxWorker::pass()
{
    // The payout drain runs a local event loop while payouts are in flight, in which this timer
    // may fire again: one pass at a time.
    if (m_passing)
        return;
    m_passing = true;
    const auto done = qScopeGuard([this] { m_passing = false; });
    try {
        if (nowMs() - m_lastBeatMs >= m_heartbeat->ttlSeconds() * 1000 / 3) {
            // With its payout figures, as lanternd work beats (the console's Queues view shows them).
            PayoutCallCounts counts = m_earlierPayouts;
            if (m_drain)
                counts += m_drain->dispatcher().counts();
            WorkerPayoutFigures figures;
            figures.paid = counts.paid;
            figures.calls = counts.calls;
            figures.providerErrors = counts.providerErrors;
            m_heartbeat->beat(*m_redis, nowMs(), figures);
            m_lastBeatMs = nowMs();
        }
        const DrainStats stats = CheckinDrain(*m_redis, *m_sql, m_keys, m_workerId).pass();
        if (m_crowdRate > 0 && nowMs() - m_lastCrowdMs >= CrowdIntervalMs) {
            // Into every live campaign, the seeded one and any the operator launched: a launch
            // can be rehearsed end to end. Grabs into a campaign that is not live are refused.
            m_lastCrowdMs = nowMs();
            for (const qint64 id : m_campaigns->campaignIds()) {
                if (!m_soldOut.contains(id) && m_campaigns->crowdPass(id, nowMs(), m_crowdRate) == SandboxCampaigns::SoldOut)
                    m_soldOut << id;
            }
        }
        if (!m_drain)
            m_drain = std::make_unique<EnvelopeDrain>(*m_redis, *m_sql, m_keys, m_workerId, *m_gateway, drainOptions());
        m_drain->pass();
        m_timer->setInterval(PassIntervalMs);
        if (std::exchange(m_failing, false))
            Q_EMIT recovered();
        if (stats.persisted > 0)
            Q_EMIT persisted(stats.persisted);
    } catch (const std::exception &error) {
        if (m_drain)
            m_earlierPayouts += m_drain->dispatcher().counts();
        m_drain.reset();  // spent: the next one takes over what its backup lists hold
        m_timer->setInterval(std::min(m_timer->interval() * 2, MaxBackoffMs));
        m_failing = true;
        Q_EMIT passFailed(QString::fromStdString(error.what()));
    }
}

} // namespace lantern
