#pragma once

#include "core/errors.h"
#include "redis/redisoptions.h"
#include "redis/redisurl.h"
#include "redis/redisvalue.h"

#include <QByteArrayList>
#include <QCoreApplication>
#include <QList>

#include <chrono>
#include <memory>
#include <utility>
#include <vector>

namespace lantern {

class RedisCluster;
class RedisConnection;
struct RedisRoutingStats;

/** A read-only client refused to send a command that could write (exit 4, like any refusal).
    Nothing of the refused command or pipeline reached the server. */
class RedisReadOnlyError final : public RefusedError {
public:
    using RefusedError::RefusedError;
};

/** A blocking Redis client over hiredis, for one thread at a time.
    Connects lazily (AUTH and SELECT from the URL); any I/O error or timeout discards the
    context, throws RedisIoError/RedisTimeoutError, and the next call reconnects. A server that
    answers it cannot serve yet (loading, busy, ...) throws RedisNotReadyError and keeps the
    context. On connect it asks CLUSTER SLOTS: a node of a Redis Cluster (or a seed list
    redis://h1:p1,h2:p2) makes it route every command by its keys' slot (RedisCluster,
    docs/cluster.md), with the same API and errors. */
class RedisClient final {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisClient)

public:
    explicit RedisClient(RedisUrl url, RedisOptions options = {});
    ~RedisClient();
    RedisClient(RedisClient &&) noexcept;
    RedisClient &operator=(RedisClient &&) noexcept;

    /** Sends one command; error replies throw RedisReplyError. A read-only client throws
        RedisReadOnlyError for a command that is not a read, without sending it. */
    RedisValue command(const QByteArrayList &args);
    /** Sends every command before reading any reply (one round trip). Error replies come back
        as values of Type::Error, in order, so one failed command does not hide the others;
        except that a server that cannot serve yet (-LOADING, -BUSY, ...) throws
        RedisNotReadyError, once every reply has been read. */
    std::vector<RedisValue> pipeline(const QList<QByteArrayList> &commands);

    /** One reply per master, for what each node answers for itself (INFO, CONFIG GET, SCAN with
        a cursor of that node's): on one server, its own reply; on a cluster, each master of the
        slot map read at that moment (a failover redirects nobody), one round trip each. Error
        replies come back as values; a master that cannot be reached throws (RedisIoError),
        since a per-node answer without it would be wrong. Never resent: for reads. */
    std::vector<std::pair<RedisEndpoint, RedisValue>> onEveryMaster(const QByteArrayList &args);
    /** `args` on one master named by onEveryMaster() (a SCAN's next page there). */
    RedisValue onMaster(const RedisEndpoint &master, const QByteArrayList &args);
    /** Connects now if not connected (throws like command()). */
    void ensureConnected();
    bool isConnected() const;
    /** Whether the server is a Redis Cluster (known once connected). */
    bool isCluster() const { return m_cluster != nullptr; }
    /** On a cluster: its masters, as the current slot map has them (empty on one server). */
    QList<RedisEndpoint> clusterMasters() const;
    /** On a cluster: the redirections, retries and map reads so far (zeros on one server). */
    RedisRoutingStats routingStats() const;
    const RedisUrl &url() const { return m_url; }
    /** For a per-hop report, once connected to one server (or the master Sentinel named): its
        host:port, and its TLS (protocol, certificate, expiry; empty for plain TCP). Empty on a
        cluster, whose nodes ClusterNodeStatus reports. */
    QString connectedNode() const;
    QString transportSummary() const;
    bool isReadOnly() const { return m_options.readOnly; }
    /** Whether `args` only reads: an allow-list of read commands (GET, HGETALL, SCAN, PING,
        BITFIELD_RO, ...), plus BITFIELD when every operation is a GET. Scripts (EVAL, EVALSHA,
        SCRIPT), writes and administration are not reads. */
    static bool isReadCommand(const QByteArrayList &args);
    /** A seed list whose `node` is a single server (bad input: exit 2), as every path says it. */
    static InvalidInputError notAClusterNode(const RedisUrl &url, const RedisEndpoint &node, const QByteArray &refusal);
    /** Round trips made so far (one per command() or pipeline()), for tests and benchmarks. */
    quint64 roundTrips() const { return m_roundTrips; }
    /** Commands sent through pipeline() and command() so far (each of a pipeline counts), for tests. */
    quint64 commandsSent() const { return m_commandsSent; }

private:
    void refuseUnlessRead(const QByteArrayList &args) const;
    /** Connects to the first seed that answers and learns whether it is a cluster node. */
    void connect();
    /** Acts on the CLUSTER SLOTS reply of `connection` (just opened, or kept while not ready). */
    void takeProbe(std::unique_ptr<RedisConnection> connection, const RedisValue &reply);

    RedisUrl m_url;
    RedisOptions m_options;
    std::unique_ptr<RedisConnection> m_single;  // one server; kept while it cannot say what it is
    bool m_probed = false;                      // m_single answered the cluster probe
    std::unique_ptr<RedisCluster> m_cluster;
    quint64 m_roundTrips = 0;
    quint64 m_commandsSent = 0;
};

} // namespace lantern
