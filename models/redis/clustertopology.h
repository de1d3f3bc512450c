#pragma once

#include "redis/clusterslotmap.h"
#include "redis/redisoptions.h"
#include "redis/redisurl.h"
#include "redis/refreshthread.h"

#include <QCoreApplication>

#include <atomic>
#include <memory>
#include <mutex>

namespace lantern {

/** A Redis Cluster's slot map shared by the event loops of `lanternd serve` (docs/cluster.md).
    The loops never wait on I/O, so they read a snapshot and ask for a fresh map (after a MOVED,
    or when a master cannot be reached); the map is read again on a thread of its own, one read
    at a time however many loops ask, and also whenever it is older than
    RedisClusterOptions::mapMaxAge (a failover redirects nobody). */
class ClusterTopology final {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisClient)

public:
    /** Asks the URL's nodes, blocking: the topology of a cluster; nullptr for a single server,
        or for a single URL that cannot be reached now (its clients find out when it can). A
        seed list is a cluster even when no seed answers yet: the map is read as soon as one does. */
    static std::shared_ptr<ClusterTopology> discover(const RedisUrl &url, const RedisOptions &options);

    ~ClusterTopology();
    Q_DISABLE_COPY_MOVE(ClusterTopology)

    struct Snapshot {
        std::shared_ptr<const ClusterSlotMap> map;
        quint64 version = 0;  // grows with every map read
    };
    Snapshot snapshot() const;
    /** Cheap: whether a map newer than `version` is there. */
    bool isNewerThan(quint64 version) const { return m_version.load(std::memory_order_acquire) > version; }
    /** Asks for the map to be read again soon; never waits. */
    void requestRefresh();
    /** Map reads so far. */
    quint64 reads() const { return m_reads.load(std::memory_order_relaxed); }

private:
    ClusterTopology(RedisUrl url, RedisOptions options, ClusterSlotMap first);
    /** One CLUSTER SLOTS from the first node that answers; false if none does. */
    bool readMap();

    RedisUrl m_url;
    RedisOptions m_options;
    mutable std::mutex m_mutex;
    std::shared_ptr<const ClusterSlotMap> m_map;
    std::atomic<quint64> m_version{0};
    std::atomic<quint64> m_reads{0};
    std::unique_ptr<RefreshThread> m_refresh;  // last: stopped first
};

} // namespace lantern
