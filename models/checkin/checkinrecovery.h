#pragma once

#include "queue/backupqueuerecovery.h"

namespace lantern {

class SqlConnection;

/** Reclaims the check-in log entries a worker left in its backup lists: entries already in
    checkin_log are acknowledged, the rest go back to the front of their shard's queue. */
class CheckinRecovery final : public BackupReclaimer {
public:
    CheckinRecovery(RedisClient &redis, SqlConnection &sql, const KeySchema &keys);

    bool reclaim(const QString &workerId, RecoveryReport &report) override;
    /** The test reclaim() makes of one backup entry: whether it is done in SQL (acknowledged),
        not yet (re-queued), or unreadable (nullopt: dead-lettered). */
    static std::optional<bool> isDone(SqlConnection &sql, const QByteArray &entry);
    /** Recovery of the check-in queues alone (see BackupQueueRecovery). */
    RecoveryReport recover(const std::optional<QString> &onlyWorker = std::nullopt);

private:
    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
};

} // namespace lantern
