#include "checkin/checkindrain.h"

#include "checkin/checkinentry.h"
#include "checkin/checkinstore.h"
#include "queue/queuepipeline.h"
#include "queue/reliablequeue.h"
#include "redis/keyschema.h"

namespace lantern {

DrainStats &DrainStats::operator+=(const DrainStats &other)
{
    claimed += other.claimed;
    persisted += other.persisted;
    deadLettered += other.deadLettered;
    return *this;
}

CheckinDrain::CheckinDrain(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, QString workerId, int batchSize)
    : m_redis(redis), m_sql(sql), m_keys(keys), m_workerId(std::move(workerId)), m_batchSize(batchSize)
{
    KeySchema::validateWorkerId(m_workerId);
}

DrainStats CheckinDrain::pass()
{
    // One round trip for every shard: what this worker's backup lists held (left by an earlier
    // failure), then a new batch per shard. The backup lists are read before the claims run.
    QList<ReliableQueue> queues;
    queues.reserve(m_keys.shards());
    for (int shard = 0; shard < m_keys.shards(); ++shard)
        queues.append(ReliableQueue(m_keys.checkinQueue(shard), m_keys.checkinBackup(shard, m_workerId), m_keys.checkinDeadLetter(shard)));
    QueuePipeline claims;
    QList<std::pair<int, int>> handles;  // (backup read, claim) per shard
    for (const ReliableQueue &queue : std::as_const(queues))
        handles.append({claims.readBackup(queue), claims.claim(queue, m_batchSize)});
    claims.run(m_redis);

    // One transaction for all of them, then one round trip that acknowledges them and sets the
    // malformed ones aside.
    DrainStats stats;
    QList<CheckinEntry> parsed;
    QueuePipeline settle;
    QList<QByteArrayList> good(queues.size());
    for (qsizetype shard = 0; shard < queues.size(); ++shard) {
        for (const int handle : {handles.at(shard).first, handles.at(shard).second}) {
            for (const QByteArray &raw : claims.entries(handle)) {
                ++stats.claimed;
                if (const auto entry = CheckinEntry::fromJson(raw)) {
                    parsed << *entry;
                    good[shard] << raw;
                } else {
                    settle.deadLetter(queues.at(shard), raw, {QStringLiteral("not a check-in entry (unreadable)"), 0, 0});
                    ++stats.deadLettered;
                }
            }
        }
    }
    if (stats.claimed == 0)
        return stats;
    stats.persisted = CheckinStore(m_sql).persist(parsed);
    for (qsizetype shard = 0; shard < queues.size(); ++shard)
        settle.acknowledge(queues.at(shard), good.at(shard));
    settle.run(m_redis);
    return stats;
}

DrainStats CheckinDrain::drainAll()
{
    DrainStats total;
    for (;;) {
        const DrainStats stats = pass();
        total += stats;
        if (stats.claimed == 0)
            return total;
    }
}

} // namespace lantern
