#pragma once

#include "queue/backupqueuerecovery.h"

namespace lantern {

class SqlConnection;

/** Reclaims the payout tasks a worker left in its backup lists: a task whose payout SQL records
    as paid is acknowledged; every other goes back to the front of its campaign's queue, where
    the idempotency key keeps a second attempt from paying twice. */
class EnvelopeRecovery final : public BackupReclaimer {
public:
    EnvelopeRecovery(RedisClient &redis, SqlConnection &sql, const KeySchema &keys);

    bool reclaim(const QString &workerId, RecoveryReport &report) override;
    /** The test reclaim() makes of one backup entry: whether its payout is paid in SQL
        (acknowledged), not yet (re-queued), or the entry is unreadable (nullopt: dead-lettered). */
    static std::optional<bool> isDone(SqlConnection &sql, const QByteArray &entry);

private:
    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
};

} // namespace lantern
