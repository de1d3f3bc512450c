#pragma once

#include "redis/redistls.h"

#include <QCoreApplication>
#include <QList>
#include <QString>

#include <memory>

namespace lantern {

/** One Redis server's address. */
struct RedisEndpoint {
    QString host;
    int port = 6379;

    /** host:port ([host]:port for an IPv6 literal), as messages and redis-cli show it. */
    QString text() const;
    bool operator==(const RedisEndpoint &other) const = default;
};

/** Where a connection to a server really goes (the transport seam under TCP and TLS): an SSH
    tunnel gives each server it is asked for a local forwarded port. TLS still checks the
    server's own name, never the local address. Shared by every copy of a URL; thread-safe. */
class EndpointRoute {
public:
    virtual ~EndpointRoute() = default;
    /** The address to connect to for `server`; throws UnavailableError when there is none. */
    virtual RedisEndpoint route(const RedisEndpoint &server) = 0;
};

/** redis://[user:password@]host:port[/db], or a Redis Cluster's seed list
    redis://[user:password@]h1:p1,h2:p2,..., or a master found through Redis Sentinel
    redis-sentinel://[user:password@]s1:p1,...[/db]#MASTER: parsed and validated at the edge.
    rediss:// (rediss-sentinel://) is the same over TLS (`tls`, whose files and checks come from
    the global options). */
struct RedisUrl {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisUrl)

public:
    QString host = QStringLiteral("127.0.0.1");  // the first (or only) node
    int port = 6379;
    QString user;      // with the password: AUTH on every node
    QString password;
    int db = 0;
    QList<RedisEndpoint> moreSeeds;  // the seed list's other nodes, in order (empty for one node)
    RedisTlsOptions tls;             // enabled by rediss://; the rest from --redis-ca, ... (Config)
    // redis-sentinel://[user:password@]s1:p1,s2:p2[/db]#MASTER: host, port and moreSeeds are the
    // sentinels (port 26379 by default), user, password and db the master's (docs/connect.md).
    QString sentinelMaster;    // the master's name at the sentinels; empty: not through Sentinel
    QString sentinelUser;      // the sentinels' own credentials (--sentinel-user, --sentinel-password)
    QString sentinelPassword;
    std::shared_ptr<EndpointRoute> route;  // an SSH tunnel's; none: straight to each node

    /** The address a connection to `node` goes to: the route's, or the node itself. */
    RedisEndpoint connectAddress(const RedisEndpoint &node) const { return route ? route->route(node) : node; }
    /** Throws InvalidInputError with a message naming what is wrong. */
    static RedisUrl parse(const QString &text);
    /** The URL without its password, for messages and logs. */
    QString redacted() const;
    /** Every node the URL names, host:port first. */
    QList<RedisEndpoint> seeds() const;
    bool isSeedList() const { return !moreSeeds.isEmpty() && !isSentinel(); }
    bool isSentinel() const { return !sentinelMaster.isEmpty(); }

private:
    /** One node or a comma-separated list of them, each node's port defaulting to `defaultPort`. */
    static RedisUrl parseNodes(const QString &text, int defaultPort);
};

} // namespace lantern
