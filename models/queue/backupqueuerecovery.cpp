#include "queue/backupqueuerecovery.h"

#include "queue/reliablequeue.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"

namespace lantern {

bool reclaimBackup(RedisClient &redis, const ReliableQueue &queue,
                   const std::function<std::optional<bool>(const QByteArray &entry)> &isDone, RecoveryReport &report)
{
    const QByteArrayList entries = queue.inFlight(redis, 1 << 30);
    if (entries.isEmpty())
        return false;
    QByteArrayList done;
    for (const QByteArray &raw : entries) {
        const std::optional<bool> complete = isDone(raw);
        if (!complete) {
            queue.deadLetter(redis, raw, {QStringLiteral("unreadable entry in a dead worker's backup list"), 0, 0});
            ++report.deadLettered;
        } else if (*complete) {
            done << raw;
        }
    }
    queue.acknowledge(redis, done);
    report.completed += done.size();
    report.requeued += queue.requeueBackup(redis);
    return true;
}

BackupQueueRecovery::BackupQueueRecovery(RedisClient &redis, const KeySchema &keys, QList<BackupReclaimer *> reclaimers)
    : m_redis(redis), m_keys(keys), m_reclaimers(std::move(reclaimers))
{
}

RecoveryReport BackupQueueRecovery::recover(const std::optional<QString> &onlyWorker)
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
        bool hadEntries = false;
        for (BackupReclaimer *reclaimer : std::as_const(m_reclaimers))
            hadEntries = reclaimer->reclaim(workerId, report) || hadEntries;
        if (hadEntries) {
            ++report.reclaimed;
            report.workers << workerId;
        }
        m_redis.command({QByteArrayLiteral("SREM"), m_keys.workerSet(), workerId.toUtf8()});
    }
    return report;
}

} // namespace lantern
