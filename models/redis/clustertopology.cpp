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
    if (url.isSentinel())
        return nullptr;  // a master Sentinel names: RedisPipe follows it (SentinelWatch)
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
    m_refresh = std::make_unique<RefreshThread>(m_options.cluster.mapMaxAge, LeastBetweenReads, [this] { return readMap(); },
                                                m_map->masters().isEmpty());
}

ClusterTopology::~ClusterTopology() = default;

ClusterTopology::Snapshot ClusterTopology::snapshot() const
{
    std::lock_guard lock(m_mutex);
    return {m_map, m_version.load(std::memory_order_relaxed)};
}

void ClusterTopology::requestRefresh()
{
    m_refresh->request();
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
