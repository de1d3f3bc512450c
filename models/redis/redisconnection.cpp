#include "redis/redisconnection.h"

#include "core/monotonicclock.h"
#include "redis/rediserror.h"
#include "redis/redishandshake.h"
#include "redis/redisstream.h"
#include "redis/resp.h"

#include <cerrno>

#include <poll.h>

namespace lantern {

namespace {

constexpr size_t ReadChunk = 16 * 1024;

/** Waits until `fd` is readable (or writable) or `deadlineNs` passes: false when it passed. */
bool waitUntil(int fd, bool write, qint64 deadlineNs)
{
    for (;;) {
        const qint64 left = deadlineNs - monotonicNs();
        if (left <= 0)
            return false;
        pollfd entry{fd, short(write ? POLLOUT : POLLIN), 0};
        const int ready = ::poll(&entry, 1, int((left + 999'999) / 1'000'000));
        if (ready > 0)
            return true;  // ready, or an error the next call reports
        if (ready < 0 && errno != EINTR)
            return true;
    }
}

} // namespace

RedisConnection::RedisConnection(RedisEndpoint endpoint, const RedisUrl &url, const RedisOptions &options)
    : m_endpoint(std::move(endpoint)), m_url(url), m_options(options)
{
}

RedisConnection::~RedisConnection() = default;
RedisConnection::RedisConnection(RedisConnection &&) noexcept = default;
RedisConnection &RedisConnection::operator=(RedisConnection &&) noexcept = default;

bool RedisConnection::isUsable() const
{
    if (!m_stream)
        return false;
    if (!m_out.empty() || monotonicNs() - m_lastReplyNs < qint64(m_options.idleBeforeHangUpCheck.count()) * 1000)
        return true;
    // POLLRDHUP: the server's FIN (or a reset) has arrived. Bytes alone (POLLIN) are not a hang-up:
    // over TLS the server may have sent session tickets nobody has read yet.
    pollfd entry{m_stream->fd(), POLLRDHUP, 0};
    return ::poll(&entry, 1, 0) <= 0 || (entry.revents & (POLLRDHUP | POLLHUP | POLLERR)) == 0;
}

void RedisConnection::close()
{
    m_stream.reset();
    m_reader.reset();
    m_out.clear();
}

QString RedisConnection::transportSummary() const
{
    return m_stream ? m_stream->summary() : QString();
}

void RedisConnection::connectStream()
{
    const qint64 deadline = monotonicNs() + qint64(m_options.connectTimeout.count()) * 1'000'000;
    const TcpAddresses addresses(m_url.connectAddress(m_endpoint));
    if (addresses.size() == 0)
        throw RedisIoError(tr("Redis at %1 is unreachable: %2").arg(m_endpoint.text(), addresses.resolveError()));
    int lastError = 0;
    for (size_t i = 0; i < addresses.size(); ++i) {
        bool connected = false;
        UniqueFd fd = addresses.connect(i, connected, lastError);
        if (!fd.isValid())
            continue;
        if (!connected) {
            if (!waitUntil(fd.get(), true, deadline))
                throw RedisTimeoutError(tr("Redis at %1 is unreachable: %2").arg(m_endpoint.text(), tr("timed out")));
            if ((lastError = TcpAddresses::connectOutcome(fd.get())) != 0)
                continue;
        }
        std::unique_ptr<RedisStream> stream = RedisStream::over(std::move(fd), m_endpoint, m_url.tls);
        while (!stream->establish()) {
            if (!waitUntil(stream->fd(), stream->waitsForWrite(), deadline))
                throw RedisTimeoutError(tr("Redis at %1 did not complete the TLS handshake within %2 ms; if this is a "
                                           "plaintext port, connect with redis://")
                                                .arg(m_endpoint.text())
                                                .arg(m_options.connectTimeout.count()));
        }
        stream->makeBlocking(m_options.commandTimeout);
        m_stream = std::move(stream);
        m_reader = std::make_unique<RespReader>(m_endpoint.text());
        return;
    }
    throw RedisIoError(tr("Redis at %1 is unreachable: %2").arg(m_endpoint.text(), errnoText(lastError)));
}

std::vector<RedisValue> RedisConnection::open(const QList<QByteArrayList> &probes)
{
    close();
    try {
        connectStream();
        const RedisHandshake handshake(m_url, probes);
        if (handshake.commands().isEmpty())
            return {};
        for (const auto &args : handshake.commands())
            append(args);
        std::vector<RedisValue> replies;
        for (qsizetype i = 0; i < handshake.commands().size(); ++i)
            replies.push_back(read());
        return handshake.judge(std::move(replies), m_endpoint);
    } catch (...) {
        close();
        throw;
    }
}

void RedisConnection::append(const QByteArrayList &args)
{
    appendRespCommand(m_out, args);
}

void RedisConnection::flush()
{
    if (!m_stream)
        throw RedisIoError(tr("Redis at %1 is not connected").arg(m_endpoint.text()));
    try {
        size_t written = 0;
        while (written < m_out.size()) {
            const size_t n = m_stream->writeSome(m_out.data() + written, m_out.size() - written);
            if (n == 0)
                throw RedisTimeoutError(tr("Redis at %1 failed while sending: %2").arg(m_endpoint.text(), tr("timed out")));
            written += n;
        }
        m_out.clear();
    } catch (...) {
        close();
        throw;
    }
}

RedisValue RedisConnection::read()
{
    if (!m_out.empty() || !m_stream)
        flush();
    try {
        for (;;) {
            if (std::optional<RedisValue> reply = m_reader->next()) {
                m_lastReplyNs = monotonicNs();
                return std::move(*reply);
            }
            char buffer[ReadChunk];
            const size_t n = m_stream->readSome(buffer, sizeof buffer);
            if (n == 0)
                throw RedisTimeoutError(tr("Redis at %1 failed while reading a reply: %2").arg(m_endpoint.text(), tr("timed out")));
            m_reader->feed(buffer, n);
        }
    } catch (...) {
        close();
        throw;
    }
}

} // namespace lantern
