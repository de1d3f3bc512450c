#pragma once

#include "redis/redisoptions.h"
#include "redis/redisurl.h"
#include "redis/redisvalue.h"

#include <QByteArrayList>
#include <QCoreApplication>
#include <QList>

#include <memory>
#include <vector>

struct redisContext;

namespace lantern {

/** One blocking hiredis connection to one Redis node, with the URL's AUTH and SELECT. Any I/O
    error or timeout discards the context and throws RedisIoError/RedisTimeoutError naming the
    node; the next open() connects again. RedisClient holds one (a single server) or one per
    node (a cluster). */
class RedisConnection final {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisClient)

public:
    RedisConnection(RedisEndpoint endpoint, const RedisUrl &url, const RedisOptions &options);
    ~RedisConnection();
    RedisConnection(RedisConnection &&) noexcept;
    RedisConnection &operator=(RedisConnection &&) noexcept;

    /** Connects and runs the handshake, one round trip: AUTH (URL credentials), then `probes`,
        then SELECT (URL database, when not 0). Returns the probes' replies, errors as values. A
        refused AUTH or SELECT throws (RedisIoError, InvalidInputError for a database the server
        lacks, RedisNotReadyError for a server that cannot serve yet) and closes again. */
    std::vector<RedisValue> open(const QList<QByteArrayList> &probes = {});
    bool isOpen() const { return m_context != nullptr; }
    void close();

    /** Queues a command in the output buffer (nothing is written yet). */
    void append(const QByteArrayList &args);
    /** Writes everything queued, in as few write()s as the socket allows. */
    void flush();
    /** Reads the next reply (writing what is queued first). */
    RedisValue read();

    const RedisEndpoint &endpoint() const { return m_endpoint; }

private:
    struct ContextDeleter {
        void operator()(redisContext *context) const;
    };
    using ContextPtr = std::unique_ptr<redisContext, ContextDeleter>;

    [[noreturn]] void failIo(const QString &during);

    RedisEndpoint m_endpoint;
    RedisUrl m_url;  // credentials and database, and for messages
    RedisOptions m_options;
    ContextPtr m_context;
};

} // namespace lantern
