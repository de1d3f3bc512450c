#pragma once

#include <QCoreApplication>
#include <QString>

#include <optional>

namespace lantern {

class KeySchema;
class RedisClient;

/** What a worker says about its payouts with each beat (issue 12), for `queues`, /metrics and the
    console: totals since it started, the calls out at the moment, and its rate since the last beat. */
struct WorkerPayoutFigures {
    qint64 paid = 0;            // payouts the provider confirmed
    qint64 calls = 0;           // calls sent to the provider
    qint64 providerErrors = 0;  // calls that did not come back paid (every retry counts)
    qint64 inFlight = 0;        // calls out when it beat
    double paidPerSecond = 0;   // paid since the previous beat, per second (beat() works it out)
    qint64 checkinsPersisted = 0;  // check-in log rows it wrote: with grabsPersisted, the storm's drain (issue 27)
    qint64 grabsPersisted = 0;     // grab rows it wrote
    std::optional<qint64> held{};  // entries in its backup lists, as it counted them (BackupTally); none: not said
};

/** A worker's liveness in Redis: a key with a TTL renewed every few seconds, plus membership
    in the set of known workers so recovery can find the backup lists of the dead ones. */
class WorkerHeartbeat final {
    Q_DECLARE_TR_FUNCTIONS(lantern::WorkerHeartbeat)

public:
    WorkerHeartbeat(const KeySchema &keys, QString workerId, int ttlSeconds);

    /** Renews the heartbeat; with `payouts`, also the worker's payout figures (a hash that
        expires with the heartbeat), in the same round trip. */
    void beat(RedisClient &redis, qint64 nowMs, std::optional<WorkerPayoutFigures> payouts = std::nullopt);
    /** Deletes the heartbeat; the worker stays known (in the set of workers) until recovery
        forgets it, so whatever its backup lists still hold is found and taken back. */
    void stop(RedisClient &redis);
    /** A clean end of a shift that holds nothing any more: stop(), and the worker leaves the set
        of workers, so neither recovery nor the Queues view lists it again. */
    void retire(RedisClient &redis);
    int ttlSeconds() const { return m_ttlSeconds; }
    const QString &workerId() const { return m_workerId; }

    /** LANTERN_HEARTBEAT_TTL_S, default 15 s. */
    static int configuredTtlSeconds();

private:
    const KeySchema &m_keys;
    QString m_workerId;
    int m_ttlSeconds;
    qint64 m_lastPaid = 0;     // at the last beat with figures
    qint64 m_lastPaidMs = 0;
};

} // namespace lantern
