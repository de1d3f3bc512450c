#include "privateclusternode.h"

#include "core/childprocess.h"
#include "core/errors.h"
#include "redis/redisconnection.h"
#include "redis/rediserror.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QRandomGenerator>
#include <QTcpServer>

namespace lantern::bench {

namespace {

constexpr int StartTimeoutMs = 10'000;
constexpr int MaxPortAttempts = 20;

/** Whether nothing listens on 127.0.0.1:`port` now. */
bool portFree(int port)
{
    QTcpServer probe;
    return probe.listen(QHostAddress::LocalHost, static_cast<quint16>(port));
}

/** One command on a fresh connection to the node; errors as values. */
RedisValue ask(int port, const QByteArrayList &args)
{
    const RedisUrl url = RedisUrl::parse(QStringLiteral("redis://127.0.0.1:%1").arg(port));
    RedisConnection connection(url.seeds().first(), url, RedisOptions{});
    connection.open();
    connection.append(args);
    return connection.read();
}

} // namespace

PrivateClusterNode::PrivateClusterNode(const QString &workDir)
{
    QDir().mkpath(workDir);
    // Below the kernel's ephemeral range (32768+), so no outgoing connection takes it meanwhile.
    for (int attempt = 0; attempt < MaxPortAttempts; ++attempt) {
        const int port = 20000 + static_cast<int>(QRandomGenerator::global()->bounded(10000));
        if (!portFree(port) || !portFree(port + 10000))
            continue;
        if (start(workDir, port)) {
            m_port = port;
            assignEverySlot();
            return;
        }
    }
    throw LanternError(QStringLiteral("could not start a 1-master cluster node after %1 ports").arg(MaxPortAttempts));
}

PrivateClusterNode::~PrivateClusterNode()
{
    if (m_process.state() == QProcess::NotRunning)
        return;
    try {
        ask(m_port, {QByteArrayLiteral("SHUTDOWN"), QByteArrayLiteral("NOSAVE")});
    } catch (const LanternError &) {
        // SHUTDOWN closes the connection without a reply: expected.
    }
    if (!m_process.waitForFinished(5000)) {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
}

bool PrivateClusterNode::start(const QString &workDir, int port)
{
    const QString dir = QDir(workDir).filePath(QStringLiteral("node-%1").arg(port));
    QDir(dir).removeRecursively();
    QDir().mkpath(dir);
    const QStringList arguments{QStringLiteral("--port"), QString::number(port), QStringLiteral("--bind"), QStringLiteral("127.0.0.1"),
                                QStringLiteral("--cluster-enabled"), QStringLiteral("yes"), QStringLiteral("--cluster-config-file"),
                                QStringLiteral("nodes.conf"), QStringLiteral("--save"), QString(), QStringLiteral("--appendonly"),
                                QStringLiteral("no"), QStringLiteral("--dir"), dir, QStringLiteral("--daemonize"), QStringLiteral("no"),
                                QStringLiteral("--logfile"), QDir(dir).filePath(QStringLiteral("redis.log"))};
    endWithStarter(m_process);  // a bench that aborts leaves no node behind
    m_process.setProgram(QStringLiteral("redis-server"));
    m_process.setArguments(arguments);
    m_process.setStandardInputFile(QProcess::nullDevice());
    m_process.setStandardOutputFile(QProcess::nullDevice());
    m_process.start();
    if (!m_process.waitForStarted())
        throw LanternError(QStringLiteral("cannot start redis-server: %1").arg(m_process.errorString()));
    m_commandLine = QStringLiteral("redis-server --port %1 --cluster-enabled yes --save '' --appendonly no").arg(port);

    const QDeadlineTimer deadline(StartTimeoutMs);
    while (!deadline.hasExpired()) {
        if (m_process.waitForFinished(20))
            return false;  // the port was taken between the probe and the start
        try {
            if (ask(port, {QByteArrayLiteral("PING")}).toBytes() == "PONG")
                return true;
        } catch (const UnavailableError &) {
            // Not listening yet.
        }
    }
    m_process.kill();
    m_process.waitForFinished(5000);
    throw LanternError(QStringLiteral("redis-server on port %1 did not answer within %2 ms").arg(port).arg(StartTimeoutMs));
}

void PrivateClusterNode::assignEverySlot()
{
    const RedisValue added = ask(m_port, {QByteArrayLiteral("CLUSTER"), QByteArrayLiteral("ADDSLOTSRANGE"), QByteArrayLiteral("0"),
                                          QByteArrayLiteral("16383")});
    if (added.isError())
        throw RedisReplyError(QStringLiteral("CLUSTER ADDSLOTSRANGE 0 16383: %1").arg(QString::fromUtf8(added.string)));
    const QDeadlineTimer deadline(StartTimeoutMs);
    while (!deadline.hasExpired()) {
        if (ask(m_port, {QByteArrayLiteral("CLUSTER"), QByteArrayLiteral("INFO")}).toBytes().contains("cluster_state:ok"))
            return;
        m_process.waitForFinished(20);  // a pause that also notices the node dying
    }
    throw LanternError(QStringLiteral("the 1-master cluster on port %1 did not report cluster_state:ok").arg(m_port));
}

} // namespace lantern::bench
