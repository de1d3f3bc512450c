#pragma once

#include "redis/redisoptions.h"
#include "redis/redisurl.h"

#include <QCoreApplication>
#include <QList>
#include <QString>

#include <optional>

namespace lantern {

class RedisClient;

/** One node of a Redis Cluster as an operator sees it: where it is, what it does, whether it
    answers and how fast. */
struct ClusterNodeStatus {
    RedisEndpoint endpoint;
    bool master = false;
    QString slots;                    // a master's ranges, "0-5460 10923"; empty for a replica
    QString masterOf;                 // a replica's master, host:port when the map names it
    bool flaggedFailing = false;      // the cluster says fail or pfail
    std::optional<double> latencyMs;  // a PING's round trip on a fresh connection; none: unreachable
    QString error;                    // why it could not be reached
};

/** Reads CLUSTER NODES through `redis` (a client of a cluster), then opens a connection of its
    own to every node (the URL's AUTH, the options' timeouts) and times one PING on it. Masters
    first, in slot order, then replicas. Throws what `redis` throws when no node answers. */
QList<ClusterNodeStatus> probeClusterNodes(RedisClient &redis, const RedisUrl &url, const RedisOptions &options);

/** The lines of a CLUSTER NODES reply as statuses, nothing probed yet (public for its test). */
QList<ClusterNodeStatus> parseClusterNodes(const QByteArray &reply);

} // namespace lantern
