#pragma once

#include <QString>
#include <QStringList>

#include <optional>

namespace lantern {

class KeySchema;
class RedisClient;
class SqlConnection;

/** What `recover` reports (DESIGN §6). */
struct RecoveryReport {
    qint64 reclaimed = 0;     // backup lists taken over from workers
    qint64 requeued = 0;      // entries put back at the front of their queue
    qint64 completed = 0;     // entries already in SQL, simply acknowledged
    qint64 deadLettered = 0;  // malformed entries set aside
    QStringList workers;      // whose lists were reclaimed
};

/** Crash recovery for the check-in log queues: finds backup lists of workers whose heartbeat
    expired (or of one named worker, an operator's decision), checks each entry against SQL,
    acknowledges what is already stored and re-queues the rest. */
class CheckinRecovery final {
public:
    CheckinRecovery(RedisClient &redis, SqlConnection &sql, const KeySchema &keys);

    RecoveryReport recover(const std::optional<QString> &onlyWorker = std::nullopt);

private:
    void reclaimWorker(const QString &workerId, RecoveryReport &report);

    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
};

} // namespace lantern
