#include "servecommands.h"

#include "api/apihandler.h"
#include "api/featureswitches.h"
#include "audit/auditlog.h"
#include "blockingendpoints.h"
#include "commandcontext.h"
#include "core/errors.h"
#include "httpserverloop.h"
#include "opscommands.h"
#include "redis/clustertopology.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QHostAddress>
#include <QJsonObject>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace lantern::cli {

namespace {

/** Threads answering calendar and metrics on blocking connections (BlockingEndpoints). */
constexpr int BlockingThreads = 2;

struct ListenAddress {
    QHostAddress host;
    quint16 port = 0;
};

ListenAddress parseListen(const QString &text)
{
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    QString host = text.left(colon);
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    bool ok = false;
    const uint port = text.mid(colon + 1).toUInt(&ok);
    ListenAddress address{QHostAddress(host), quint16(port)};
    if (colon < 0 || !ok || port > 65535 || address.host.isNull())
        throw InvalidInputError(QCoreApplication::translate("lantern::cli::Commands",
                                                            "invalid --listen '%1': expected HOST:PORT with an IP address, e.g. 127.0.0.1:8080")
                                        .arg(text));
    return address;
}

/** A listening TCP socket with SO_REUSEPORT, so every server thread can own one on the same port. */
int listeningSocket(const ListenAddress &address)
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
        throw LanternError(QCoreApplication::translate("lantern::cli::Commands", "cannot listen on %1:%2: %3")
                                   .arg(address.host.toString())
                                   .arg(address.port)
                                   .arg(reason));
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

int runServe(CommandContext &context)
{
    requireOnly(context.line(), {QStringLiteral("listen"), QStringLiteral("threads")});
    ListenAddress address = parseListen(context.line().value(QStringLiteral("listen"), QStringLiteral("127.0.0.1:8080")));
    // One event loop per core: a loop never waits, so more loops only share the same cores
    // (docs/api.md, "Event loops": measured with 1, 2 and 4).
    const int threads = int(context.line().integer(QStringLiteral("threads"), 1, 64, std::max(1, QThread::idealThreadCount())));
    if (context.config().tokenSecret.isEmpty())
        throw InvalidInputError(QCoreApplication::translate("lantern::cli::Commands",
                                                            "serve needs a token secret to check bearers: --token-secret or LANTERN_TOKEN_SECRET"));
    ApiShared shared(context.config());
    // Short timeouts: a Redis that stalls must not hold the start back (the loops have their own).
    RedisOptions probe;
    probe.connectTimeout = std::chrono::milliseconds(500);
    probe.commandTimeout = std::chrono::milliseconds(500);
    shared.setRedisCluster(ClusterTopology::discover(context.config().redis, probe));
    std::vector<int> sockets{listeningSocket(address)};
    address.port = boundPort(sockets.front());  // port 0: the kernel's choice, shared by every thread
    for (int i = 1; i < threads; ++i)
        sockets.push_back(listeningSocket(address));

    std::atomic<bool> stopping{false};
    auto blocking = std::make_unique<BlockingEndpoints>(shared, BlockingThreads);
    std::vector<std::unique_ptr<HttpServerLoop>> loops;
    for (const int fd : sockets)
        loops.push_back(std::make_unique<HttpServerLoop>(shared, fd, *blocking, stopping));  // owns fd
    std::vector<std::thread> running;
    for (const auto &loop : loops)
        running.emplace_back([&loop] { loop->run(); });
    const QString where = address.host.protocol() == QAbstractSocket::IPv6Protocol
                                  ? QStringLiteral("[%1]:%2").arg(address.host.toString()).arg(address.port)
                                  : QStringLiteral("%1:%2").arg(address.host.toString()).arg(address.port);
    std::fprintf(stderr, "lanternd serve: listening on http://%s with %d threads\n", qPrintable(where), threads);
    std::fflush(stderr);
    warnIfGrabsCanBeLost(context, "serve");

    // SIGTERM/SIGINT set a flag (async-signal-safe); the main loop looks at it ten times a second.
    QTimer stopWatch;
    QObject::connect(&stopWatch, &QTimer::timeout, &stopWatch, [] {
        if (stopRequested())
            QCoreApplication::quit();
    });
    stopWatch.start(100);
    QCoreApplication::exec();

    // Each loop stops accepting, answers what is under way, and returns.
    stopping = true;
    for (std::thread &thread : running)
        thread.join();
    blocking.reset();  // its last answers still reach their (finished) loops
    loops.clear();
    quint64 answered = 0;
    for (int e = 0; e < ApiEndpointCount; ++e) {
        for (const int status : ApiMetrics::Statuses)
            answered += shared.metrics().requests(ApiEndpoint(e), status);
    }
    printJson({{QStringLiteral("listen"), where}, {QStringLiteral("threads"), threads}, {QStringLiteral("requests"), qint64(answered)}});
    return 0;
}

int runSwitch(CommandContext &context)
{
    requireOnly(context.line(), {QStringLiteral("feature"), QStringLiteral("state"), QStringLiteral("operator")});
    const QString feature = context.line().required(QStringLiteral("feature"));
    FeatureSwitches::validateFeature(feature);
    const QString state = context.line().required(QStringLiteral("state"));
    if (state != QLatin1String("on") && state != QLatin1String("off"))
        throw InvalidInputError(QCoreApplication::translate("lantern::cli::Commands", "invalid --state '%1': expected on or off").arg(state));
    SqlConnection &sql = context.sql();  // the audit row must be writable before anything changes
    FeatureSwitches::set(context.redis(), context.keys(), feature, state == QLatin1String("on"));
    AuditLog(sql).record(context.actor(), QStringLiteral("api.switch"), feature, {{QStringLiteral("state"), state}}, context.nowMs());
    printJson({{QStringLiteral("feature"), feature}, {QStringLiteral("state"), state}});
    return 0;
}

} // namespace lantern::cli
