#pragma once

#include "redis/clusterslotmap.h"
#include "redis/redisconnection.h"
#include "redis/redisoptions.h"
#include "redis/redisurl.h"
#include "redis/redisvalue.h"

#include <QByteArrayList>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QList>

#include <map>
#include <memory>
#include <vector>

namespace lantern {

/** What a cluster client did beyond sending commands: redirections followed, retries, slot map
    reads and writes, so tests and benchmarks can see the routing at work. */
struct RedisRoutingStats {
    quint64 moved = 0;       // -MOVED replies followed
    quint64 asked = 0;       // -ASK replies followed (ASKING + the command on the target)
    quint64 retried = 0;     // -TRYAGAIN, -CLUSTERDOWN, -LOADING, -MASTERDOWN, -READONLY replies waited out
    quint64 mapReads = 0;    // CLUSTER SLOTS sent to refresh the slot map
    quint64 nodeWrites = 0;  // batches written, one per node per round
};

/** The blocking client's routing on a Redis Cluster (DESIGN §7): the slot map from CLUSTER
    SLOTS, one connection per master, a pipeline split into one write per node and its replies
    put back in the caller's order. MOVED updates the map then reads it again once; ASK sends
    ASKING + the command to the target and leaves the map alone; TRYAGAIN, CLUSTERDOWN, LOADING,
    MASTERDOWN, READONLY and a master that cannot be reached are waited out (back-off, fresh
    map) for RedisClusterOptions::retryWindow, then throw. A command whose connection broke
    after it was written is never sent again: its outcome is unknown, the caller decides. */
class RedisCluster final {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisClient)

public:
    /** Starts from `first`, a connection that answered CLUSTER SLOTS with `map` (ClusterProbe). */
    RedisCluster(RedisUrl url, RedisOptions options, RedisConnection first, ClusterSlotMap map);
    ~RedisCluster();
    Q_DISABLE_COPY_MOVE(RedisCluster)

    /** As RedisClient::pipeline; throws RedisClusterRefusal, before sending anything, for a
        request whose keys span slots or that has no cluster-wide meaning. */
    std::vector<RedisValue> pipeline(const QList<QByteArrayList> &commands);
    /** `args` as it is, on `master` (RedisClient::onEveryMaster): no routing, no redirection,
        never resent; an error reply comes back as a value. */
    RedisValue onMaster(const RedisEndpoint &master, const QByteArrayList &args);
    /** Opens a connection (reading the slot map) unless one is open. */
    void ensureConnected();
    bool isConnected() const;

    const RedisRoutingStats &stats() const { return m_stats; }
    /** The masters of the current slot map. */
    QList<RedisEndpoint> masters() const { return m_map.masters(); }
    /** The masters of a slot map read now (a failover redirects nobody until it is read). */
    QList<RedisEndpoint> mastersNow();

private:
    struct Unit;     // one command, or MULTI ... EXEC: what goes to one node as a whole
    struct Send;     // a unit on its way to a node this round (after ASKING when asked to)
    struct Attempt;  // what one pipeline() call has met so far
    using Batches = std::vector<std::pair<RedisEndpoint, std::vector<Send>>>;  // one per node, a few

    /** The units of `commands`; throws RedisClusterRefusal for keys over several slots. */
    std::vector<Unit> plan(const QList<QByteArrayList> &commands) const;
    /** Merges the replies of keyless every-master units once each master has answered. */
    void finishEveryMaster(std::vector<Unit> &units) const;
    /** Where each unit still to run goes this round, in the caller's order per node. */
    Batches route(std::vector<Unit> &units, Attempt &attempt) const;
    /** Connects, writes each node's batch at once, then reads and settles every reply. */
    void send(Batches &batches, std::vector<Unit> &units, const QList<QByteArrayList> &commands, Attempt &attempt);
    /** Done with its replies, or redirected (MOVED, ASK), or waiting (TRYAGAIN, CLUSTERDOWN, ...). */
    void settle(Unit &unit, std::vector<RedisValue> replies, const RedisEndpoint &node, Attempt &attempt);
    /** SlotMapReader over the open connections, the map's nodes, the seeds; throws RedisIoError
        if none answers. */
    void refreshMap();
    RedisConnection &connectionTo(const RedisEndpoint &node);
    /** A master for keyless commands: one already connected if any. */
    std::optional<RedisEndpoint> anyMaster() const;

    RedisUrl m_url;
    RedisOptions m_options;
    ClusterSlotMap m_map;
    QElapsedTimer m_mapAge;
    bool m_refreshWanted = false;
    std::map<QString, std::unique_ptr<RedisConnection>> m_connections;  // by host:port
    QList<RedisEndpoint> m_unreachable;  // masters whose last connect failed: keyless commands avoid them
    RedisRoutingStats m_stats;
};

} // namespace lantern
