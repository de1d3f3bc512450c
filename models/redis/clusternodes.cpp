#include "redis/clusternodes.h"

#include "core/errors.h"
#include "redis/redisclient.h"
#include "redis/redisconnection.h"
#include "redis/rediserror.h"

#include <QElapsedTimer>
#include <QHash>

#include <algorithm>

namespace lantern {

namespace {
/** "host:port@bus[,hostname]" as an endpoint. */
RedisEndpoint endpointOf(const QByteArray &address)
{
    const QByteArray hostPort = address.left(address.indexOf('@'));
    const qsizetype colon = hostPort.lastIndexOf(':');
    return {QString::fromUtf8(hostPort.left(colon)), hostPort.mid(colon + 1).toInt()};
}

int firstSlot(const ClusterNodeStatus &node)
{
    return node.slots.isEmpty() ? 16384 : node.slots.section(QLatin1Char('-'), 0, 0).section(QLatin1Char(' '), 0, 0).toInt();
}
} // namespace

QList<ClusterNodeStatus> parseClusterNodes(const QByteArray &reply)
{
    QList<ClusterNodeStatus> nodes;
    QHash<QByteArray, RedisEndpoint> byId;
    QList<std::pair<qsizetype, QByteArray>> replicaOf;  // node index -> its master's id
    for (const QByteArray &line : reply.split('\n')) {
        const QByteArrayList fields = line.trimmed().split(' ');
        if (fields.size() < 8)
            continue;
        ClusterNodeStatus node;
        node.endpoint = endpointOf(fields[1]);
        const QByteArrayList flags = fields[2].split(',');
        node.master = flags.contains("master");
        node.flaggedFailing = flags.contains("fail") || flags.contains("fail?");
        QStringList slots;
        for (qsizetype i = 8; i < fields.size(); ++i) {
            if (!fields[i].startsWith('['))  // "[slot->-id]": a slot on its way, not served yet
                slots << QString::fromLatin1(fields[i]);
        }
        node.slots = slots.join(QLatin1Char(' '));
        byId.insert(fields[0], node.endpoint);
        if (!node.master && fields[3] != "-")
            replicaOf.append({nodes.size(), fields[3]});
        nodes << node;
    }
    for (const auto &[index, masterId] : std::as_const(replicaOf)) {
        if (byId.contains(masterId))
            nodes[index].masterOf = byId.value(masterId).text();
    }
    std::stable_sort(nodes.begin(), nodes.end(), [](const ClusterNodeStatus &a, const ClusterNodeStatus &b) {
        if (a.master != b.master)
            return a.master;
        return a.master ? firstSlot(a) < firstSlot(b) : a.endpoint.text() < b.endpoint.text();
    });
    return nodes;
}

QList<ClusterNodeStatus> probeClusterNodes(RedisClient &redis, const RedisUrl &url, const RedisOptions &options)
{
    const RedisValue reply = redis.command({"CLUSTER", "NODES"});
    throwOnErrorReply(reply);
    QList<ClusterNodeStatus> nodes = parseClusterNodes(reply.toBytes());
    for (ClusterNodeStatus &node : nodes) {
        try {
            RedisConnection connection(node.endpoint, url, options);
            connection.open();
            QElapsedTimer timer;
            timer.start();
            connection.append({"PING"});
            const RedisValue pong = connection.read();
            throwOnErrorReply(pong);
            node.latencyMs = double(timer.nsecsElapsed()) / 1e6;
        } catch (const LanternError &error) {
            node.error = error.message();
        }
    }
    return nodes;
}

} // namespace lantern
