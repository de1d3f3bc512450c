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
    bool hadEntries = false;
    for (int shard = 0; shard < m_keys.shards(); ++shard) {
        const ReliableQueue queue(m_keys.checkinQueue(shard), m_keys.checkinBackup(shard, workerId), m_keys.checkinDeadLetter(shard));
        const QByteArrayList entries = queue.inFlight(m_redis, 1 << 30);
        if (entries.isEmpty())
            continue;
        hadEntries = true;
        QByteArrayList done;
        for (const QByteArray &raw : entries) {
            const auto entry = CheckinEntry::fromJson(raw);
            if (!entry) {
                queue.deadLetter(m_redis, raw);
                ++report.deadLettered;
            } else if (store.hasLog(entry->uid, entry->date)) {
                done << raw;
            }
        }
        queue.acknowledge(m_redis, done);
        report.completed += done.size();
        report.requeued += queue.requeueBackup(m_redis);
    }
    return hadEntries;
}

} // namespace lantern
