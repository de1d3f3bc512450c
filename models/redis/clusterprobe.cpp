#include "redis/clusterprobe.h"

#include "redis/redisconnection.h"

namespace lantern {

ClusterProbe ClusterProbe::of(const RedisValue &reply, const RedisEndpoint &node)
{
    ClusterProbe probe;
    if (!reply.isError()) {
        probe.kind = Kind::Cluster;
        probe.map = ClusterSlotMap::fromSlotsReply(reply, node);
        return probe;
    }
    if ((probe.state = RedisNotReadyError::stateOf(reply.string))) {
        probe.kind = Kind::NotReady;
        return probe;
    }
    probe.refusal = reply.string;
    return probe;
}

QList<RedisEndpoint> SlotMapReader::candidates(QList<RedisEndpoint> first, const ClusterSlotMap &map, const RedisUrl &url)
{
    for (const RedisEndpoint &node : map.knownNodes() + url.seeds()) {
        if (!first.contains(node))
            first.append(node);
    }
    return first;
}

ClusterSlotMap SlotMapReader::read(const QList<RedisEndpoint> &candidates, const ConnectionTo &connectionTo, const RedisUrl &url,
                                   quint64 &reads)
{
    QString lastError;
    for (const RedisEndpoint &node : candidates) {
        try {
            RedisConnection &connection = connectionTo(node);
            RedisValue reply;
            if (connection.isUsable()) {
                connection.append(ClusterProbe::command());
                reply = connection.read();
            } else {
                reply = connection.open({ClusterProbe::command()}).front();  // with the handshake: one round trip
            }
            ++reads;
            if (reply.isError()) {
                lastError = tr("Redis at %1 answered CLUSTER SLOTS with %2").arg(node.text(), QString::fromUtf8(reply.string));
                continue;
            }
            ClusterSlotMap map = ClusterSlotMap::fromSlotsReply(reply, node);
            if (map.masters().isEmpty()) {
                lastError = tr("Redis at %1 knows no master of the cluster").arg(node.text());
                continue;
            }
            return map;
        } catch (const UnavailableError &error) {
            lastError = error.message();
        } catch (const RedisReplyError &error) {
            lastError = error.message();
        }
    }
    throw RedisIoError(tr("no node of the Redis Cluster %1 answered: %2").arg(url.redacted(), lastError));
}

} // namespace lantern
