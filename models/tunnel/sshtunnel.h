#pragma once

#include "redis/redisurl.h"
#include "tunnel/sshsession.h"

#include <QCoreApplication>
#include <QHash>
#include <QString>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace lantern {

struct Config;

/** Local port forwarding through one SSH session: every server it is asked for (route()) gets a
    listener on 127.0.0.1 with a port of the kernel's choosing, and every connection accepted
    there is carried over a direct-tcpip channel to that server, as the SSH server reaches it. A
    Redis Cluster's nodes each get theirs when the client first connects to them (the addresses
    the cluster announces are the ones the SSH server reaches): a URL whose `route` is the tunnel
    works through it unchanged, TLS checking the servers' own names. One thread moves the bytes
    of every connection (libssh sessions are single-threaded); it ends with the tunnel. */
class SshTunnel final : public EndpointRoute {
    Q_DECLARE_TR_FUNCTIONS(lantern::SshTunnel)

public:
    /** Logs in (SshSession: throws SshError, SshUnknownHostError) and starts the thread. */
    explicit SshTunnel(const SshOptions &options);
    ~SshTunnel() override;
    Q_DISABLE_COPY_MOVE(SshTunnel)

    RedisEndpoint route(const RedisEndpoint &server) override;
    /** The host key's fingerprint (SHA256:...). */
    QString fingerprint() const;
    const SshOptions &options() const;
    /** The servers that have a forwarded port, in the order they were asked for. */
    QList<RedisEndpoint> routedServers();
    /** Connections carried so far (accepted and given a channel), for tests and reports. */
    int channelsOpened() const { return m_channelsOpened.load(); }

    /** `config` with its Redis and MySQL servers reached through `tunnel`: Redis by its route
        (every node, the sentinels and the master they name), MySQL by a forwarded port. A MySQL
        URL with a Unix socket cannot go through it (InvalidInputError); SQLite is local. */
    static Config through(Config config, const std::shared_ptr<SshTunnel> &tunnel);

private:
    struct Listener;
    struct Carried;

    void run();
    void acceptOn(Listener &listener);
    /** Moves what can move without waiting; false once the connection is over. */
    bool pump(Carried &carried);
    void wake() const;

    std::unique_ptr<SshSession> m_session;
    std::mutex m_mutex;  // m_listeners
    std::vector<std::unique_ptr<Listener>> m_listeners;
    std::vector<std::unique_ptr<Carried>> m_carried;  // the thread's alone
    int m_wakeRead = -1;
    int m_wakeWrite = -1;
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_channelsOpened{0};
    std::thread m_thread;
};

} // namespace lantern
