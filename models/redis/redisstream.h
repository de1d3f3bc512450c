#pragma once

#include "redis/redishandles.h"
#include "redis/redisurl.h"

#include <QCoreApplication>
#include <QString>

#include <chrono>
#include <memory>
#include <vector>

#include <sys/socket.h>

namespace lantern {

/** The transport under both Redis clients (the blocking RedisConnection and the event loops'
    RedisPipeNode): one connected byte stream to one node, plain TCP or TLS (an SSH channel would
    be a third). The clients speak RESP over it and own what they queue; the stream only moves
    bytes and says, when a call could not go on, whether it waits for the socket to become
    writable or readable. On a blocking socket (makeBlocking()) a call that returns 0 means the
    timeout passed. Errors throw RedisIoError (RedisTlsError for TLS) naming the node. */
class RedisStream {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisClient)

public:
    /** Plain TCP, or TLS when `tls.enabled`. */
    static std::unique_ptr<RedisStream> over(UniqueFd fd, const RedisEndpoint &endpoint, const RedisTlsOptions &tls);

    virtual ~RedisStream();
    RedisStream(const RedisStream &) = delete;
    RedisStream &operator=(const RedisStream &) = delete;

    /** Advances the stream's own set-up (the TLS handshake and the certificate check): true once
        it is done, false while it waits (waitsForWrite()). Plain TCP has none. */
    virtual bool establish() { return true; }
    /** Up to `size` bytes read; 0 when none are there yet. Throws when the peer closed. */
    virtual size_t readSome(char *buffer, size_t size) = 0;
    /** Up to `size` bytes written; 0 when the socket takes none now. */
    virtual size_t writeSome(const char *data, size_t size) = 0;
    /** Bytes already received and decoded that readSome() returns without the socket (TLS). */
    virtual bool hasBuffered() const { return false; }
    /** For a per-hop report: "TLSv1.3, certificate CN=..., valid until ..."; empty for plain TCP. */
    virtual QString summary() const { return {}; }
    /** Whether the last call that returned 0 (or false) waits for the socket to be writable. */
    bool waitsForWrite() const { return m_waitsForWrite; }

    int fd() const { return m_fd.get(); }
    const RedisEndpoint &endpoint() const { return m_endpoint; }
    /** Blocking from now on, each read and write bounded by `timeout` (the blocking client). */
    void makeBlocking(std::chrono::milliseconds timeout);

protected:
    RedisStream(UniqueFd fd, RedisEndpoint endpoint);
    /** Throws RedisIoError "Redis at host:port <what>". */
    [[noreturn]] void fail(const QString &what) const;

    UniqueFd m_fd;
    RedisEndpoint m_endpoint;
    bool m_waitsForWrite = false;
};

/** What a node's host resolves to, tried in order (localhost: ::1, then 127.0.0.1), and the
    non-blocking connect to each: shared by both clients. */
class TcpAddresses final {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisClient)

public:
    /** Resolves now (getaddrinfo): call with IP addresses from a hot path. */
    explicit TcpAddresses(const RedisEndpoint &endpoint);

    size_t size() const { return m_addresses.size(); }
    /** Why the host could not be resolved (when size() is 0). */
    const QString &resolveError() const { return m_resolveError; }
    /** A non-blocking socket connecting to address `index`; `connected` when it already is.
        An invalid fd when it failed at once, with errno in `error`. */
    UniqueFd connect(size_t index, bool &connected, int &error) const;
    /** The outcome of a connect in progress once its socket is writable: 0 or an errno. */
    static int connectOutcome(int fd);

private:
    struct Address {
        sockaddr_storage storage{};
        socklen_t length = 0;
    };
    std::vector<Address> m_addresses;
    QString m_resolveError;
};

/** strerror(error) in the locale's words. */
QString errnoText(int error);

} // namespace lantern
