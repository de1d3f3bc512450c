#include "checkin/checkindrain.h"

#include "checkin/checkinentry.h"
#include "checkin/checkinstore.h"
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
    DrainStats stats;
    for (int shard = 0; shard < m_keys.shards(); ++shard) {
        const ReliableQueue queue(m_keys.checkinQueue(shard), m_keys.checkinBackup(shard, m_workerId), m_keys.checkinDeadLetter(shard));
        // Entries left in our own backup list by an earlier failure come first.
        for (QByteArrayList left = queue.inFlight(m_redis, m_batchSize); !left.isEmpty(); left = queue.inFlight(m_redis, m_batchSize))
            stats += process(queue, left);
        stats += process(queue, queue.claim(m_redis, m_batchSize));
    }
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

DrainStats CheckinDrain::process(const ReliableQueue &queue, const QByteArrayList &entries)
{
    DrainStats stats;
    stats.claimed = entries.size();
    if (entries.isEmpty())
        return stats;
    QList<CheckinEntry> parsed;
    QByteArrayList good;
    for (const QByteArray &raw : entries) {
        if (const auto entry = CheckinEntry::fromJson(raw)) {
            parsed << *entry;
            good << raw;
        } else {
            queue.deadLetter(m_redis, raw);
            ++stats.deadLettered;
        }
    }
    stats.persisted = CheckinStore(m_sql).persist(parsed);
    queue.acknowledge(m_redis, good);
    return stats;
}

} // namespace lantern
