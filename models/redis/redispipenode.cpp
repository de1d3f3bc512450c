#include "redis/redispipenode.h"

#include "core/monotonicclock.h"
#include "redis/rediserror.h"
#include "redis/resp.h"

#include <chrono>

namespace lantern {

namespace {

qint64 nsOf(std::chrono::milliseconds ms)
{
    return qint64(ms.count()) * 1'000'000;
}

constexpr size_t ReplyReadChunk = 64 * 1024;

} // namespace

RedisPipeNode::RedisPipeNode(RedisEndpoint endpoint, const RedisUrl &url, RedisOptions options, Sink &sink)
    : m_endpoint(std::move(endpoint)), m_url(url), m_options(options), m_sink(sink), m_handshake(url), m_addresses(url.connectAddress(m_endpoint))
{
}

RedisPipeNode::~RedisPipeNode() = default;

int RedisPipeNode::fd() const
{
    return m_stream ? m_stream->fd() : m_connecting.get();
}

bool RedisPipeNode::wantsWrite() const
{
    if (m_connecting.isValid())
        return true;
    if (!m_stream)
        return false;
    if (!m_established)
        return m_stream->waitsForWrite();
    return m_written < m_out.size() && !m_writeWaitsForRead;
}

void RedisPipeNode::closeSocket()
{
    m_connecting.reset();
    m_stream.reset();
    m_reader.reset();
    m_established = false;
    m_writeWaitsForRead = false;
    m_handshakeReplies.clear();
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
    if (isSettingUp())
        return m_connectDeadlineNs;
    return m_waiting.empty() ? -1 : m_waiting.front().deadlineNs;
}

void RedisPipeNode::flush(qint64 nowNs)
{
    if (m_waiting.empty())
        return;
    if (fd() < 0)
        connect(nowNs);
    if (m_established)
        writeQueued();
}

void RedisPipeNode::connect(qint64 nowNs)
{
    if (m_addresses.size() == 0) {
        failAll(ioError(tr("cannot be resolved: %1").arg(m_addresses.resolveError())));
        return;
    }
    bool connected = false;
    int error = 0;
    UniqueFd fd = m_addresses.connect(m_addressIndex, connected, error);
    if (!fd.isValid()) {
        connectFailed(nowNs, error);
        return;
    }
    ++m_generation;
    m_connectDeadlineNs = nowNs + nsOf(m_options.connectTimeout);
    if (connected)
        startStream(std::move(fd));
    else
        m_connecting = std::move(fd);
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

void RedisPipeNode::startStream(UniqueFd fd)
{
    try {
        m_stream = RedisStream::over(std::move(fd), m_endpoint, m_url.tls);
        m_reader = std::make_unique<RespReader>(m_endpoint.text());
    } catch (...) {
        failAll(std::current_exception());  // a CA or key file that cannot be used
        return;
    }
    setUp();
}

bool RedisPipeNode::setUp()
{
    try {
        if (!m_stream->establish())
            return false;
    } catch (...) {
        failAll(std::current_exception());
        return false;
    }
    m_established = true;
    // AUTH and SELECT go first, ahead of everything queued while there was no connection.
    std::string handshake;
    const qint64 deadline = monotonicNs() + nsOf(m_options.commandTimeout);
    for (qsizetype i = m_handshake.commands().size() - 1; i >= 0; --i)
        m_waiting.push_front({nullptr, 0, deadline, Purpose::Handshake});
    for (const QByteArrayList &command : m_handshake.commands())
        appendRespCommand(handshake, command);
    m_out.insert(0, handshake);
    writeQueued();
    return m_stream != nullptr;  // a write can fail the connection (a TLS alert behind a reset)
}

void RedisPipeNode::writeQueued()
{
    m_writeWaitsForRead = false;
    try {
        while (m_written < m_out.size()) {
            const size_t n = m_stream->writeSome(m_out.data() + m_written, m_out.size() - m_written);
            if (n == 0) {
                m_writeWaitsForRead = !m_stream->waitsForWrite();
                return;  // wantsWrite(): the loop calls onWritable() (or onReadable() for TLS)
            }
            ++m_writeCalls;
            m_written += n;
        }
    } catch (...) {
        failAll(std::current_exception());
        return;
    }
    m_out.clear();
    m_written = 0;
}

void RedisPipeNode::onWritable(qint64 nowNs)
{
    if (m_connecting.isValid()) {
        if (const int error = TcpAddresses::connectOutcome(m_connecting.get()); error != 0) {
            connectFailed(nowNs, error);
            return;
        }
        startStream(std::move(m_connecting));
        m_connecting.reset();
        return;
    }
    if (!m_stream)
        return;
    if (!m_established) {
        setUp();
        return;
    }
    writeQueued();
}

void RedisPipeNode::onReadable(qint64 nowNs)
{
    Q_UNUSED(nowNs)
    if (!m_stream)
        return;  // not connected, or a TCP connect still under way
    if (!m_established && !setUp())
        return;
    char buffer[ReplyReadChunk];
    try {
        for (;;) {
            const size_t n = m_stream->readSome(buffer, sizeof buffer);
            if (n == 0)
                break;
            m_reader->feed(buffer, n);
            if (n < sizeof buffer && !m_stream->hasBuffered())
                break;
        }
    } catch (...) {
        failAll(std::current_exception());
        return;
    }
    for (;;) {
        std::optional<RedisValue> value;
        try {
            value = m_reader->next();
        } catch (...) {
            failAll(std::current_exception());
            return;
        }
        if (!value)
            break;
        if (m_waiting.empty()) {
            failAll(ioError(tr("sent a reply nobody asked for")));
            return;
        }
        Waiting waiting = std::move(m_waiting.front());
        m_waiting.pop_front();
        deliver(std::move(waiting), std::move(*value));
        if (!m_stream)
            return;  // the handshake was refused: everything failed
    }
    if (m_writeWaitsForRead)
        writeQueued();
}

void RedisPipeNode::deliver(Waiting waiting, RedisValue reply)
{
    switch (waiting.purpose) {
    case Purpose::Handshake:
        m_handshakeReplies.push_back(std::move(reply));
        if (qsizetype(m_handshakeReplies.size()) == m_handshake.commands().size()) {
            try {
                m_handshake.judge(std::exchange(m_handshakeReplies, {}), m_endpoint);
            } catch (...) {
                failAll(std::current_exception());
            }
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
    if (isSettingUp() && nowNs >= m_connectDeadlineNs) {
        if (m_connecting.isValid())
            failAll(timeoutError(tr("did not accept the connection within %1 ms").arg(m_options.connectTimeout.count())));
        else
            failAll(timeoutError(tr("did not complete the TLS handshake within %1 ms; if this is a plaintext port, connect with redis://")
                                         .arg(m_options.connectTimeout.count())));
        return;
    }
    const qint64 deadline = nextDeadlineNs();
    if (fd() >= 0 && deadline >= 0 && nowNs >= deadline)
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
