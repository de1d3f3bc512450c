#include "serve/httpserver.h"

#include "api/apihandler.h"
#include "core/errors.h"
#include "redis/clustertopology.h"
#include "serve/blockingendpoints.h"
#include "serve/httpserverloop.h"

#include <cerrno>
#include <cstring>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace lantern {

namespace {

/** Threads answering calendar and metrics on blocking connections (BlockingEndpoints). */
constexpr int BlockingThreads = 2;

/** A listening TCP socket with SO_REUSEPORT, so every loop can own one on the same port. */
int listeningSocket(const HttpServer::Address &address)
{
    const bool v6 = address.host.protocol() == QAbstractSocket::IPv6Protocol;
    const int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        throw LanternError(QStringLiteral("socket(): %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    sockaddr_storage storage{};
    socklen_t length = 0;
    if (v6) {
        auto *in6 = reinterpret_cast<sockaddr_in6 *>(&storage);
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(address.port);
        const Q_IPV6ADDR bytes = address.host.toIPv6Address();
        std::memcpy(&in6->sin6_addr, bytes.c, sizeof bytes.c);
        length = sizeof *in6;
    } else {
        auto *in4 = reinterpret_cast<sockaddr_in *>(&storage);
        in4->sin_family = AF_INET;
        in4->sin_port = htons(address.port);
        in4->sin_addr.s_addr = htonl(address.host.toIPv4Address());
        length = sizeof *in4;
    }
    if (::bind(fd, reinterpret_cast<sockaddr *>(&storage), length) != 0 || ::listen(fd, 1024) != 0) {
        const QString reason = QString::fromLocal8Bit(std::strerror(errno));
        ::close(fd);
        throw LanternError(HttpServer::tr("cannot listen on %1:%2: %3").arg(address.host.toString()).arg(address.port).arg(reason));
    }
    return fd;
}

quint16 boundPort(int fd)
{
    sockaddr_storage storage{};
    socklen_t length = sizeof storage;
    ::getsockname(fd, reinterpret_cast<sockaddr *>(&storage), &length);
    return storage.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6 *>(&storage)->sin6_port)
                                         : ntohs(reinterpret_cast<sockaddr_in *>(&storage)->sin_port);
}

} // namespace

HttpServer::Address HttpServer::parseAddress(const QString &text)
{
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    QString host = text.left(colon);
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    bool ok = false;
    const uint port = text.mid(colon + 1).toUInt(&ok);
    Address address{QHostAddress(host), quint16(port)};
    if (colon < 0 || !ok || port > 65535 || address.host.isNull())
        throw InvalidInputError(tr("invalid --listen '%1': expected HOST:PORT with an IP address, e.g. 127.0.0.1:8080").arg(text));
    return address;
}

HttpServer::HttpServer(ApiShared &shared, Address address, int threads) : m_shared(shared), m_address(std::move(address))
{
    if (!m_shared.redisCluster()) {
        // One server or a Redis Cluster (the loops' pipes route by slot). Short timeouts: a Redis
        // that stalls must not hold the start back (the loops have their own).
        RedisOptions probe;
        probe.connectTimeout = std::chrono::milliseconds(500);
        probe.commandTimeout = std::chrono::milliseconds(500);
        m_shared.setRedisCluster(ClusterTopology::discover(m_shared.config().redis, probe));
    }
    std::vector<int> sockets{listeningSocket(m_address)};
    m_address.port = boundPort(sockets.front());  // port 0: the kernel's choice, shared by every loop
    try {
        for (int i = 1; i < threads; ++i)
            sockets.push_back(listeningSocket(m_address));
    } catch (...) {
        for (const int fd : sockets)
            ::close(fd);
        throw;
    }
    m_blocking = std::make_unique<BlockingEndpoints>(m_shared, BlockingThreads);
    for (const int fd : sockets)
        m_loops.push_back(std::make_unique<HttpServerLoop>(m_shared, fd, *m_blocking, m_stopping));  // owns fd
    for (const auto &loop : m_loops)
        m_running.emplace_back([&loop] { loop->run(); });
}

HttpServer::~HttpServer()
{
    stop();
}

QString HttpServer::where() const
{
    return m_address.host.protocol() == QAbstractSocket::IPv6Protocol
            ? QStringLiteral("[%1]:%2").arg(m_address.host.toString()).arg(m_address.port)
            : QStringLiteral("%1:%2").arg(m_address.host.toString()).arg(m_address.port);
}

void HttpServer::stop()
{
    m_stopping = true;
    for (std::thread &thread : m_running)
        thread.join();
    m_running.clear();
    m_blocking.reset();  // its last answers still reach their (finished) loops
    m_loops.clear();
}

} // namespace lantern
