#include "redis/redispipe.h"

#include "core/monotonicclock.h"
#include "redis/redisconversation.h"
#include "redis/rediserror.h"
#include "redis/resp.h"

#include <hiredis/hiredis.h>

#include <QList>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

namespace lantern {

namespace {

qint64 toNs(std::chrono::milliseconds ms)
{
    return qint64(ms.count()) * 1'000'000;
}

QString systemError(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

constexpr size_t ReadChunk = 64 * 1024;

} // namespace

struct RedisPipe::Job {
    std::unique_ptr<RedisConversation> conversation;
    Done done;
    QList<QByteArrayList> round;
    std::vector<RedisValue> replies;
    qsizetype outstanding = 0;
};

RedisPipe::RedisPipe(RedisUrl url, RedisOptions options) : m_url(std::move(url)), m_options(options)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    const QByteArray host = m_url.host.toUtf8();
    const QByteArray port = QByteArray::number(m_url.port);
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

RedisPipe::~RedisPipe()
{
    closeSocket();
}

void RedisPipe::closeSocket()
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    m_connecting = false;
    if (m_reader)
        redisReaderFree(m_reader);
    m_reader = nullptr;
}

void RedisPipe::start(std::unique_ptr<RedisConversation> conversation, Done done)
{
    auto job = std::make_shared<Job>();
    job->conversation = std::move(conversation);
    job->done = std::move(done);
    try {
        job->round = job->conversation->nextRound();
    } catch (...) {
        m_endedEarly.push_back({job, std::current_exception()});  // ends at the next flush()
        return;
    }
    if (job->round.isEmpty())
        m_endedEarly.push_back({job, nullptr});
    else
        sendRound(job);
}

void RedisPipe::sendRound(const std::shared_ptr<Job> &job)
{
    job->replies.assign(size_t(job->round.size()), RedisValue{});
    job->outstanding = job->round.size();
    for (qsizetype i = 0; i < job->round.size(); ++i)
        send(job, i, job->round.at(i));
}

void RedisPipe::send(const std::shared_ptr<Job> &job, qsizetype index, const QByteArrayList &command)
{
    appendRespCommand(m_out, command);
    m_waiting.push_back({job, index, monotonicNs() + toNs(m_options.commandTimeout)});
    ++m_commandsSent;
}

qint64 RedisPipe::nextDeadlineNs() const
{
    if (m_connecting)
        return m_connectDeadlineNs;
    return m_waiting.empty() ? -1 : m_waiting.front().deadlineNs;
}

void RedisPipe::flush(qint64 nowNs)
{
    // Conversations that ended before sending anything (no round, or a failing first round).
    std::vector<std::pair<std::shared_ptr<Job>, std::exception_ptr>> ended;
    ended.swap(m_endedEarly);
    for (auto &[job, error] : ended)
        finish(job, error);
    if (m_waiting.empty())
        return;
    if (m_fd < 0)
        connect(nowNs);
    if (m_fd >= 0 && !m_connecting)
        writeQueued();
}

void RedisPipe::connect(qint64 nowNs)
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
    m_connectDeadlineNs = nowNs + toNs(m_options.connectTimeout);
}

void RedisPipe::connectFailed(qint64 nowNs, int error)
{
    closeSocket();
    if (++m_addressIndex < m_addresses.size()) {
        connect(nowNs);  // a name with several addresses (localhost: ::1, then 127.0.0.1)
        return;
    }
    m_addressIndex = 0;
    failAll(ioError(tr("is unreachable: %1").arg(systemError(error))));
}

void RedisPipe::connected()
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
    const qint64 deadline = monotonicNs() + toNs(m_options.commandTimeout);
    for (qsizetype i = commands.size() - 1; i >= 0; --i)
        m_waiting.push_front({nullptr, 0, deadline});
    for (const QByteArrayList &command : std::as_const(commands))
        appendRespCommand(handshake, command);
    m_out.insert(0, handshake);
}

void RedisPipe::writeQueued()
{
    while (m_written < m_out.size()) {
        const ssize_t n = ::send(m_fd, m_out.data() + m_written, m_out.size() - m_written, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;  // wantsWrite(): the loop calls onWritable()
            failAll(ioError(tr("failed while sending: %1").arg(systemError(errno))));
            return;
        }
        ++m_writeCalls;
        m_written += size_t(n);
    }
    m_out.clear();
    m_written = 0;
}

void RedisPipe::onWritable(qint64 nowNs)
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

void RedisPipe::onReadable(qint64 nowNs)
{
    Q_UNUSED(nowNs)
    if (m_fd < 0 || m_connecting)
        return;
    char buffer[ReadChunk];
    for (;;) {
        const ssize_t n = ::read(m_fd, buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            failAll(ioError(tr("failed while reading a reply: %1").arg(systemError(errno))));
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
            return;  // a conversation's end failed everything (cannot happen today; cheap to respect)
    }
}

void RedisPipe::deliver(Waiting waiting, RedisValue reply)
{
    const std::optional<RedisNotReadyError::State> notReady =
            reply.isError() ? RedisNotReadyError::stateOf(reply.string) : std::nullopt;
    if (!waiting.job) {  // AUTH / SELECT
        if (notReady) {
            failAll(std::make_exception_ptr(RedisNotReadyError::at(*notReady, m_url.host, m_url.port)));
        } else if (reply.isError()) {
            const QString message = reply.string.contains("DB index is out of range")
                    ? tr("has no database %1").arg(m_url.db)
                    : tr("rejected the connection: %1").arg(QString::fromUtf8(reply.string));
            failAll(ioError(message));
        }
        return;
    }
    Job &job = *waiting.job;
    if (!job.done)
        return;  // ended already: a resent script failed before this reply came
    if (notReady) {
        // The conversation ends here; the rest of its round is read and dropped (job.done is
        // null), and the connection stays open for the next one.
        finish(waiting.job, std::make_exception_ptr(RedisNotReadyError::at(*notReady, m_url.host, m_url.port)));
        return;
    }
    const QByteArrayList &command = job.round.at(waiting.index);
    if (isMissingScript(command, reply)) {
        // EVAL caches the script on the server: the other EVALSHAs of this batch find it.
        try {
            send(waiting.job, waiting.index, withScriptBody(command));
        } catch (...) {
            finish(waiting.job, std::current_exception());
        }
        return;
    }
    job.replies[size_t(waiting.index)] = std::move(reply);
    if (--job.outstanding == 0)
        advance(waiting.job);
}

void RedisPipe::advance(const std::shared_ptr<Job> &job)
{
    try {
        job->conversation->takeReplies(std::move(job->replies));
        job->round = job->conversation->nextRound();
    } catch (...) {
        finish(job, std::current_exception());
        return;
    }
    if (job->round.isEmpty())
        finish(job, nullptr);
    else
        sendRound(job);
}

void RedisPipe::finish(const std::shared_ptr<Job> &job, std::exception_ptr error)
{
    if (!job->done)
        return;  // already ended (a failure after part of its round was answered)
    const Done done = std::exchange(job->done, nullptr);
    job->outstanding = 0;
    done(*job->conversation, std::move(error));
}

void RedisPipe::checkTimeouts(qint64 nowNs)
{
    if (m_connecting && nowNs >= m_connectDeadlineNs) {
        failAll(timeoutError(tr("did not accept the connection within %1 ms").arg(m_options.connectTimeout.count())));
        return;
    }
    const qint64 deadline = nextDeadlineNs();
    if (m_fd >= 0 && deadline >= 0 && nowNs >= deadline)
        failAll(timeoutError(tr("did not answer within %1 ms").arg(m_options.commandTimeout.count())));
}

void RedisPipe::failAll(std::exception_ptr error)
{
    closeSocket();
    m_out.clear();
    m_written = 0;
    std::deque<Waiting> waiting;
    waiting.swap(m_waiting);
    // Done callbacks may start new conversations: those wait for the next flush().
    for (Waiting &entry : waiting) {
        if (entry.job)
            finish(entry.job, error);
    }
}

std::exception_ptr RedisPipe::ioError(const QString &what) const
{
    return std::make_exception_ptr(RedisIoError(tr("Redis at %1:%2 %3").arg(m_url.host).arg(m_url.port).arg(what)));
}

std::exception_ptr RedisPipe::timeoutError(const QString &what) const
{
    return std::make_exception_ptr(RedisTimeoutError(tr("Redis at %1:%2 %3").arg(m_url.host).arg(m_url.port).arg(what)));
}

} // namespace lantern
