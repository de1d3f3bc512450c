#include "checkin/checkinrecovery.h"

#include "checkin/checkinentry.h"
#include "checkin/checkinstore.h"
#include "queue/reliablequeue.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"

namespace lantern {

CheckinRecovery::CheckinRecovery(RedisClient &redis, SqlConnection &sql, const KeySchema &keys) : m_redis(redis), m_sql(sql), m_keys(keys) {}

RecoveryReport CheckinRecovery::recover(const std::optional<QString> &onlyWorker)
{
    return BackupQueueRecovery(m_redis, m_keys, {this}).recover(onlyWorker);
}

std::optional<bool> CheckinRecovery::isDone(SqlConnection &sql, const QByteArray &entry)
{
    const auto parsed = CheckinEntry::fromJson(entry);
    if (!parsed)
        return std::nullopt;
    return CheckinStore(sql).hasLog(parsed->uid, parsed->date);
}

bool CheckinRecovery::reclaim(const QString &workerId, RecoveryReport &report)
{
    const auto isDone = [this](const QByteArray &raw) { return CheckinRecovery::isDone(m_sql, raw); };
    bool hadEntries = false;
    for (int shard = 0; shard < m_keys.shards(); ++shard) {
        const ReliableQueue queue(m_keys.checkinQueue(shard), m_keys.checkinBackup(shard, workerId), m_keys.checkinDeadLetter(shard));
        hadEntries = reclaimBackup(m_redis, queue, isDone, report) || hadEntries;
    }
    return hadEntries;
}

} // namespace lantern
