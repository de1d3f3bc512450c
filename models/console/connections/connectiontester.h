#pragma once

#include "console/common/connectionerrors.h"
#include "redis/clusternodes.h"
#include "settings/config.h"

#include <QMetaType>
#include <QObject>

#include <memory>
#include <optional>

namespace lantern {

class RedisClient;
class SshTunnel;
class SqlConnection;
struct RedisOptions;

/** What a test of a configuration's servers found: each server's round trip (Redis PING,
    SQL SELECT 1) or why it failed, in plain words. Redis and SQL are tested independently. */
struct ConnectionCheck {
    /** Where the way to Redis broke: the report names that hop. */
    enum class Hop { Sentinel, Tls, Redis };

    bool sshUsed = false;     // the profile reaches its servers through an SSH tunnel
    bool sshOk = false;
    QString sshSummary;       // "user@host:22 · host key SHA256:..."
    PlainFailure sshFailure;
    QString sshUnknownHost;         // the SSH server known_hosts does not hold yet (user@host:port) ...
    QString sshUnknownFingerprint;  // ... and its host key's fingerprint: ask the user, then test again
    std::shared_ptr<SshTunnel> tunnel;  // the open tunnel the servers were tested through (kept for a switch)

    bool redisOk = false;
    Hop redisFailedHop = Hop::Redis;
    double redisMs = -1;      // PING round trip, after connecting
    QString redisVersion;     // from INFO server, when readable
    PlainFailure redisFailure;
    QString redisStatus;      // when not redisOk: after "Redis" in the status bar ("is loading", "down")
    bool redisCluster = false;               // the URL leads to a Redis Cluster
    QList<ClusterNodeStatus> clusterNodes;   // then every node: role, slots, reachable, a PING's round trip
    QString clusterState;                    // CLUSTER INFO's cluster_state: "ok"; anything else fails the check
    int clusterSlotsOk = -1;                 // cluster_slots_ok: slots served (of 16384); -1: not read
    QString redisNode;        // the node answered (host:port): through Sentinel, the master it named
    QString redisTls;         // rediss://: "TLSv1.3, certificate CN=..., valid until ..., verify full"; empty: plain
    QString redisTlsWarning;  // --redis-verify none, said wherever the connection is
    QString sentinelMaster;   // through Sentinel: "NAME at host:port", as the sentinels named it
    QString redisRole;        // ROLE's first answer (master, slave); empty: not readable

    bool sqlOk = false;
    double sqlMs = -1;        // SELECT 1 round trip, after connecting
    QString sqlVersion;       // VERSION() / sqlite_version()
    int schemaVersion = -1;   // Lantern's schema version; -1: no Lantern tables
    PlainFailure sqlFailure;
    QString sqlTls;           // MySQL/MariaDB over TLS: "TLSv1.3, CIPHER"; empty: plain (or SQLite)

    bool readOnly = false;    // the test ran with the read-only switch on
};

/** Tests connections off the GUI thread (run it on a DedicatedThread): opens the SSH tunnel
    when the configuration has one (and is not through one already), then a fresh RedisClient
    and SqlConnection for the configuration it is given (read-only when it says so), measures
    one round trip each and closes them again; on a Redis Cluster it also connects to every node
    and times a PING there. Never creates an SQLite file. */
class ConnectionTester final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionTester)

public:
    explicit ConnectionTester(QObject *parent = nullptr);
    ~ConnectionTester() override;

public Q_SLOTS:
    void check(quint64 serial, const lantern::Config &config);

Q_SIGNALS:
    void checked(quint64 serial, const lantern::ConnectionCheck &result);

private:
    /** Opens the tunnel: `config` through it, or nullopt (why in `result`). */
    static std::optional<Config> openTunnel(const Config &config, ConnectionCheck &result);
    static void checkRedis(const Config &config, ConnectionCheck &result);
    static void checkSql(const Config &config, ConnectionCheck &result);
    static void checkClusterState(RedisClient &redis, ConnectionCheck &result);
    /** Through Sentinel: the master the sentinels name, as a hop of its own. */
    static void checkSentinel(const Config &config, const RedisOptions &options, ConnectionCheck &result);
    static void readRedisDetails(RedisClient &redis, ConnectionCheck &result);
    static void readSqlTls(SqlConnection &sql, ConnectionCheck &result);
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::ConnectionCheck)
