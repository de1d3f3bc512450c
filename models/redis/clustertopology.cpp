#include "redis/clustertopology.h"

#include "core/errors.h"
#include "redis/clusterprobe.h"
#include "redis/redisclient.h"
#include "redis/redisconnection.h"
#include "redis/rediserror.h"

namespace lantern {

namespace {

/** However often loops ask, the map is read at most this often (a storm of MOVED replies after
    a reshard asks thousands of times). */
constexpr std::chrono::milliseconds LeastBetweenReads{50};

} // namespace

std::shared_ptr<ClusterTopology> ClusterTopology::discover(const RedisUrl &url, const RedisOptions &options)
{
    for (const RedisEndpoint &seed : url.seeds()) {
        try {
            RedisConnection connection(seed, url, options);
            ClusterProbe probe = ClusterProbe::of(connection.open({ClusterProbe::command()}).front(), seed);
            if (probe.kind == ClusterProbe::Kind::Cluster)
                return std::shared_ptr<ClusterTopology>(new ClusterTopology(url, options, std::move(probe.map)));
            if (probe.kind == ClusterProbe::Kind::SingleServer) {
                if (!url.isSeedList())
                    return nullptr;  // a single server
                throw RedisClient::notAClusterNode(url, seed, probe.refusal);
            }
        } catch (const UnavailableError &) {
            continue;  // the next seed
        }
    }
    if (!url.isSeedList())
        return nullptr;
    return std::shared_ptr<ClusterTopology>(new ClusterTopology(url, options, ClusterSlotMap()));
}

ClusterTopology::ClusterTopology(RedisUrl url, RedisOptions options, ClusterSlotMap first)
    : m_url(std::move(url)), m_options(options), m_map(std::make_shared<const ClusterSlotMap>(std::move(first)))
{
    m_version = 1;
    m_refreshWanted = m_map->masters().isEmpty();
    m_thread = std::thread([this] { run(); });
}

ClusterTopology::~ClusterTopology()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

ClusterTopology::Snapshot ClusterTopology::snapshot() const
{
    std::lock_guard lock(m_mutex);
    return {m_map, m_version.load(std::memory_order_relaxed)};
}

void ClusterTopology::requestRefresh()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_refreshWanted)
            return;
        m_refreshWanted = true;
    }
    m_wake.notify_one();
}

void ClusterTopology::run()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait_for(lock, m_options.cluster.mapMaxAge, [this] { return m_stopping || m_refreshWanted; });
        if (m_stopping)
            return;
        m_refreshWanted = false;
        lock.unlock();
        const bool read = readMap();
        lock.lock();
        if (!read)
            m_refreshWanted = true;  // no node answered: again after the pause below
        // At most one read per LeastBetweenReads, however many asked meanwhile.
        m_wake.wait_for(lock, LeastBetweenReads, [this] { return m_stopping; });
        if (m_stopping)
            return;
    }
}

bool ClusterTopology::readMap()
{
    QList<RedisEndpoint> candidates;
    {
        std::lock_guard lock(m_mutex);
        candidates = SlotMapReader::candidates({}, *m_map, m_url);
    }
    std::unique_ptr<RedisConnection> connection;  // a fresh one per node asked: the loops own theirs
    const auto connectionTo = [&](const RedisEndpoint &node) -> RedisConnection & {
        connection = std::make_unique<RedisConnection>(node, m_url, m_options);
        return *connection;
    };
    quint64 reads = 0;
    try {
        auto map = std::make_shared<const ClusterSlotMap>(SlotMapReader::read(candidates, connectionTo, m_url, reads));
        m_reads.fetch_add(reads, std::memory_order_relaxed);
        std::lock_guard lock(m_mutex);
        m_map = std::move(map);
        m_version.fetch_add(1, std::memory_order_release);
        return true;
    } catch (const LanternError &) {  // no node answered (or the URL does not fit them): again later
        m_reads.fetch_add(reads, std::memory_order_relaxed);
        return false;
    }
}

} // namespace lantern
