#include "redis/datanodes.h"

#include "redis/clusternodes.h"
#include "redis/rediserror.h"
#include "redis/redisclient.h"
#include "redis/redisconnection.h"
#include "redis/redissentinel.h"

namespace lantern {

namespace {

RedisValue role(const RedisEndpoint &node, const RedisUrl &url, const RedisOptions &options)
{
    RedisConnection connection(node, url, options);
    const RedisValue reply = connection.open({{"ROLE"}}).front();
    if (reply.isError() || reply.type != RedisValue::Type::Array || reply.elements.empty())
        throw RedisReplyError(DataNodes::tr("Redis at %1 answered ROLE with %2")
                                      .arg(node.text(), QString::fromUtf8(reply.isError() ? reply.string : QByteArrayLiteral("an unknown shape"))));
    return reply;
}

void addOnce(QList<DataNode> &nodes, const DataNode &node)
{
    for (const DataNode &known : std::as_const(nodes)) {
        if (known.endpoint == node.endpoint)
            return;
    }
    nodes.append(node);
}

} // namespace

QString DataNode::text() const
{
    return master ? DataNodes::tr("%1 (master)").arg(endpoint.text()) : DataNodes::tr("%1 (replica)").arg(endpoint.text());
}

QList<DataNode> DataNodes::find(RedisClient &redis, const RedisOptions &options)
{
    redis.ensureConnected();
    if (redis.isCluster())
        return ofCluster(redis);
    QList<DataNode> nodes = ofMaster(redis.url(), options);
    if (redis.url().isSentinel()) {
        for (const RedisEndpoint &replica : RedisSentinel::askReplicas(redis.url(), options))
            addOnce(nodes, {replica, false});
    }
    return nodes;
}

QList<DataNode> DataNodes::ofCluster(RedisClient &redis)
{
    const RedisValue reply = redis.command({"CLUSTER", "NODES"});
    QList<DataNode> nodes;
    for (const ClusterNodeStatus &node : parseClusterNodes(reply.toBytes())) {
        if (node.endpoint.port > 0)  // a node without an address yet (noaddr) cannot be reached
            nodes.append({node.endpoint, node.master});
    }
    return nodes;
}

QList<DataNode> DataNodes::ofMaster(const RedisUrl &url, const RedisOptions &options)
{
    RedisEndpoint master = url.isSentinel() ? RedisSentinel::connectToMaster(url, options)->endpoint() : RedisEndpoint{url.host, url.port};
    RedisValue reply = role(master, url, options);
    if (reply.elements[0].toBytes() == "slave" && reply.elements.size() >= 3) {
        // ["slave", master host, master port, state, offset]: the URL named a replica.
        master = {QString::fromUtf8(reply.elements[1].toBytes()), int(reply.elements[2].toInteger())};
        reply = role(master, url, options);
    }
    if (reply.elements[0].toBytes() != "master")
        throw RedisNotReadyError(RedisNotReadyError::State::MasterDown,
                                 tr("Redis at %1 answers ROLE as %2, not as a master or a replica of one")
                                         .arg(master.text(), QString::fromUtf8(reply.elements[0].toBytes())));
    QList<DataNode> nodes{{master, true}};
    // ["master", offset, [[ip, port, offset], ...]]: the replicas connected now.
    if (reply.elements.size() >= 3) {
        for (const RedisValue &replica : reply.elements[2].elements) {
            if (replica.elements.size() >= 2)
                addOnce(nodes, {{QString::fromUtf8(replica.elements[0].toBytes()), int(replica.elements[1].toInteger())}, false});
        }
    }
    return nodes;
}

} // namespace lantern
