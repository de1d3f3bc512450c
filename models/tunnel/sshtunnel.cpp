#include "tunnel/sshtunnel.h"

#include "redis/rediserror.h"
#include "settings/config.h"

#include <libssh/libssh.h>

#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace lantern {

namespace {

constexpr size_t Chunk = 32 * 1024;
/** The longest the thread sleeps in poll(): libssh may keep outgoing bytes to flush later. */
constexpr int PollMs = 20;

} // namespace

/** A forwarded server: its listener on 127.0.0.1. */
struct SshTunnel::Listener {
    RedisEndpoint server;
    int fd = -1;
    int port = 0;
    ~Listener()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

/** One accepted connection and its channel, with the bytes read on one side and not yet
    written on the other. */
struct SshTunnel::Carried {
    int fd = -1;
    ssh_channel channel = nullptr;
    QByteArray toChannel;
    QByteArray toClient;
    bool clientEof = false;
    ~Carried()
    {
        if (channel) {
            ssh_channel_close(channel);
            ssh_channel_free(channel);
        }
        if (fd >= 0)
            ::close(fd);
    }
};

SshTunnel::SshTunnel(const SshOptions &options) : m_session(std::make_unique<SshSession>(options))
{
    int pipe[2];
    if (::pipe2(pipe, O_NONBLOCK | O_CLOEXEC) != 0)
        throw SshError(tr("cannot start the SSH tunnel: %1").arg(QString::fromLocal8Bit(strerror(errno))));
    m_wakeRead = pipe[0];
    m_wakeWrite = pipe[1];
    ssh_set_blocking(m_session->get(), 0);
    m_thread = std::thread([this] { run(); });
}

SshTunnel::~SshTunnel()
{
    m_stop = true;
    wake();
    m_thread.join();
    m_carried.clear();  // channels before the session
    m_session.reset();
    ::close(m_wakeRead);
    ::close(m_wakeWrite);
}

QString SshTunnel::fingerprint() const
{
    return m_session->fingerprint();
}

const SshOptions &SshTunnel::options() const
{
    return m_session->options();
}

void SshTunnel::wake() const
{
    const char byte = 1;
    [[maybe_unused]] const ssize_t written = ::write(m_wakeWrite, &byte, 1);
}

RedisEndpoint SshTunnel::route(const RedisEndpoint &server)
{
    const std::lock_guard lock(m_mutex);
    for (const auto &listener : m_listeners) {
        if (listener->server == server)
            return {QStringLiteral("127.0.0.1"), listener->port};
    }
    auto listener = std::make_unique<Listener>();
    listener->server = server;
    listener->fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (listener->fd < 0 || ::bind(listener->fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0
        || ::listen(listener->fd, 64) != 0 || ::getsockname(listener->fd, reinterpret_cast<sockaddr *>(&address), &length) != 0)
        throw RedisIoError(tr("cannot open a local port for %1 through the SSH tunnel: %2")
                                   .arg(server.text(), QString::fromLocal8Bit(strerror(errno))));
    listener->port = ntohs(address.sin_port);
    const RedisEndpoint local{QStringLiteral("127.0.0.1"), listener->port};
    m_listeners.push_back(std::move(listener));
    wake();
    return local;
}

QList<RedisEndpoint> SshTunnel::routedServers()
{
    const std::lock_guard lock(m_mutex);
    QList<RedisEndpoint> servers;
    for (const auto &listener : m_listeners)
        servers << listener->server;
    return servers;
}

void SshTunnel::acceptOn(Listener &listener)
{
    for (;;) {
        const int fd = ::accept4(listener.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        auto carried = std::make_unique<Carried>();
        carried->fd = fd;
        carried->channel = ssh_channel_new(m_session->get());
        const QByteArray host = listener.server.host.toUtf8();
        // Opening waits for the SSH server's answer: the session blocks for that moment only.
        ssh_set_blocking(m_session->get(), 1);
        const int opened = carried->channel
                                   ? ssh_channel_open_forward(carried->channel, host.constData(), listener.server.port, "127.0.0.1", 0)
                                   : SSH_ERROR;
        ssh_set_blocking(m_session->get(), 0);
        if (opened != SSH_OK) {
            // The client sees its connection closed: the SSH server cannot reach that server.
            qWarning("SSH tunnel: cannot open a channel to %s: %s", qPrintable(listener.server.text()), ssh_get_error(m_session->get()));
            continue;
        }
        ++m_channelsOpened;
        m_carried.push_back(std::move(carried));
    }
}

bool SshTunnel::pump(Carried &carried)
{
    char buffer[Chunk];
    if (carried.toChannel.isEmpty() && !carried.clientEof) {
        const ssize_t got = ::read(carried.fd, buffer, sizeof buffer);
        if (got > 0)
            carried.toChannel.append(buffer, got);
        else if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            carried.clientEof = true;
            ssh_channel_send_eof(carried.channel);
        }
    }
    if (!carried.toChannel.isEmpty()) {
        const int sent = ssh_channel_write(carried.channel, carried.toChannel.constData(), uint32_t(carried.toChannel.size()));
        if (sent == SSH_ERROR)
            return false;
        if (sent > 0)  // 0 (or SSH_AGAIN): the channel's window is full, the rest goes later
            carried.toChannel.remove(0, sent);
    }
    if (carried.toClient.isEmpty()) {
        const int got = ssh_channel_read_nonblocking(carried.channel, buffer, sizeof buffer, 0);
        if (got == SSH_ERROR)
            return false;
        if (got > 0)
            carried.toClient.append(buffer, got);
    }
    if (!carried.toClient.isEmpty()) {
        const ssize_t written = ::send(carried.fd, carried.toClient.constData(), size_t(carried.toClient.size()), MSG_NOSIGNAL);
        if (written < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return false;
        if (written > 0)
            carried.toClient.remove(0, written);
    }
    const bool serverDone = ssh_channel_is_eof(carried.channel) || ssh_channel_is_closed(carried.channel);
    return !(serverDone && carried.toClient.isEmpty() && ssh_channel_poll(carried.channel, 0) <= 0);
}

void SshTunnel::run()
{
    std::vector<pollfd> fds;
    std::vector<Listener *> listeners;
    while (!m_stop) {
        fds.clear();
        listeners.clear();
        fds.push_back({m_wakeRead, POLLIN, 0});
        fds.push_back({ssh_get_fd(m_session->get()), POLLIN, 0});
        {
            const std::lock_guard lock(m_mutex);
            for (const auto &listener : m_listeners) {
                fds.push_back({listener->fd, POLLIN, 0});
                listeners.push_back(listener.get());
            }
        }
        for (const auto &carried : m_carried) {
            short events = 0;
            if (carried->toChannel.isEmpty() && !carried->clientEof)
                events |= POLLIN;
            if (!carried->toClient.isEmpty())
                events |= POLLOUT;
            fds.push_back({carried->fd, events, 0});
        }
        ::poll(fds.data(), fds.size(), PollMs);
        if (fds[0].revents & POLLIN) {
            char drain[64];
            while (::read(m_wakeRead, drain, sizeof drain) > 0) {
            }
        }
        for (size_t i = 0; i < listeners.size(); ++i) {
            if (fds[2 + i].revents & POLLIN)
                acceptOn(*listeners[i]);
        }
        for (auto it = m_carried.begin(); it != m_carried.end();) {
            if (pump(**it))
                ++it;
            else
                it = m_carried.erase(it);
        }
    }
}

Config SshTunnel::through(Config config, const std::shared_ptr<SshTunnel> &tunnel)
{
    config.redis.route = tunnel;
    if (config.db.dialect == DbUrl::Dialect::MySql) {
        if (!config.db.unixSocket.isEmpty())
            throw InvalidInputError(tr("The SQL URL names a Unix socket, which an SSH tunnel cannot reach: give the database's host and port "
                                       "as the SSH server reaches them."));
        const RedisEndpoint local = tunnel->route({config.db.host, config.db.port});
        config.db.host = local.host;
        config.db.port = local.port;
    }
    return config;
}

} // namespace lantern
