#include "checkin/checkindrain.h"

#include "queue/backuptally.h"

#include "checkin/checkinentry.h"
#include "checkin/checkinstore.h"
#include "queue/queuepipeline.h"
#include "queue/reliablequeue.h"
#include "redis/keyschema.h"
#include "sql/sqlworker.h"

#include <algorithm>
#include <exception>
#include <vector>

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
    claims.run(m_redis, m_tally);

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
    stats.persisted = persist(std::move(parsed));
    for (qsizetype shard = 0; shard < queues.size(); ++shard)
        settle.acknowledge(queues.at(shard), good.at(shard));
    settle.run(m_redis, m_tally);
    return stats;
}

int CheckinDrain::persist(QList<CheckinEntry> entries)
{
    constexpr qsizetype MinShare = 500;  // smaller passes are not worth a second transaction
    const qsizetype shares = std::min(m_writers.size() + 1, entries.size() / MinShare);
    if (shares < 2)
        return CheckinStore(m_sql).persist(entries);
    // Contiguous uid ranges, one transaction each, all at once: the first here, the others on the
    // writers' threads and connections. Every row is keyed, so a share that committed before
    // another failed is harmless when the pass is replayed.
    std::sort(entries.begin(), entries.end(), [](const CheckinEntry &a, const CheckinEntry &b) {
        return a.uid != b.uid ? a.uid < b.uid : a.date < b.date;
    });
    std::vector<QList<CheckinEntry>> parts;  // not shared with the threads' jobs: each reads its own
    for (qsizetype i = 0; i < shares; ++i)
        parts.push_back(entries.mid(entries.size() * i / shares, entries.size() * (i + 1) / shares - entries.size() * i / shares));
    std::vector<int> persisted(static_cast<size_t>(shares), 0);
    for (size_t i = 1; i < parts.size(); ++i)
        m_writers[qsizetype(i) - 1]->start([&parts, &persisted, i](SqlConnection &sql) { persisted[i] = CheckinStore(sql).persist(parts[i]); });
    std::exception_ptr error;
    try {
        persisted[0] = CheckinStore(m_sql).persist(parts[0]);
    } catch (...) {
        error = std::current_exception();
    }
    for (qsizetype i = 1; i < shares; ++i) {
        try {
            m_writers[i - 1]->take();
        } catch (...) {
            if (!error)
                error = std::current_exception();
        }
    }
    if (error)
        std::rethrow_exception(error);
    int total = 0;
    for (const int rows : persisted)
        total += rows;
    return total;
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
