#pragma once

#include "console/common/connectionerrors.h"
#include "core/config.h"
#include "redis/clusternodes.h"

#include <QMetaType>
#include <QObject>

namespace lantern {

class RedisClient;

/** What a test of a configuration's servers found: each server's round trip (Redis PING,
    SQL SELECT 1) or why it failed, in plain words. Redis and SQL are tested independently. */
struct ConnectionCheck {
    bool redisOk = false;
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

    bool sqlOk = false;
    double sqlMs = -1;        // SELECT 1 round trip, after connecting
    QString sqlVersion;       // VERSION() / sqlite_version()
    int schemaVersion = -1;   // Lantern's schema version; -1: no Lantern tables
    PlainFailure sqlFailure;

    bool readOnly = false;    // the test ran with the read-only switch on
};

/** Tests connections off the GUI thread (run it on a DedicatedThread): opens a fresh RedisClient
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
    static void checkRedis(const Config &config, ConnectionCheck &result);
    static void checkSql(const Config &config, ConnectionCheck &result);
    static void checkClusterState(RedisClient &redis, ConnectionCheck &result);
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::ConnectionCheck)
