#pragma once

#include "core/errors.h"
#include "redis/redisurl.h"
#include "redis/redisvalue.h"

#include <QByteArrayList>
#include <QCoreApplication>
#include <QList>

#include <chrono>
#include <memory>

struct redisContext;

namespace lantern {

struct RedisOptions {
    std::chrono::milliseconds connectTimeout{1000};  // TCP connect + AUTH/SELECT
    std::chrono::milliseconds commandTimeout{3000};  // per reply
    bool readOnly = false;  // only commands that read (RedisClient::isReadCommand) are sent
};

/** A read-only client refused to send a command that could write (exit 4, like any refusal).
    Nothing of the refused command or pipeline reached the server. */
class RedisReadOnlyError final : public RefusedError {
public:
    using RefusedError::RefusedError;
};

/** A blocking Redis connection over hiredis, for one thread at a time.
    Connects lazily (AUTH and SELECT from the URL); any I/O error or timeout discards the
    context, throws RedisIoError/RedisTimeoutError, and the next call reconnects. A server that
    answers it cannot serve yet (loading, busy, ...) throws RedisNotReadyError and keeps the
    context. */
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

    /** Connects now if not connected (throws like command()). */
    void ensureConnected();
    bool isConnected() const { return m_context != nullptr; }
    const RedisUrl &url() const { return m_url; }
    bool isReadOnly() const { return m_options.readOnly; }
    /** Whether `args` only reads: an allow-list of read commands (GET, HGETALL, SCAN, PING,
        BITFIELD_RO, ...), plus BITFIELD when every operation is a GET. Scripts (EVAL, EVALSHA,
        SCRIPT), writes and administration are not reads. */
    static bool isReadCommand(const QByteArrayList &args);
    /** Round trips made so far (one per command() or pipeline()), for tests and benchmarks. */
    quint64 roundTrips() const { return m_roundTrips; }

private:
    struct ContextDeleter {
        void operator()(redisContext *context) const;
    };
    using ContextPtr = std::unique_ptr<redisContext, ContextDeleter>;

    [[noreturn]] void failIo(const QString &during);
    void refuseUnlessRead(const QByteArrayList &args) const;
    void appendCommand(const QByteArrayList &args);
    RedisValue readReply();

    RedisUrl m_url;
    RedisOptions m_options;
    ContextPtr m_context;
    quint64 m_roundTrips = 0;
};

} // namespace lantern
