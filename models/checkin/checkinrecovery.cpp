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
    RecoveryReport report;
    QStringList candidates;
    if (onlyWorker) {
        KeySchema::validateWorkerId(*onlyWorker);
        candidates << *onlyWorker;
    } else {
        const RedisValue members = m_redis.command({QByteArrayLiteral("SMEMBERS"), m_keys.workerSet()});
        for (const RedisValue &member : members.elements)
            candidates << QString::fromUtf8(member.toBytes());
        candidates.sort();
    }
    for (const QString &workerId : std::as_const(candidates)) {
        if (!onlyWorker && m_redis.command({QByteArrayLiteral("EXISTS"), m_keys.workerHeartbeat(workerId)}).toInteger() == 1)
            continue;  // alive: its backup lists are in use
        reclaimWorker(workerId, report);
    }
    return report;
}

void CheckinRecovery::reclaimWorker(const QString &workerId, RecoveryReport &report)
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
    if (hadEntries) {
        ++report.reclaimed;
        report.workers << workerId;
    }
    m_redis.command({QByteArrayLiteral("SREM"), m_keys.workerSet(), workerId.toUtf8()});
}

} // namespace lantern
