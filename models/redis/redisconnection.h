#pragma once

#include "redis/redisoptions.h"
#include "redis/redisurl.h"
#include "redis/redisvalue.h"

#include <QByteArrayList>
#include <QCoreApplication>
#include <QList>

#include <memory>
#include <string>
#include <vector>

namespace lantern {

class RedisStream;
class RespReader;

/** One blocking connection to one Redis node: a RedisStream (plain TCP or TLS, within the
    connect timeout), the URL's AUTH and SELECT (RedisHandshake), RESP written by us and read by
    hiredis's reader (RespReader). Any I/O error or timeout closes it and throws
    RedisIoError/RedisTimeoutError (RedisTlsError) naming the node; the next open() connects
    again. RedisClient holds one (a single server) or one per node (a cluster). */
class RedisConnection final {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisClient)

public:
    RedisConnection(RedisEndpoint endpoint, const RedisUrl &url, const RedisOptions &options);
    ~RedisConnection();
    RedisConnection(RedisConnection &&) noexcept;
    RedisConnection &operator=(RedisConnection &&) noexcept;

    /** Connects and runs the handshake, one round trip: AUTH (URL credentials), then `probes`,
        then SELECT (URL database, when not 0). Returns the probes' replies, errors as values. A
        refused AUTH or SELECT throws (RedisHandshake::judge) and closes again. */
    std::vector<RedisValue> open(const QList<QByteArrayList> &probes = {});
    bool isOpen() const { return m_stream != nullptr; }
    /** Open, and not hung up by the server while it sat idle: a connection left unused for a
        while (between a worker's beats, a console's refreshes) whose server restarted, failed
        over or timed it out has the server's FIN waiting, and the next command on it would fail.
        Asked before anything is sent, so the caller can open() afresh and nothing runs twice.
        One poll() with no wait, only after RedisOptions::idleBeforeHangUpCheck: a busy connection
        pays nothing. */
    bool isUsable() const;
    void close();

    /** Queues a command in the output buffer (nothing is written yet). */
    void append(const QByteArrayList &args);
    /** Writes everything queued, in as few write()s as the socket allows. */
    void flush();
    /** Reads the next reply (writing what is queued first). */
    RedisValue read();

    const RedisEndpoint &endpoint() const { return m_endpoint; }
    /** TLS: protocol, the server's certificate and its expiry (empty for plain TCP or closed). */
    QString transportSummary() const;

private:
    /** TCP to the first address that accepts, then TLS, all within the connect timeout. */
    void connectStream();

    RedisEndpoint m_endpoint;
    RedisUrl m_url;  // credentials, database and TLS, and for messages
    RedisOptions m_options;
    std::unique_ptr<RedisStream> m_stream;
    std::unique_ptr<RespReader> m_reader;
    std::string m_out;  // RESP queued by append()
    qint64 m_lastReplyNs = 0;  // monotonic: when the last reply was read
};

} // namespace lantern
