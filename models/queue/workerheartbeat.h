#pragma once

#include <QCoreApplication>
#include <QString>

namespace lantern {

class KeySchema;
class RedisClient;

/** A worker's liveness in Redis: a key with a TTL renewed every few seconds, plus membership
    in the set of known workers so recovery can find the backup lists of the dead ones. */
class WorkerHeartbeat final {
    Q_DECLARE_TR_FUNCTIONS(lantern::WorkerHeartbeat)

public:
    WorkerHeartbeat(const KeySchema &keys, QString workerId, int ttlSeconds);

    void beat(RedisClient &redis, qint64 nowMs);
    /** Deletes the heartbeat (a clean stop); the worker stays known until recovery forgets it. */
    void stop(RedisClient &redis);
    int ttlSeconds() const { return m_ttlSeconds; }
    const QString &workerId() const { return m_workerId; }

    /** LANTERN_HEARTBEAT_TTL_S, default 15 s. */
    static int configuredTtlSeconds();

private:
    const KeySchema &m_keys;
    QString m_workerId;
    int m_ttlSeconds;
};

} // namespace lantern
