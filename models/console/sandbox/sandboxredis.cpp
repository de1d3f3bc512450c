#include "sandboxredis.h"

#include "core/childprocess.h"

#include <QDir>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

namespace lantern {

namespace {
constexpr int MaxAttempts = 3;   // a port taken between our probe and the server's bind: retry
constexpr int ProbeIntervalMs = 50;
constexpr int LogLimit = 16 * 1024;
} // namespace

SandboxRedis::SandboxRedis(QString directory, QObject *parent)
    : QObject(parent), m_directory(std::move(directory)), m_process(new QProcess(this)), m_probeTimer(new QTimer(this))
{
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    endWithStarter(*m_process);  // a console that dies without cleaning up stops the server too
    connect(m_process, &QProcess::readyRead, this, [this] {
        m_output += m_process->readAll();
        if (m_output.size() > LogLimit)
            m_output = m_output.right(LogLimit);
    });
    connect(m_process, &QProcess::finished, this, &SandboxRedis::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            fail(m_process->errorString());
    });
    m_probeTimer->setInterval(ProbeIntervalMs);
    connect(m_probeTimer, &QTimer::timeout, this, &SandboxRedis::probe);
}

SandboxRedis::~SandboxRedis()
{
    stop();
}

QString SandboxRedis::serverProgram()
{
    const QString configured = QProcessEnvironment::systemEnvironment().value(QStringLiteral("LANTERN_REDIS_SERVER"));
    if (!configured.isEmpty())
        return configured;
    QString found = QStandardPaths::findExecutable(QStringLiteral("redis-server"));
    if (found.isEmpty())
        found = QStandardPaths::findExecutable(QStringLiteral("redis-server"), {QStringLiteral("/usr/sbin"), QStringLiteral("/usr/local/bin")});
    return found;
}

RedisUrl SandboxRedis::url() const
{
    RedisUrl url;
    url.host = QStringLiteral("127.0.0.1");
    url.port = m_port;
    return url;
}

qint64 SandboxRedis::processId() const
{
    return m_process->processId();
}

int SandboxRedis::freePort()
{
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost, 0))
        return 0;
    return server.serverPort();
}

void SandboxRedis::start()
{
    m_attempt = 0;
    m_ready = false;
    m_stopping = false;
    m_deadline.setRemainingTime(StartTimeoutMs);
    launch();
}

void SandboxRedis::launch()
{
    const QString program = serverProgram();
    if (program.isEmpty()) {
        Q_EMIT failed(tr("redis-server was not found. Install the redis-server package, or start the console with "
                         "--redis URL --db URL to use running servers."),
                      {});
        return;
    }
    ++m_attempt;
    m_port = freePort();
    if (m_port == 0) {
        fail(tr("No free TCP port on 127.0.0.1."));
        return;
    }
    QDir().mkpath(m_directory);
    m_output.clear();
    m_process->setWorkingDirectory(m_directory);
    m_process->start(program, {QStringLiteral("--port"), QString::number(m_port), QStringLiteral("--bind"), QStringLiteral("127.0.0.1"),
                               QStringLiteral("--save"), QString(), QStringLiteral("--appendonly"), QStringLiteral("no"),
                               QStringLiteral("--daemonize"), QStringLiteral("no"), QStringLiteral("--dir"), m_directory,
                               QStringLiteral("--protected-mode"), QStringLiteral("yes")});
    m_probeTimer->start();
}

void SandboxRedis::probe()
{
    if (m_deadline.hasExpired()) {
        fail(tr("redis-server did not answer within %n second(s).", nullptr, StartTimeoutMs / 1000));
        return;
    }
    if (m_probe)
        return;  // the previous PING is still on its way
    m_probe = new QTcpSocket(this);
    QTcpSocket *socket = m_probe;
    const auto done = [this, socket] {
        if (m_probe == socket)
            m_probe = nullptr;
        socket->deleteLater();
    };
    connect(socket, &QTcpSocket::connected, socket, [socket] { socket->write("PING\r\n"); });
    connect(socket, &QTcpSocket::readyRead, this, [this, socket, done] {
        if (!socket->canReadLine())
            return;
        const bool pong = socket->readLine().startsWith("+PONG");
        done();
        if (pong && !m_ready && m_process->state() == QProcess::Running) {
            m_ready = true;
            m_probeTimer->stop();
            Q_EMIT ready(url());
        }
    });
    connect(socket, &QTcpSocket::errorOccurred, this, done);
    socket->connectToHost(QHostAddress::LocalHost, static_cast<quint16>(m_port));
}

void SandboxRedis::onFinished(int exitCode, QProcess::ExitStatus status)
{
    m_output += m_process->readAll();
    if (m_stopping)
        return;
    m_probeTimer->stop();
    if (m_probe) {
        m_probe->abort();
        m_probe->deleteLater();
        m_probe = nullptr;
    }
    const bool portTaken = m_output.contains("Address already in use");
    if (!m_ready && portTaken && m_attempt < MaxAttempts && !m_deadline.hasExpired()) {
        launch();
        return;
    }
    const QString how = status == QProcess::CrashExit ? tr("redis-server crashed.")
                                                       : tr("redis-server exited with code %1.").arg(exitCode);
    m_ready = false;
    fail(how);
}

void SandboxRedis::fail(const QString &message)
{
    m_probeTimer->stop();
    const QString log = QString::fromLocal8Bit(m_output).trimmed().right(2000);
    if (m_process->state() != QProcess::NotRunning) {
        m_stopping = true;
        m_process->kill();
    }
    Q_EMIT failed(tr("The sandbox Redis could not be started: %1").arg(message), log);
}

void SandboxRedis::stop()
{
    m_probeTimer->stop();
    if (m_process->state() == QProcess::NotRunning)
        return;
    m_stopping = true;
    m_process->terminate();
    if (!m_process->waitForFinished(3000)) {
        m_process->kill();
        m_process->waitForFinished(1000);
    }
}

} // namespace lantern
