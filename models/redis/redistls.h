#pragma once

#include "redis/redishandles.h"

#include <QCoreApplication>
#include <QString>

#include <memory>

namespace lantern {

class RedisStream;
struct RedisEndpoint;

/** How a Redis is reached over TLS: the rediss:// scheme switches it on, the global options
    --redis-ca, --redis-cert, --redis-key, --redis-sni and --redis-verify (LANTERN_REDIS_CA, ...)
    fill the rest (docs/connect.md). Every connection of every path (commands, workers, serve's
    event loops, the console, each cluster node) uses the same. */
struct RedisTlsOptions {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisTlsOptions)

public:
    enum class Verify {
        Full,  // the chain up to a trusted CA and the host name or IP connected to (the default)
        Ca,    // the chain only: for clusters that announce IPs while their certificates name hosts
        None,  // nothing: anyone on the path can read and change the traffic (said on stderr)
    };

    bool enabled = false;  // rediss://
    QString caFile;        // PEM file of the CAs to trust; empty: the system's (/etc/ssl/certs)
    QString certFile;      // client certificate for mutual TLS (PEM, chain allowed)
    QString keyFile;       // its private key (PEM, not encrypted)
    QString serverName;    // sent as SNI and checked instead of the host connected to; empty: the host
    Verify verify = Verify::Full;

    bool operator==(const RedisTlsOptions &other) const = default;

    /** "full", "ca" or "none"; throws InvalidInputError naming `source` otherwise. */
    static Verify parseVerify(const QString &text, const QString &source);
    static QString verifyName(Verify verify);
    /** Throws InvalidInputError when files are given without TLS, or a key without its certificate. */
    void check() const;
    /** Plain words for stderr and the console when the server is not checked; empty otherwise. */
    QString warning(const QString &redacted) const;
};

/** Starts TLS on a connected socket to `endpoint`: the handshake runs in RedisStream::establish(),
    then the server's certificate is checked as `options.verify` says. Throws InvalidInputError
    for a CA, certificate or key file that cannot be used. */
std::unique_ptr<RedisStream> startTls(UniqueFd fd, const RedisEndpoint &endpoint, const RedisTlsOptions &options);

} // namespace lantern
