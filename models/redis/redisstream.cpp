#include "redis/redisstream.h"

#include "redis/rediserror.h"
#include "redis/redistls.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/time.h>
#include <unistd.h>

namespace lantern {

namespace {

/** Plain TCP. The first bytes a server sends are looked at once: a TLS record there means a TLS
    port reached without TLS, said in those words rather than as a RESP protocol error. */
class PlainStream final : public RedisStream {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisClient)

public:
    PlainStream(UniqueFd fd, RedisEndpoint endpoint) : RedisStream(std::move(fd), std::move(endpoint)) {}

    size_t readSome(char *buffer, size_t size) override
    {
        for (;;) {
            const ssize_t n = ::read(fd(), buffer, size);
            if (n > 0) {
                if (!m_seenBytes) {
                    m_seenBytes = true;
                    // A TLS alert (0x15) or handshake (0x16) record, version 3.x.
                    if ((buffer[0] == 0x15 || buffer[0] == 0x16) && (n < 2 || buffer[1] == 0x03))
                        fail(tr("answered with TLS: this port speaks TLS only; connect with rediss://"));
                }
                return size_t(n);
            }
            const int error = n < 0 ? errno : 0;
            if (error == EINTR)
                continue;
            if (error == EAGAIN || error == EWOULDBLOCK) {
                m_waitsForWrite = false;
                return 0;
            }
            // A TLS port resets a connection whose first bytes are not TLS, before any answer.
            if (!m_seenBytes && (n == 0 || error == ECONNRESET))
                fail(tr("closed the connection before answering; if this is its TLS port, connect with rediss://"));
            if (n == 0)
                fail(tr("closed the connection"));
            fail(tr("failed while reading a reply: %1").arg(errnoText(error)));
        }
    }

    size_t writeSome(const char *data, size_t size) override
    {
        for (;;) {
            const ssize_t n = ::send(fd(), data, size, MSG_NOSIGNAL);
            if (n >= 0)
                return size_t(n);
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                m_waitsForWrite = true;
                return 0;
            }
            fail(tr("failed while sending: %1").arg(errnoText(errno)));
        }
    }

private:
    bool m_seenBytes = false;
};

timeval toTimeval(std::chrono::milliseconds ms)
{
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
    return tv;
}

} // namespace

QString errnoText(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

RedisStream::RedisStream(UniqueFd fd, RedisEndpoint endpoint) : m_fd(std::move(fd)), m_endpoint(std::move(endpoint)) {}

RedisStream::~RedisStream() = default;

std::unique_ptr<RedisStream> RedisStream::over(UniqueFd fd, const RedisEndpoint &endpoint, const RedisTlsOptions &tls)
{
    if (tls.enabled)
        return startTls(std::move(fd), endpoint, tls);
    return std::make_unique<PlainStream>(std::move(fd), endpoint);
}

void RedisStream::fail(const QString &what) const
{
    throw RedisIoError(tr("Redis at %1 %2").arg(m_endpoint.text(), what));
}

void RedisStream::makeBlocking(std::chrono::milliseconds timeout)
{
    const int flags = ::fcntl(fd(), F_GETFL);
    ::fcntl(fd(), F_SETFL, flags & ~O_NONBLOCK);
    const timeval tv = toTimeval(timeout);
    ::setsockopt(fd(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

TcpAddresses::TcpAddresses(const RedisEndpoint &endpoint)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    const QByteArray host = endpoint.host.toUtf8();
    const QByteArray port = QByteArray::number(endpoint.port);
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

UniqueFd TcpAddresses::connect(size_t index, bool &connected, int &error) const
{
    connected = false;
    const Address &address = m_addresses.at(index);
    UniqueFd fd(::socket(address.storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd.isValid()) {
        error = errno;
        return fd;
    }
    const int one = 1;
    ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(fd.get(), reinterpret_cast<const sockaddr *>(&address.storage), address.length) == 0) {
        connected = true;
        return fd;
    }
    if (errno != EINPROGRESS) {
        error = errno;
        return UniqueFd();
    }
    return fd;
}

int TcpAddresses::connectOutcome(int fd)
{
    int error = 0;
    socklen_t length = sizeof error;
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0)
        return errno;
    return error;
}

} // namespace lantern
