#pragma once

#include "privateredis.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <memory>
#include <vector>

class QProcess;
class QTemporaryDir;

namespace lantern::test {

/** Redis Sentinel of a test's own: a master and a replica (PrivateRedis) and three sentinels
    (`redis-server FILE --sentinel`, a config file each in a temp dir) watching the master as
    `name`, quorum 2, down after 1 s. The constructor returns once every sentinel knows the
    replica and the two other sentinels. A sentinel password, when given, is asked of clients
    (requirepass) and used between the sentinels (sentinel-pass). Talks to everything over
    hiredis directly (rawRedisCommand), never through the code under test; every wait polls with
    a deadline; failures throw std::runtime_error with the logs. */
class TestSentinels final {
public:
    static constexpr std::chrono::milliseconds Timeout{30000};

    explicit TestSentinels(const QString &name = QStringLiteral("lantern"), const QByteArray &sentinelPassword = {});
    ~TestSentinels();
    Q_DISABLE_COPY_MOVE(TestSentinels)

    /** redis-sentinel://127.0.0.1:S1,127.0.0.1:S2,127.0.0.1:S3#NAME */
    QString urlText() const;
    const QList<int> &sentinelPorts() const { return m_sentinelPorts; }
    /** The data nodes: [0] the first master, [1] its replica (roles swap with a failover). */
    PrivateRedis &node(int index) { return *m_nodes.at(size_t(index)); }
    /** The port every sentinel names as the master now (0 while they disagree). */
    int masterPort() const;
    /** A sentinel command on sentinel `index` (its password sent first); throws when it does not answer. */
    QByteArray sentinelCommand(int index, const QByteArrayList &args) const;

    /** SENTINEL FAILOVER, then waits until every sentinel names the other node and it answers
        ROLE as master. Returns the new master's port. */
    int failOver();
    /** Stops (SIGKILL) or starts again sentinel `index`. */
    void stopSentinel(int index);
    void startSentinel(int index);

private:
    void waitUntil(const char *what, const std::function<bool()> &done) const;
    [[noreturn]] void fail(const QString &what) const;
    QByteArray logs() const;

    QString m_name;
    QByteArray m_password;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::vector<std::unique_ptr<PrivateRedis>> m_nodes;
    QList<int> m_sentinelPorts;
    std::vector<std::unique_ptr<QProcess>> m_sentinels;
};

} // namespace lantern::test
