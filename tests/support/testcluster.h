#pragma once

#include "redis/redisurl.h"
#include "redis/redisvalue.h"

#include <QByteArray>
#include <QByteArrayList>
#include <QList>
#include <QStringList>
#include <QString>

#include <chrono>
#include <functional>
#include <vector>

namespace lantern::test {

/** The Redis Cluster scripts/services starts (LANTERN_TEST_REDIS_CLUSTER and _PORTS: 3 masters,
    3 replicas), seen as its administrator: which node serves a slot, a slot moved by hand
    (resharding, or frozen half-way for ASK/TRYAGAIN), a planned failover. It talks to the nodes
    over hiredis directly, never through the code under test. Every failure throws
    std::runtime_error; every wait polls the nodes' own answers with a deadline. Tests that move
    slots or fail over put the cluster back as they found it (CTest runs the "cluster" tests one
    at a time: RESOURCE_LOCK). */
class TestCluster final {
public:
    static constexpr std::chrono::milliseconds Timeout{20000};

    /** Reads the environment; throws when scripts/services did not start a cluster. */
    TestCluster();

    /** The seed list, redis://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3. */
    RedisUrl url() const;
    QString urlText() const { return m_urlText; }
    /** Every node's port, masters as created first. */
    const QList<int> &ports() const { return m_ports; }

    /** One command on a fresh connection to the node on `port`; error replies come back as values. */
    RedisValue command(int port, const QByteArrayList &args) const;
    /** Several commands on one fresh connection (ASKING then a command, say); replies as values. */
    std::vector<RedisValue> pipeline(int port, const QList<QByteArrayList> &commands) const;
    /** Like command(), but an error reply throws. */
    RedisValue checked(int port, const QByteArrayList &args) const;

    /** CLUSTER KEYSLOT, as the node on `port` computes it. */
    int keySlot(const QByteArray &key) const;
    /** The port of the master serving `slot`, as the node on `askPort` (default: any master) sees it. */
    int masterOf(int slot, int askPort = 0) const;
    /** The ports of the masters now (CLUSTER NODES), in ascending slot order of their first range. */
    QList<int> masters() const;
    /** The port of a replica of the master on `masterPort`. */
    int replicaOf(int masterPort) const;
    QByteArray nodeId(int port) const;
    /** A key `prefix` + "{tag}" + `suffix` whose slot the master on `port` serves. */
    QByteArray keyServedBy(int port, const QByteArray &prefix, const QByteArray &suffix = {}) const;

    /** Begins moving `slot` from its master to the master on `toPort`, as redis-cli --cluster
        reshard does, and stops half-way: IMPORTING on the target, MIGRATING on the source, then
        MIGRATE of `keys` only. The slot stays frozen so until finishMove(). */
    void beginMove(int slot, int toPort, const QByteArrayList &keys);
    /** Migrates the slot's remaining keys and gives the slot to the target on every master
        (SETSLOT NODE), then waits until every node says so. */
    void finishMove(int slot, int toPort);
    /** beginMove() with no key, then finishMove(): a whole reshard of one slot. */
    void moveSlot(int slot, int toPort);

    /** Takes `slot` from its master on every node (CLUSTER DELSLOTS): the cluster, which wants
        every slot covered, answers -CLUSTERDOWN until restoreSlot(). Returns the master's port. */
    int unassignSlot(int slot);
    /** Gives `slot` back to the master on `port` (CLUSTER ADDSLOTS) and waits until all agree. */
    void restoreSlot(int slot, int port);

    /** A planned failover (CLUSTER FAILOVER on a replica of the master on `masterPort`); waits
        until every node sees the replica as the master of those slots. Returns its port. */
    int failOver(int masterPort);
    /** Waits until every node reports cluster_state:ok and agrees on who serves every slot, and
        every replica's link to its master is up (its first sync done) and takes its writes (a
        write and a WAIT on each master). */
    void waitUntilSettled() const;
    /** waitUntilSettled(), then masters(): what a cluster test's cleanup() compares with the
        layout its initTestCase() found, so each test starts from it. */
    QList<int> settledMasters() const
    {
        waitUntilSettled();
        return masters();
    }

    /** A node killed by crash(), and what restart() needs to start it again as it was. */
    struct CrashedNode {
        int port = 0;
        QStringList arguments;  // redis-server's, rebuilt from CONFIG GET before the kill
        QString directory;
    };
    /** SIGKILLs the node on `port` (a crash: nothing flushed, no goodbye to its replica) and
        waits until it is gone. */
    CrashedNode crash(int port);
    /** Starts a crashed node again with its settings in its directory (scripts/services finds
        it by its pid file there); it rejoins from its nodes.conf. Waits until every node sees
        it as a replica of the master on `masterPort`, and the cluster is settled. */
    void restart(const CrashedNode &node, int masterPort);

private:
    struct Node {
        QByteArray id;
        int port = 0;
        bool master = false;
        QByteArray masterId;  // for a replica
    };
    QList<Node> nodesSeenBy(int port) const;
    /** Whether every node's CLUSTER NODES lists the node on `replicaPort` as a replica of `masterPort`'s. */
    bool everyNodeSeesReplica(int replicaPort, int masterPort) const;
    /** The owner of `slot` as the node on `port` sees it, or 0. */
    int ownerSeenBy(int port, int slot) const;
    void waitUntil(const char *what, const std::function<bool()> &done) const;

    QString m_urlText;
    QList<int> m_ports;
};

} // namespace lantern::test
