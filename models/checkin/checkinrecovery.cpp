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

bool CheckinRecovery::reclaim(const QString &workerId, RecoveryReport &report)
{
    CheckinStore store(m_sql);
    const auto isDone = [&store](const QByteArray &raw) -> std::optional<bool> {
        const auto entry = CheckinEntry::fromJson(raw);
        if (!entry)
            return std::nullopt;
        return store.hasLog(entry->uid, entry->date);
    };
    bool hadEntries = false;
    for (int shard = 0; shard < m_keys.shards(); ++shard) {
        const ReliableQueue queue(m_keys.checkinQueue(shard), m_keys.checkinBackup(shard, workerId), m_keys.checkinDeadLetter(shard));
        hadEntries = reclaimBackup(m_redis, queue, isDone, report) || hadEntries;
    }
    return hadEntries;
}

} // namespace lantern
