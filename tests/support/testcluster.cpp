#include "testcluster.h"

#include "privateserver.h"

#include <hiredis/hiredis.h>

#include <QDeadlineTimer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QThread>

#include <algorithm>

#include <memory>
#include <stdexcept>
#include <vector>

#include <csignal>
#include <sys/types.h>

namespace lantern::test {

namespace {

struct ClusterContextFree {
    void operator()(redisContext *context) const { redisFree(context); }
};
struct ClusterReplyFree {
    void operator()(redisReply *reply) const { freeReplyObject(reply); }
};

RedisValue clusterReplyValue(const redisReply *reply)
{
    RedisValue value;
    switch (reply->type) {
    case REDIS_REPLY_INTEGER:
        value.type = RedisValue::Type::Integer;
        value.integer = reply->integer;
        break;
    case REDIS_REPLY_NIL:
        break;
    case REDIS_REPLY_ARRAY:
        value.type = RedisValue::Type::Array;
        for (size_t i = 0; i < reply->elements; ++i)
            value.elements.push_back(clusterReplyValue(reply->element[i]));
        break;
    case REDIS_REPLY_ERROR:
        value.type = RedisValue::Type::Error;
        value.string = QByteArray(reply->str, qsizetype(reply->len));
        break;
    case REDIS_REPLY_STATUS:
        value.type = RedisValue::Type::Status;
        value.string = QByteArray(reply->str, qsizetype(reply->len));
        break;
    default:
        value.type = RedisValue::Type::String;
        value.string = QByteArray(reply->str, qsizetype(reply->len));
        break;
    }
    return value;
}

[[noreturn]] void clusterFailure(const QString &what)
{
    throw std::runtime_error("test cluster: " + what.toStdString());
}

QString clusterEnv(const char *name)
{
    const QString value = QProcessEnvironment::systemEnvironment().value(QString::fromLatin1(name));
    if (value.isEmpty())
        clusterFailure(QStringLiteral("%1 is not set: run the tests through scripts/test, whose scripts/services starts the cluster")
                               .arg(QLatin1String(name)));
    return value;
}

} // namespace

TestCluster::TestCluster() : m_urlText(clusterEnv("LANTERN_TEST_REDIS_CLUSTER"))
{
    for (const QString &port : clusterEnv("LANTERN_TEST_REDIS_CLUSTER_PORTS").split(QLatin1Char(' '), Qt::SkipEmptyParts))
        m_ports << port.toInt();
    if (m_ports.size() != 6)
        clusterFailure(QStringLiteral("expected 6 ports in LANTERN_TEST_REDIS_CLUSTER_PORTS"));
}

RedisUrl TestCluster::url() const
{
    return RedisUrl::parse(m_urlText);
}

RedisValue TestCluster::command(int port, const QByteArrayList &args) const
{
    timeval timeout{5, 0};
    const std::unique_ptr<redisContext, ClusterContextFree> context(redisConnectWithTimeout("127.0.0.1", port, timeout));
    if (!context || context->err || redisSetTimeout(context.get(), timeout) != REDIS_OK)
        clusterFailure(QStringLiteral("cannot connect to 127.0.0.1:%1").arg(port));
    std::vector<const char *> argv;
    std::vector<size_t> lengths;
    for (const QByteArray &arg : args) {
        argv.push_back(arg.constData());
        lengths.push_back(size_t(arg.size()));
    }
    const std::unique_ptr<redisReply, ClusterReplyFree> reply(
            static_cast<redisReply *>(redisCommandArgv(context.get(), int(argv.size()), argv.data(), lengths.data())));
    if (!reply)
        clusterFailure(QStringLiteral("no reply from 127.0.0.1:%1 to %2").arg(port).arg(QString::fromUtf8(args.join(' '))));
    return clusterReplyValue(reply.get());
}

RedisValue TestCluster::checked(int port, const QByteArrayList &args) const
{
    RedisValue reply = command(port, args);
    if (reply.isError())
        clusterFailure(QStringLiteral("127.0.0.1:%1 answered %2 with -%3")
                               .arg(port)
                               .arg(QString::fromUtf8(args.join(' ').left(200)), QString::fromUtf8(reply.string)));
    return reply;
}

int TestCluster::keySlot(const QByteArray &key) const
{
    return int(checked(m_ports.first(), {"CLUSTER", "KEYSLOT", key}).integer);
}

QList<TestCluster::Node> TestCluster::nodesSeenBy(int port) const
{
    QList<Node> result;
    const QByteArray text = checked(port, {"CLUSTER", "NODES"}).string;
    for (const QByteArray &line : text.split('\n')) {
        const QList<QByteArray> fields = line.trimmed().split(' ');
        if (fields.size() < 8)
            continue;
        Node node;
        node.id = fields.at(0);
        const QByteArray address = fields.at(1).split('@').first();
        node.port = address.mid(address.lastIndexOf(':') + 1).toInt();
        node.master = fields.at(2).split(',').contains("master");
        node.masterId = fields.at(3);
        result << node;
    }
    return result;
}

QByteArray TestCluster::nodeId(int port) const
{
    return checked(port, {"CLUSTER", "MYID"}).string;
}

int TestCluster::ownerSeenBy(int port, int slot) const
{
    const RedisValue slots = command(port, {"CLUSTER", "SLOTS"});
    for (const RedisValue &range : slots.elements) {
        if (range.elements.size() >= 3 && range.elements[0].integer <= slot && slot <= range.elements[1].integer)
            return int(range.elements[2].elements.at(1).integer);
    }
    return 0;
}

int TestCluster::masterOf(int slot, int askPort) const
{
    const int owner = ownerSeenBy(askPort != 0 ? askPort : masters().first(), slot);
    if (owner == 0)
        clusterFailure(QStringLiteral("no master serves slot %1").arg(slot));
    return owner;
}

QList<int> TestCluster::masters() const
{
    QList<int> result;
    const RedisValue slots = checked(m_ports.first(), {"CLUSTER", "SLOTS"});
    QList<std::pair<long long, int>> ranges;
    for (const RedisValue &range : slots.elements)
        ranges.append({range.elements[0].integer, int(range.elements[2].elements.at(1).integer)});
    std::sort(ranges.begin(), ranges.end());
    for (const auto &[start, port] : std::as_const(ranges)) {
        if (!result.contains(port))
            result << port;
    }
    return result;
}

int TestCluster::replicaOf(int masterPort) const
{
    // Each replica's own word (ROLE: slave, master host, master port, ...), not gossip that may lag.
    for (const int port : m_ports) {
        const RedisValue role = command(port, {"ROLE"});
        if (role.elements.size() >= 3 && role.elements[0].string == "slave" && role.elements[2].integer == masterPort)
            return port;
    }
    clusterFailure(QStringLiteral("the master on port %1 has no replica").arg(masterPort));
}

std::vector<RedisValue> TestCluster::pipeline(int port, const QList<QByteArrayList> &commands) const
{
    timeval timeout{5, 0};
    const std::unique_ptr<redisContext, ClusterContextFree> context(redisConnectWithTimeout("127.0.0.1", port, timeout));
    if (!context || context->err || redisSetTimeout(context.get(), timeout) != REDIS_OK)
        clusterFailure(QStringLiteral("cannot connect to 127.0.0.1:%1").arg(port));
    for (const QByteArrayList &args : commands) {
        std::vector<const char *> argv;
        std::vector<size_t> lengths;
        for (const QByteArray &arg : args) {
            argv.push_back(arg.constData());
            lengths.push_back(size_t(arg.size()));
        }
        redisAppendCommandArgv(context.get(), int(argv.size()), argv.data(), lengths.data());
    }
    std::vector<RedisValue> replies;
    for (qsizetype i = 0; i < commands.size(); ++i) {
        void *raw = nullptr;
        if (redisGetReply(context.get(), &raw) != REDIS_OK || raw == nullptr)
            clusterFailure(QStringLiteral("no reply from 127.0.0.1:%1").arg(port));
        const std::unique_ptr<redisReply, ClusterReplyFree> reply(static_cast<redisReply *>(raw));
        replies.push_back(clusterReplyValue(reply.get()));
    }
    return replies;
}

QByteArray TestCluster::keyServedBy(int port, const QByteArray &prefix, const QByteArray &suffix) const
{
    // The tag carries the prefix: keys of different tests (and runs) rarely share a slot.
    for (int tag = 0; tag < 1000; ++tag) {
        const QByteArray key = prefix + "{" + prefix + QByteArray::number(tag) + "}" + suffix;
        if (masterOf(keySlot(key)) == port)
            return key;
    }
    clusterFailure(QStringLiteral("no key with prefix %1 lands on port %2").arg(QString::fromUtf8(prefix)).arg(port));
}

void TestCluster::waitUntil(const char *what, const std::function<bool()> &done) const
{
    const QDeadlineTimer deadline(Timeout);
    while (!done()) {
        if (deadline.hasExpired())
            clusterFailure(QStringLiteral("waited %1 ms for %2").arg(Timeout.count()).arg(QLatin1String(what)));
        QThread::msleep(20);  // the poll interval
    }
}

void TestCluster::beginMove(int slot, int toPort, const QByteArrayList &keys)
{
    const int fromPort = masterOf(slot);
    if (fromPort == toPort)
        clusterFailure(QStringLiteral("slot %1 is already on port %2").arg(slot).arg(toPort));
    const QByteArray slotText = QByteArray::number(slot);
    // The order of the CLUSTER SETSLOT documentation: the target imports before the source migrates.
    checked(toPort, {"CLUSTER", "SETSLOT", slotText, "IMPORTING", nodeId(fromPort)});
    checked(fromPort, {"CLUSTER", "SETSLOT", slotText, "MIGRATING", nodeId(toPort)});
    if (!keys.isEmpty())
        checked(fromPort, QByteArrayList{"MIGRATE", "127.0.0.1", QByteArray::number(toPort), "", "0", "5000", "KEYS"} + keys);
}

void TestCluster::finishMove(int slot, int toPort)
{
    const int fromPort = masterOf(slot);
    const QByteArray slotText = QByteArray::number(slot);
    for (;;) {
        const RedisValue left = checked(fromPort, {"CLUSTER", "GETKEYSINSLOT", slotText, "100"});
        if (left.elements.empty())
            break;
        QByteArrayList migrate{"MIGRATE", "127.0.0.1", QByteArray::number(toPort), "", "0", "5000", "KEYS"};
        for (const RedisValue &key : left.elements)
            migrate << key.string;
        checked(fromPort, migrate);
    }
    const QByteArray toId = nodeId(toPort);
    checked(toPort, {"CLUSTER", "SETSLOT", slotText, "NODE", toId});
    checked(fromPort, {"CLUSTER", "SETSLOT", slotText, "NODE", toId});
    for (const int master : masters()) {
        if (master != toPort && master != fromPort)
            checked(master, {"CLUSTER", "SETSLOT", slotText, "NODE", toId});
    }
    waitUntil("every node to see the slot moved", [&] {
        for (const int port : m_ports) {
            if (ownerSeenBy(port, slot) != toPort)
                return false;
        }
        return true;
    });
}

void TestCluster::moveSlot(int slot, int toPort)
{
    if (masterOf(slot) == toPort)
        return;
    beginMove(slot, toPort, {});
    finishMove(slot, toPort);
}

int TestCluster::unassignSlot(int slot)
{
    const int owner = masterOf(slot);
    for (const int port : m_ports)
        checked(port, {"CLUSTER", "DELSLOTS", QByteArray::number(slot)});
    waitUntil("every node to see the slot unassigned", [&] {
        for (const int port : m_ports) {
            if (ownerSeenBy(port, slot) != 0)
                return false;
        }
        return true;
    });
    return owner;
}

void TestCluster::restoreSlot(int slot, int port)
{
    checked(port, {"CLUSTER", "ADDSLOTS", QByteArray::number(slot)});
    waitUntil("every node to see the slot served again", [&] {
        for (const int node : m_ports) {
            if (ownerSeenBy(node, slot) != port)
                return false;
        }
        return true;
    });
    waitUntilSettled();
}

bool TestCluster::everyNodeSeesReplica(int replicaPort, int masterPort) const
{
    const QByteArray replicaId = nodeId(replicaPort);
    const QByteArray masterId = nodeId(masterPort);
    for (const int port : m_ports) {
        const QList<Node> seen = nodesSeenBy(port);
        const bool known = std::any_of(seen.cbegin(), seen.cend(), [&](const Node &node) {
            return node.id == replicaId && !node.master && node.masterId == masterId;
        });
        if (!known)
            return false;
    }
    return true;
}

int TestCluster::failOver(int masterPort)
{
    const int replica = replicaOf(masterPort);
    const int slot = [&] {
        const RedisValue slots = checked(masterPort, {"CLUSTER", "SLOTS"});
        for (const RedisValue &range : slots.elements) {
            if (range.elements[2].elements.at(1).integer == masterPort)
                return int(range.elements[0].integer);
        }
        clusterFailure(QStringLiteral("the master on port %1 serves no slot").arg(masterPort));
    }();
    // The master must know the replica as its own, or it ignores the replica's request (and the
    // manual failover times out): gossip first, after a failover just made in the other direction.
    waitUntil("every node to know the replica", [&] { return everyNodeSeesReplica(replica, masterPort); });
    const auto tookOver = [&] {
        for (const int port : m_ports) {
            if (ownerSeenBy(port, slot) != replica)
                return false;
        }
        const QByteArray info = checked(masterPort, {"INFO", "replication"}).string;
        return infoField(info, "role") == "slave" && infoField(info, "master_link_status") == "up";
    };
    // A manual failover can fail silently: a replica that took part in an election moments ago may
    // "win" with its old epoch and be voted back down at once (seen on 7.0). Ask again then.
    const QDeadlineTimer deadline(Timeout);
    for (;;) {
        // Asked again, the replica may have become the master meanwhile (the nodes' views lag its
        // own): it then refuses ("send CLUSTER FAILOVER to a replica"), and the wait goes on.
        const RedisValue asked = command(replica, {"CLUSTER", "FAILOVER"});
        if (asked.isError() && !asked.string.contains("to a replica"))
            clusterFailure(QStringLiteral("127.0.0.1:%1 answered CLUSTER FAILOVER with %2").arg(replica).arg(QString::fromUtf8(asked.string)));
        const QDeadlineTimer attempt(std::chrono::seconds(3));
        while (!tookOver() && !attempt.hasExpired())
            QThread::msleep(20);  // the poll interval
        if (tookOver())
            break;
        if (deadline.hasExpired())
            clusterFailure(QStringLiteral("the replica on port %1 did not take over from %2 within %3 ms")
                                   .arg(replica)
                                   .arg(masterPort)
                                   .arg(Timeout.count()));
    }
    waitUntil("every node to know the old master as a replica", [&] { return everyNodeSeesReplica(masterPort, replica); });
    waitUntilSettled();
    return replica;
}

void TestCluster::waitUntilSettled() const
{
    waitUntil("every node to agree on the slots", [&] {
        QList<QByteArray> views;
        for (const int port : m_ports) {
            const RedisValue info = command(port, {"CLUSTER", "INFO"});
            if (info.isError() || infoField(info.string, "cluster_state") != "ok")
                return false;
            QByteArray view;
            for (const RedisValue &range : command(port, {"CLUSTER", "SLOTS"}).elements)
                view += QByteArray::number(range.elements[0].integer) + '-' + QByteArray::number(range.elements[1].integer) + '@'
                        + QByteArray::number(range.elements[2].elements.at(1).integer) + ' ';
            views << view;
        }
        if (!std::all_of(views.cbegin(), views.cend(), [&](const QByteArray &view) { return view == views.first(); }))
            return false;
        // A replica still on its first sync holds nothing yet: a failover now would hand its
        // master's slots to an empty node (seen right after scripts/services started the cluster).
        for (const int port : m_ports) {
            const QByteArray info = command(port, {"INFO", "replication"}).string;
            if (infoField(info, "role") == "slave" && infoField(info, "master_link_status") != "up")
                return false;
        }
        return true;
    });
    // Nor is a link that is up enough: after a diskless sync the master streams its writes to the
    // replica only once the replica has acknowledged the load, up to a second later. A write and
    // a WAIT for every replica of each master show they take its writes (the key goes at once).
    waitUntil("every replica to take its master's writes", [&] {
        for (const int master : masters()) {
            const int replicas = infoField(command(master, {"INFO", "replication"}).string, "connected_slaves").toInt();
            if (replicas == 0)
                continue;
            const QByteArray key = keyServedBy(master, "lantern-test-settled:");
            const std::vector<RedisValue> replies =
                    pipeline(master, {{"SET", key, "1"}, {"DEL", key}, {"WAIT", QByteArray::number(replicas), "200"}});
            if (replies.back().isError() || replies.back().integer < replicas)
                return false;
        }
        return true;
    });
}

TestCluster::CrashedNode TestCluster::crash(int port)
{
    // The settings scripts/services started it with (start_cluster), read back from the node.
    static const QByteArrayList Settings{"port", "bind", "cluster-enabled", "cluster-config-file", "cluster-node-timeout",
                                         "cluster-replica-validity-factor", "repl-diskless-sync-delay", "enable-debug-command", "save", "appendonly", "dir",
                                         "pidfile", "logfile"};
    CrashedNode node;
    node.port = port;
    for (const QByteArray &name : Settings) {
        const RedisValue reply = checked(port, {"CONFIG", "GET", name});
        if (reply.elements.size() != 2)
            clusterFailure(QStringLiteral("CONFIG GET %1 on port %2 answered no value").arg(QString::fromUtf8(name)).arg(port));
        const QString value = QString::fromUtf8(reply.elements[1].toBytes());
        node.arguments << QStringLiteral("--") + QString::fromUtf8(name) << value;
        if (name == "dir")
            node.directory = value;
    }
    node.arguments << QStringLiteral("--daemonize") << QStringLiteral("no");
    const qint64 pid = infoField(checked(port, {"INFO", "server"}).string, "process_id").toLongLong();
    if (pid <= 0 || ::kill(pid_t(pid), SIGKILL) != 0)
        clusterFailure(QStringLiteral("could not SIGKILL the node on port %1 (pid %2)").arg(port).arg(pid));
    waitUntil("the killed node to be gone", [pid] { return ::kill(pid_t(pid), 0) != 0; });
    return node;
}

void TestCluster::restart(const CrashedNode &node, int masterPort)
{
    // Detached, with no descriptor of this process: a test runner waits for its test's output
    // pipe to close, which a node holding it would never do.
    QProcess process;
    process.setProgram(QStandardPaths::findExecutable(QStringLiteral("redis-server")));
    process.setArguments(node.arguments);
    process.setWorkingDirectory(node.directory);
    process.setStandardInputFile(QProcess::nullDevice());
    process.setStandardOutputFile(QProcess::nullDevice());
    process.setStandardErrorFile(QProcess::nullDevice());
    if (process.program().isEmpty() || !process.startDetached())
        clusterFailure(QStringLiteral("could not start redis-server again on port %1").arg(node.port));
    waitUntil("the restarted node to answer", [&] {
        try {
            return !command(node.port, {"PING"}).isError();
        } catch (const std::runtime_error &) {
            return false;  // not listening yet
        }
    });
    waitUntil("every node to know the restarted node as a replica", [&] { return everyNodeSeesReplica(node.port, masterPort); });
    // Its full sync loads the master's data (until then it answers most commands -LOADING, and
    // the larger the data set the longer that lasts): settled waits for its link to be up, which
    // a replica's is only once the load is done.
    waitUntilSettled();
}

} // namespace lantern::test
