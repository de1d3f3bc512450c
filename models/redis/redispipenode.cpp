#include "redis/redispipenode.h"

#include "core/monotonicclock.h"
#include "redis/rediserror.h"
#include "redis/resp.h"

#include <hiredis/hiredis.h>

#include <QList>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

namespace lantern {

namespace {

qint64 nsOf(std::chrono::milliseconds ms)
{
    return qint64(ms.count()) * 1'000'000;
}

QString errnoText(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

constexpr size_t ReplyReadChunk = 64 * 1024;

} // namespace

RedisPipeNode::RedisPipeNode(RedisEndpoint endpoint, const RedisUrl &url, RedisOptions options, Sink &sink)
    : m_endpoint(std::move(endpoint)), m_url(url), m_options(options), m_sink(sink)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    const QByteArray host = m_endpoint.host.toUtf8();
    const QByteArray port = QByteArray::number(m_endpoint.port);
    if (const int status = ::getaddrinfo(host.constData(), port.constData(), &hints, &found); status != 0 || !found) {
        m_resolveError = QString::fromLocal8Bit(::gai_strerror(status));
        return;
    }
    for (const addrinfo *entry = found; entry; entry = entry->ai_next) {
        Address address;
        std::memcpy(&address.storage, entry->ai_addr, entry->ai_addrlen);
        address.length = entry->ai_addrlen;
        m_addresses.push_back(address);
    }
    ::freeaddrinfo(found);
}

RedisPipeNode::~RedisPipeNode()
{
    closeSocket();
}

void RedisPipeNode::closeSocket()
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    m_connecting = false;
    if (m_reader)
        redisReaderFree(m_reader);
    m_reader = nullptr;
}

void RedisPipeNode::send(const std::shared_ptr<RedisPipeJob> &job, qsizetype index, const QByteArrayList &command)
{
    appendRespCommand(m_out, command);
    m_waiting.push_back({job, index, monotonicNs() + nsOf(m_options.commandTimeout), Purpose::Command});
    ++m_commandsSent;
}

void RedisPipeNode::sendAsking()
{
    appendRespCommand(m_out, {QByteArrayLiteral("ASKING")});
    m_waiting.push_back({nullptr, 0, monotonicNs() + nsOf(m_options.commandTimeout), Purpose::Asking});
    ++m_commandsSent;
}

qint64 RedisPipeNode::nextDeadlineNs() const
{
    if (m_connecting)
        return m_connectDeadlineNs;
    return m_waiting.empty() ? -1 : m_waiting.front().deadlineNs;
}

void RedisPipeNode::flush(qint64 nowNs)
{
    if (m_waiting.empty())
        return;
    if (m_fd < 0)
        connect(nowNs);
    if (m_fd >= 0 && !m_connecting)
        writeQueued();
}

void RedisPipeNode::connect(qint64 nowNs)
{
    if (m_addresses.empty()) {
        failAll(ioError(tr("cannot be resolved: %1").arg(m_resolveError)));
        return;
    }
    const Address &address = m_addresses.at(m_addressIndex);
    const int fd = ::socket(address.storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        connectFailed(nowNs, errno);
        return;
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    m_fd = fd;
    ++m_generation;
    m_reader = redisReaderCreate();
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&address.storage), address.length) == 0) {
        connected();
        return;
    }
    if (errno != EINPROGRESS) {
        connectFailed(nowNs, errno);
        return;
    }
    m_connecting = true;
    m_connectDeadlineNs = nowNs + nsOf(m_options.connectTimeout);
}

void RedisPipeNode::connectFailed(qint64 nowNs, int error)
{
    closeSocket();
    if (++m_addressIndex < m_addresses.size()) {
        connect(nowNs);  // a name with several addresses (localhost: ::1, then 127.0.0.1)
        return;
    }
    m_addressIndex = 0;
    failAll(ioError(tr("is unreachable: %1").arg(errnoText(error))));
}

void RedisPipeNode::connected()
{
    m_connecting = false;
    // AUTH and SELECT go first, ahead of everything queued while there was no connection.
    std::string handshake;
    QList<QByteArrayList> commands;
    if (!m_url.password.isEmpty()) {
        QByteArrayList auth{QByteArrayLiteral("AUTH")};
        if (!m_url.user.isEmpty())
            auth << m_url.user.toUtf8();
        auth << m_url.password.toUtf8();
        commands << auth;
    }
    if (m_url.db != 0)
        commands << QByteArrayList{QByteArrayLiteral("SELECT"), QByteArray::number(m_url.db)};
    const qint64 deadline = monotonicNs() + nsOf(m_options.commandTimeout);
    for (qsizetype i = commands.size() - 1; i >= 0; --i)
        m_waiting.push_front({nullptr, 0, deadline, Purpose::Handshake});
    for (const QByteArrayList &command : std::as_const(commands))
        appendRespCommand(handshake, command);
    m_out.insert(0, handshake);
}

void RedisPipeNode::writeQueued()
{
    while (m_written < m_out.size()) {
        const ssize_t n = ::send(m_fd, m_out.data() + m_written, m_out.size() - m_written, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;  // wantsWrite(): the loop calls onWritable()
            failAll(ioError(tr("failed while sending: %1").arg(errnoText(errno))));
            return;
        }
        ++m_writeCalls;
        m_written += size_t(n);
    }
    m_out.clear();
    m_written = 0;
}

void RedisPipeNode::onWritable(qint64 nowNs)
{
    if (m_fd < 0)
        return;
    if (m_connecting) {
        int error = 0;
        socklen_t length = sizeof error;
        ::getsockopt(m_fd, SOL_SOCKET, SO_ERROR, &error, &length);
        if (error != 0) {
            connectFailed(nowNs, error);
            return;
        }
        connected();
    }
    writeQueued();
}

void RedisPipeNode::onReadable(qint64 nowNs)
{
    Q_UNUSED(nowNs)
    if (m_fd < 0 || m_connecting)
        return;
    char buffer[ReplyReadChunk];
    for (;;) {
        const ssize_t n = ::read(m_fd, buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            failAll(ioError(tr("failed while reading a reply: %1").arg(errnoText(errno))));
            return;
        }
        if (n == 0) {
            failAll(ioError(tr("closed the connection")));
            return;
        }
        if (redisReaderFeed(m_reader, buffer, size_t(n)) != REDIS_OK) {
            failAll(ioError(tr("sent a reply that cannot be read: %1").arg(QString::fromUtf8(m_reader->errstr))));
            return;
        }
        if (size_t(n) < sizeof buffer)
            break;
    }
    for (;;) {
        void *raw = nullptr;
        if (redisReaderGetReply(m_reader, &raw) != REDIS_OK) {
            failAll(ioError(tr("sent a reply that cannot be read: %1").arg(QString::fromUtf8(m_reader->errstr))));
            return;
        }
        if (!raw)
            return;
        RedisValue value;
        try {
            value = toRedisValue(static_cast<const redisReply *>(raw));
        } catch (...) {
            freeReplyObject(raw);
            failAll(std::current_exception());
            return;
        }
        freeReplyObject(raw);
        if (m_waiting.empty()) {
            failAll(ioError(tr("sent a reply nobody asked for")));
            return;
        }
        Waiting waiting = std::move(m_waiting.front());
        m_waiting.pop_front();
        deliver(std::move(waiting), std::move(value));
        if (m_fd < 0)
            return;  // the handshake was refused: everything failed
    }
}

void RedisPipeNode::deliver(Waiting waiting, RedisValue reply)
{
    switch (waiting.purpose) {
    case Purpose::Handshake:
        if (const auto notReady = reply.isError() ? RedisNotReadyError::stateOf(reply.string) : std::nullopt) {
            failAll(std::make_exception_ptr(RedisNotReadyError::at(*notReady, m_endpoint.host, m_endpoint.port)));
        } else if (reply.isError()) {
            const QString message = reply.string.contains("DB index is out of range")
                    ? tr("has no database %1").arg(m_url.db)
                    : tr("rejected the connection: %1").arg(QString::fromUtf8(reply.string));
            failAll(ioError(message));
        }
        return;
    case Purpose::Asking:
        return;  // +OK; the command after it answers for itself
    case Purpose::Command:
        m_sink.onReply(*this, waiting.job, waiting.index, std::move(reply));
        return;
    }
}

void RedisPipeNode::checkTimeouts(qint64 nowNs)
{
    if (m_connecting && nowNs >= m_connectDeadlineNs) {
        failAll(timeoutError(tr("did not accept the connection within %1 ms").arg(m_options.connectTimeout.count())));
        return;
    }
    const qint64 deadline = nextDeadlineNs();
    if (m_fd >= 0 && deadline >= 0 && nowNs >= deadline)
        failAll(timeoutError(tr("did not answer within %1 ms").arg(m_options.commandTimeout.count())));
}

void RedisPipeNode::failAll(std::exception_ptr error)
{
    closeSocket();
    m_out.clear();
    m_written = 0;
    std::deque<Waiting> waiting;
    waiting.swap(m_waiting);
    // The sink may start new work here: it waits for the next flush().
    for (Waiting &entry : waiting) {
        if (entry.job)
            m_sink.onFailure(entry.job, error);
    }
}

std::exception_ptr RedisPipeNode::ioError(const QString &what) const
{
    return std::make_exception_ptr(RedisIoError(tr("Redis at %1 %2").arg(m_endpoint.text(), what)));
}

std::exception_ptr RedisPipeNode::timeoutError(const QString &what) const
{
    return std::make_exception_ptr(RedisTimeoutError(tr("Redis at %1 %2").arg(m_endpoint.text(), what)));
}

} // namespace lantern
