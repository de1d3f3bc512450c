#include "redis/redisconnection.h"

#include "core/errors.h"
#include "redis/rediserror.h"
#include "redis/resp.h"

#include <hiredis/hiredis.h>

#include <cerrno>
#include <string>

namespace lantern {

namespace {

struct ConnectionReplyDeleter {
    void operator()(redisReply *reply) const { freeReplyObject(reply); }
};

timeval toTimeval(std::chrono::milliseconds ms)
{
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
    return tv;
}

} // namespace

void RedisConnection::ContextDeleter::operator()(redisContext *context) const
{
    redisFree(context);
}

RedisConnection::RedisConnection(RedisEndpoint endpoint, const RedisUrl &url, const RedisOptions &options)
    : m_endpoint(std::move(endpoint)), m_url(url), m_options(options)
{
}

RedisConnection::~RedisConnection() = default;
RedisConnection::RedisConnection(RedisConnection &&) noexcept = default;
RedisConnection &RedisConnection::operator=(RedisConnection &&) noexcept = default;

void RedisConnection::close()
{
    m_context.reset();
}

void RedisConnection::failIo(const QString &during)
{
    const int savedErrno = errno;
    const QString detail = m_context ? QString::fromLocal8Bit(m_context->errstr) : tr("out of memory");
    // hiredis 0.14 reports a read timeout as an I/O error with errno EAGAIN ("Resource temporarily
    // unavailable") and a connect timeout as "Connection timed out".
    const bool timedOut = savedErrno == EAGAIN || savedErrno == EWOULDBLOCK || savedErrno == ETIMEDOUT
            || detail.contains(QLatin1String("timed out")) || detail.contains(QLatin1String("temporarily unavailable"));
    m_context.reset();
    const QString message = tr("Redis at %1:%2 %3: %4").arg(m_endpoint.host).arg(m_endpoint.port).arg(during, timedOut ? tr("timed out") : detail);
    if (timedOut)
        throw RedisTimeoutError(message);
    throw RedisIoError(message);
}

std::vector<RedisValue> RedisConnection::open(const QList<QByteArrayList> &probes)
{
    const QByteArray host = m_endpoint.host.toUtf8();
    errno = 0;
    m_context.reset(redisConnectWithTimeout(host.constData(), m_endpoint.port, toTimeval(m_options.connectTimeout)));
    if (!m_context || m_context->err)
        failIo(tr("is unreachable"));
    if (redisSetTimeout(m_context.get(), toTimeval(m_options.commandTimeout)) != REDIS_OK)
        failIo(tr("refused a timeout"));

    QList<QByteArrayList> handshake;
    const bool auth = !m_url.password.isEmpty();
    if (auth) {
        QByteArrayList command{QByteArrayLiteral("AUTH")};
        if (!m_url.user.isEmpty())
            command << m_url.user.toUtf8();
        command << m_url.password.toUtf8();
        handshake << command;
    }
    handshake << probes;
    if (m_url.db != 0)
        handshake << QByteArrayList{QByteArrayLiteral("SELECT"), QByteArray::number(m_url.db)};
    if (handshake.isEmpty())
        return {};
    for (const auto &args : handshake)
        append(args);
    std::vector<RedisValue> replies;
    for (qsizetype i = 0; i < handshake.size(); ++i)
        replies.push_back(read());

    std::vector<RedisValue> probeReplies;
    for (qsizetype i = 0; i < handshake.size(); ++i) {
        RedisValue &reply = replies[size_t(i)];
        const bool isProbe = i >= (auth ? 1 : 0) && i < (auth ? 1 : 0) + probes.size();
        if (isProbe) {
            probeReplies.push_back(std::move(reply));
            continue;
        }
        if (!reply.isError())
            continue;
        m_context.reset();
        if (const auto state = RedisNotReadyError::stateOf(reply.string))
            throw RedisNotReadyError::at(*state, m_endpoint.host, m_endpoint.port);  // SELECT during a long script: -BUSY
        if (reply.string.contains("DB index is out of range"))
            throw InvalidInputError(tr("invalid Redis URL: %1 has no database %2").arg(m_url.redacted()).arg(m_url.db));
        if (reply.string.contains("not allowed in cluster mode"))
            throw InvalidInputError(tr("invalid Redis URL: %1 is a Redis Cluster node, and a cluster has only database 0; "
                                       "leave the database out of the URL")
                                            .arg(m_url.redacted()));
        throw RedisIoError(tr("Redis at %1:%2 rejected the connection: %3")
                                   .arg(m_endpoint.host)
                                   .arg(m_endpoint.port)
                                   .arg(QString::fromUtf8(reply.string)));
    }
    return probeReplies;
}

void RedisConnection::append(const QByteArrayList &args)
{
    thread_local std::string resp;
    resp.clear();
    appendRespCommand(resp, args);
    if (redisAppendFormattedCommand(m_context.get(), resp.data(), resp.size()) != REDIS_OK)
        failIo(tr("failed while sending"));
}

void RedisConnection::flush()
{
    int done = 0;
    errno = 0;
    while (!done) {
        if (redisBufferWrite(m_context.get(), &done) != REDIS_OK)
            failIo(tr("failed while sending"));
    }
}

RedisValue RedisConnection::read()
{
    void *raw = nullptr;
    errno = 0;
    if (redisGetReply(m_context.get(), &raw) != REDIS_OK || raw == nullptr)
        failIo(tr("failed while reading a reply"));
    const std::unique_ptr<redisReply, ConnectionReplyDeleter> reply(static_cast<redisReply *>(raw));
    return toRedisValue(reply.get());
}

} // namespace lantern
