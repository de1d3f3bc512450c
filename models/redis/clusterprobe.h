#pragma once

#include "redis/clusterslotmap.h"
#include "redis/rediserror.h"
#include "redis/redisurl.h"
#include "redis/redisvalue.h"

#include <QByteArrayList>
#include <QCoreApplication>
#include <QList>

#include <functional>
#include <optional>

namespace lantern {

class RedisConnection;

/** What a node's answer to CLUSTER SLOTS says it is: the probe every client sends with its
    handshake (RedisClient, ClusterTopology::discover), read in one place. */
struct ClusterProbe {
    enum class Kind {
        Cluster,       // a slot map: route by slot
        SingleServer,  // "cluster support disabled" (or CLUSTER refused to this user)
        NotReady,      // -LOADING, -BUSY, ...: it cannot say yet
    };
    Kind kind = Kind::SingleServer;
    ClusterSlotMap map;                              // Cluster
    std::optional<RedisNotReadyError::State> state;  // NotReady
    QByteArray refusal;                              // SingleServer: the error reply

    /** Throws RedisReplyError for a map of an unexpected shape. */
    static ClusterProbe of(const RedisValue &reply, const RedisEndpoint &node);
    static QByteArrayList command() { return {QByteArrayLiteral("CLUSTER"), QByteArrayLiteral("SLOTS")}; }
};

/** The one reader of a Redis Cluster's slot map (redis-plus-plus's ShardsPool::update is the
    model): asks `candidates` in order, over the connection `connectionTo` gives for each (one the
    caller keeps, or a fresh one), and takes the first map that names a master. `reads` counts
    the CLUSTER SLOTS sent. Throws RedisIoError naming the last reason when no node answers. */
class SlotMapReader final {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisClient)

public:
    using ConnectionTo = std::function<RedisConnection &(const RedisEndpoint &)>;

    /** Where to ask: `first` (connections already open), then every node the map names, then the
        URL's seeds; each once. */
    static QList<RedisEndpoint> candidates(QList<RedisEndpoint> first, const ClusterSlotMap &map, const RedisUrl &url);
    static ClusterSlotMap read(const QList<RedisEndpoint> &candidates, const ConnectionTo &connectionTo, const RedisUrl &url,
                               quint64 &reads);
};

} // namespace lantern
