#include "livereshard.h"

#include "core/errors.h"
#include "redis/clusterslotmap.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

#include <QStringList>

#include <algorithm>

#include <QElapsedTimer>

namespace lantern::bench {

namespace {

/** `args` on `master`; an error reply throws, naming the command. */
RedisValue checked(RedisClient &redis, const RedisEndpoint &master, const QByteArrayList &args)
{
    RedisValue reply = redis.onMaster(master, args);
    if (reply.isError())
        throw RedisReplyError(QStringLiteral("%1 on %2: %3").arg(QString::fromUtf8(args.join(' ')), master.text(), QString::fromUtf8(reply.string)));
    return reply;
}

} // namespace

LiveReshard::Move LiveReshard::moveToNextMaster(int slot, int keysPerMigrate)
{
    RedisClient redis(m_admin);
    redis.ensureConnected();
    const ClusterSlotMap map = ClusterSlotMap::fromSlotsReply(redis.command({"CLUSTER", "SLOTS"}), m_admin.seeds().first());
    QStringList masters;
    for (const RedisEndpoint &master : map.masters())
        masters << master.text();
    masters.sort();
    const QString source = map.masterOf(slot)->text();
    return moveTo(slot, masters.at((masters.indexOf(source) + 1) % masters.size()), keysPerMigrate);
}

LiveReshard::Move LiveReshard::moveTo(int slot, const QString &targetText, int keysPerMigrate)
{
    RedisClient redis(m_admin);
    redis.ensureConnected();
    const ClusterSlotMap map = ClusterSlotMap::fromSlotsReply(redis.command({"CLUSTER", "SLOTS"}), m_admin.seeds().first());
    const QList<RedisEndpoint> masters = map.masters();
    const RedisEndpoint source = *map.masterOf(slot);
    const auto found = std::find_if(masters.cbegin(), masters.cend(), [&](const RedisEndpoint &m) { return m.text() == targetText; });
    if (found == masters.cend())
        throw LanternError(QStringLiteral("%1 is not a master of the cluster").arg(targetText));
    const RedisEndpoint target = *found;
    Move move;
    move.from = source.text();
    move.to = target.text();
    if (source == target)
        return move;
    const QByteArray sourceId = checked(redis, source, {"CLUSTER", "MYID"}).toBytes();
    const QByteArray targetId = checked(redis, target, {"CLUSTER", "MYID"}).toBytes();
    const QByteArray slotText = QByteArray::number(slot);

    QElapsedTimer timer;
    timer.start();
    checked(redis, target, {"CLUSTER", "SETSLOT", slotText, "IMPORTING", sourceId});
    checked(redis, source, {"CLUSTER", "SETSLOT", slotText, "MIGRATING", targetId});
    while (true) {
        const RedisValue keys = checked(redis, source, {"CLUSTER", "GETKEYSINSLOT", slotText, QByteArray::number(keysPerMigrate)});
        if (keys.elements.empty())
            break;
        QByteArrayList migrate{"MIGRATE", target.host.toUtf8(), QByteArray::number(target.port), "", "0", "10000", "KEYS"};
        for (const RedisValue &key : keys.elements)
            migrate << key.toBytes();
        checked(redis, source, migrate);
        move.keys += int(keys.elements.size());
        ++move.batches;
    }
    // The target first, then the source (redis-cli's order): clients sent back and forth meanwhile
    // are what the client's redirect budget and back-off are for.
    checked(redis, target, {"CLUSTER", "SETSLOT", slotText, "NODE", targetId});
    checked(redis, source, {"CLUSTER", "SETSLOT", slotText, "NODE", targetId});
    for (const RedisEndpoint &other : masters) {
        if (!(other == source) && !(other == target))
            checked(redis, other, {"CLUSTER", "SETSLOT", slotText, "NODE", targetId});
    }
    move.milliseconds = double(timer.nsecsElapsed()) / 1e6;
    return move;
}

} // namespace lantern::bench
