#pragma once

#include "console/sandbox/sandboxcampaigns.h"
#include "console/sandbox/sandboxseeder.h"
#include "redis/keyschema.h"
#include "settings/config.h"

#include <QObject>

#include <memory>

class QTimer;

namespace lantern {

class RedisClient;
class SandboxCampaigns;
class SimulatedPayoutGateway;
class SqlConnection;
class WorkerShift;

/** The sandbox's in-process worker, living on its own thread (DedicatedThread).
    start() creates the sandbox database, migrates it, seeds the demo history into Redis and
    drains it into SQL so balances are real, then sets up the campaign demo (SandboxCampaigns);
    then a timer on this thread steps the same WorkerShift that `lanternd work` runs (heartbeat with
    payout figures, run-id watch and repair, both drains, back-off on outages, retiring), while a
    simulated crowd grabs from the live campaign once a second until it is sold out. Its
    RedisClient and SqlConnections are opened in this thread and closed there on destruction. */
class SandboxWorker final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SandboxWorker)

public:
    /** `config.db` must be an SQLite URL to a file in the sandbox's own, new folder
        (SandboxDirectory): start() makes and migrates it; the error log goes beside it. */
    explicit SandboxWorker(Config config, QObject *parent = nullptr);
    ~SandboxWorker() override;

    QString workerId() const { return m_workerId; }

    static constexpr int PassIntervalMs = 250;
    static constexpr int CrowdIntervalMs = 1000;
    static constexpr int DefaultCrowdRate = 5;  // grabs per second and live campaign
    static constexpr int MaxCrowdRate = 500;

public Q_SLOTS:
    void start();
    /** The simulated crowd's grabs per second into every live campaign (0: it stops). */
    void setCrowdRate(int grabsPerSecond);

Q_SIGNALS:
    void seeded(const lantern::SeedSummary &summary);
    void failed(const QString &message, const QString &detail);
    /** A pass persisted new check-in log rows. */
    void persisted(qint64 rows);
    /** A pass met an outage; the worker keeps trying with a growing pause. */
    void passFailed(const QString &detail);
    /** The first pass that succeeded after passFailed(). */
    void recovered();

private:
    void pass();
    void crowdPass();

    Config m_config;
    KeySchema m_keys;
    QString m_workerId;
    QTimer *m_timer;
    std::unique_ptr<RedisClient> m_redis;
    std::unique_ptr<SqlConnection> m_sql;
    std::unique_ptr<SandboxCampaigns> m_campaigns;
    std::unique_ptr<SimulatedPayoutGateway> m_gateway;
    std::unique_ptr<WorkerShift> m_shift;
    CampaignDemo m_demo;
    qint64 m_lastCrowdMs = 0;
    QList<qint64> m_soldOut;  // campaigns whose pool the crowd emptied
    int m_crowdRate = DefaultCrowdRate;
    bool m_passing = false;
    bool m_failing = false;  // passFailed() was the last said
};

} // namespace lantern
