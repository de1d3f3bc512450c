#pragma once

#include "redis/redisoptions.h"
#include "redis/redisurl.h"

#include <QCoreApplication>
#include <QList>
#include <QString>

namespace lantern {

class RedisClient;

/** One data node (not a sentinel) of what a client reaches: a master or one of its replicas. */
struct DataNode {
    RedisEndpoint endpoint;
    bool master = false;

    /** "127.0.0.1:6379 (master)", for messages. */
    QString text() const;
};

/** Every data node behind `redis`, masters first, for what must be done on each node itself
    (ACL users, which are not replicated):
    - a Redis Cluster: its masters and replicas (CLUSTER NODES);
    - a redis-sentinel:// URL: the master the sentinels name (ROLE checked) and its replicas as
      the sentinels know them (SENTINEL REPLICAS: down ones too) and as the master's ROLE lists
      them;
    - one server: the master (the server itself, or the master its ROLE names when it is a
      replica) and the replicas connected to it (the master's ROLE).
    Replicas of replicas are not followed. Throws what connecting throws (RedisIoError, ...) when
    the master or every sentinel cannot be reached. */
class DataNodes final {
    Q_DECLARE_TR_FUNCTIONS(lantern::DataNodes)

public:
    static QList<DataNode> find(RedisClient &redis, const RedisOptions &options);

private:
    static QList<DataNode> ofCluster(RedisClient &redis);
    static QList<DataNode> ofMaster(const RedisUrl &url, const RedisOptions &options);
};

} // namespace lantern
