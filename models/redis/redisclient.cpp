#include "redis/redisclient.h"

#include "redis/rediserror.h"
#include "redis/resp.h"

#include <hiredis/hiredis.h>

#include <QSet>

#include <cerrno>
#include <string>
#include <vector>

namespace lantern {

namespace {

struct ReplyDeleter {
    void operator()(redisReply *reply) const { freeReplyObject(reply); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

timeval toTimeval(std::chrono::milliseconds ms)
{
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
    return tv;
}

} // namespace

void throwOnErrorReply(const std::vector<RedisValue> &replies)
{
    for (const RedisValue &reply : replies) {
        if (reply.isError())
            throw RedisReplyError(QString::fromUtf8(reply.string));
    }
}

long long RedisValue::toInteger() const
{
    if (type == Type::Integer)
        return integer;
    if (type == Type::String || type == Type::Status) {
        bool ok = false;
        const long long parsed = string.toLongLong(&ok);
        if (ok)
            return parsed;
    }
    throw RedisReplyError(QCoreApplication::translate("lantern::RedisClient", "expected an integer reply from Redis"));
}

QByteArray RedisValue::toBytes() const
{
    if (type == Type::String || type == Type::Status || type == Type::Nil)
        return string;
    if (type == Type::Integer)
        return QByteArray::number(integer);
    throw RedisReplyError(QCoreApplication::translate("lantern::RedisClient", "expected a string reply from Redis"));
}

void RedisClient::ContextDeleter::operator()(redisContext *context) const
{
    redisFree(context);
}

RedisClient::RedisClient(RedisUrl url, RedisOptions options) : m_url(std::move(url)), m_options(options) {}
RedisClient::~RedisClient() = default;
RedisClient::RedisClient(RedisClient &&) noexcept = default;
RedisClient &RedisClient::operator=(RedisClient &&) noexcept = default;

void RedisClient::failIo(const QString &during)
{
    const int savedErrno = errno;
    const QString detail = m_context ? QString::fromLocal8Bit(m_context->errstr) : tr("out of memory");
    // hiredis 0.14 reports a read timeout as an I/O error with errno EAGAIN ("Resource temporarily
    // unavailable") and a connect timeout as "Connection timed out".
    const bool timedOut = savedErrno == EAGAIN || savedErrno == EWOULDBLOCK || savedErrno == ETIMEDOUT
            || detail.contains(QLatin1String("timed out")) || detail.contains(QLatin1String("temporarily unavailable"));
    m_context.reset();
    const QString message = tr("Redis at %1:%2 %3: %4").arg(m_url.host).arg(m_url.port).arg(during, timedOut ? tr("timed out") : detail);
    if (timedOut)
        throw RedisTimeoutError(message);
    throw RedisIoError(message);
}

void RedisClient::ensureConnected()
{
    if (m_context)
        return;
    const QByteArray host = m_url.host.toUtf8();
    errno = 0;
    m_context.reset(redisConnectWithTimeout(host.constData(), m_url.port, toTimeval(m_options.connectTimeout)));
    if (!m_context || m_context->err)
        failIo(tr("is unreachable"));
    if (redisSetTimeout(m_context.get(), toTimeval(m_options.commandTimeout)) != REDIS_OK)
        failIo(tr("refused a timeout"));

    QList<QByteArrayList> handshake;
    if (!m_url.password.isEmpty()) {
        QByteArrayList auth{QByteArrayLiteral("AUTH")};
        if (!m_url.user.isEmpty())
            auth << m_url.user.toUtf8();
        auth << m_url.password.toUtf8();
        handshake << auth;
    }
    if (m_url.db != 0)
        handshake << QByteArrayList{QByteArrayLiteral("SELECT"), QByteArray::number(m_url.db)};
    if (handshake.isEmpty())
        return;
    for (const auto &args : handshake)
        appendCommand(args);
    for (qsizetype i = 0; i < handshake.size(); ++i) {
        const RedisValue reply = readReply();
        if (reply.isError()) {
            m_context.reset();
            if (const auto state = RedisNotReadyError::stateOf(reply.string))
                throw RedisNotReadyError::at(*state, m_url.host, m_url.port);  // SELECT during a long script: -BUSY
            if (reply.string.contains("DB index is out of range"))
                throw InvalidInputError(tr("invalid Redis URL: %1 has no database %2").arg(m_url.redacted()).arg(m_url.db));
            throw RedisIoError(tr("Redis at %1:%2 rejected the connection: %3")
                                       .arg(m_url.host)
                                       .arg(m_url.port)
                                       .arg(QString::fromUtf8(reply.string)));
        }
    }
}

void RedisClient::appendCommand(const QByteArrayList &args)
{
    thread_local std::string resp;
    resp.clear();
    appendRespCommand(resp, args);
    if (redisAppendFormattedCommand(m_context.get(), resp.data(), resp.size()) != REDIS_OK)
        failIo(tr("failed while sending"));
}

RedisValue RedisClient::readReply()
{
    void *raw = nullptr;
    errno = 0;
    if (redisGetReply(m_context.get(), &raw) != REDIS_OK || raw == nullptr)
        failIo(tr("failed while reading a reply"));
    const ReplyPtr reply(static_cast<redisReply *>(raw));
    return toRedisValue(reply.get());
}

RedisValue RedisClient::command(const QByteArrayList &args)
{
    std::vector<RedisValue> replies = pipeline({args});
    RedisValue &reply = replies.front();
    if (reply.isError())
        throw RedisReplyError(QString::fromUtf8(reply.string));
    return std::move(reply);
}

bool RedisClient::isReadCommand(const QByteArrayList &args)
{
    static const QSet<QByteArray> reads{
            "GET",       "MGET",      "STRLEN",     "GETRANGE",     "SUBSTR",      "EXISTS",     "TTL",
            "PTTL",      "EXPIRETIME", "PEXPIRETIME", "TYPE",        "SCAN",        "PING",       "ECHO",
            "INFO",      "TIME",      "DBSIZE",     "HGET",         "HMGET",       "HGETALL",    "HLEN",
            "HEXISTS",   "HKEYS",     "HVALS",      "HSTRLEN",      "HSCAN",       "HRANDFIELD", "LLEN",
            "LINDEX",    "LRANGE",    "LPOS",       "SMEMBERS",     "SCARD",       "SISMEMBER",  "SMISMEMBER",
            "SSCAN",     "SRANDMEMBER", "SINTER",   "SUNION",       "SDIFF",       "SINTERCARD", "ZCARD",
            "ZSCORE",    "ZMSCORE",   "ZRANK",      "ZREVRANK",     "ZCOUNT",      "ZRANGE",     "ZREVRANGE",
            "ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZLEXCOUNT", "ZSCAN",
            "XLEN",      "XRANGE",    "XREVRANGE",  "BITFIELD_RO",  "GETBIT",      "BITCOUNT",   "BITPOS"};
    if (args.isEmpty())
        return false;
    const QByteArray name = args.first().toUpper();
    if (reads.contains(name))
        return true;
    if (name == "BITFIELD") {  // BITFIELD key GET type offset [GET type offset ...]
        if (args.size() < 5 || (args.size() - 2) % 3 != 0)
            return false;
        for (qsizetype i = 2; i < args.size(); i += 3) {
            if (args.at(i).toUpper() != "GET")
                return false;
        }
        return true;
    }
    return false;
}

void RedisClient::refuseUnlessRead(const QByteArrayList &args) const
{
    if (isReadCommand(args))
        return;
    const QString name = args.isEmpty() ? QString() : QString::fromUtf8(args.first().toUpper().left(32));
    throw RedisReadOnlyError(tr("read-only connection (setting read-only): %1 was not sent to %2; only read commands are allowed")
                                     .arg(name, m_url.redacted()));
}

std::vector<RedisValue> RedisClient::pipeline(const QList<QByteArrayList> &commands)
{
    if (m_options.readOnly) {
        for (const auto &args : commands)
            refuseUnlessRead(args);  // before anything is sent: all or nothing
    }
    ensureConnected();
    ++m_roundTrips;
    for (const auto &args : commands)
        appendCommand(args);
    std::vector<RedisValue> replies;
    replies.reserve(static_cast<size_t>(commands.size()));
    for (qsizetype i = 0; i < commands.size(); ++i)
        replies.push_back(readReply());
    // Every reply is read first, so the connection stays in step and is kept.
    for (const RedisValue &reply : replies) {
        if (!reply.isError())
            continue;
        if (const auto state = RedisNotReadyError::stateOf(reply.string))
            throw RedisNotReadyError::at(*state, m_url.host, m_url.port);
    }
    return replies;
}

} // namespace lantern
