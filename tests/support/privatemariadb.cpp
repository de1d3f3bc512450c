#include "privatemariadb.h"

#include "privateserver.h"

#include "core/childprocess.h"
#include "sql/sqlconnection.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QFile>
#include <QProcess>
#include <QSqlQuery>
#include <QTemporaryDir>

#include <stdexcept>

#include <unistd.h>

namespace lantern::test {

namespace {

constexpr int PortAttempts = 5;
constexpr qsizetype SocketPathMax = 107;  // sizeof(sockaddr_un.sun_path) - 1 on Linux

[[noreturn]] void fail(const QString &what, const QByteArray &log = {})
{
    QByteArray text = what.toUtf8();
    if (!log.isEmpty())
        text += "\n---- server log ----\n" + log.right(4000) + "\n---- end of server log ----";
    throw std::runtime_error(text.toStdString());
}

} // namespace

PrivateMariaDb::PrivateMariaDb(const QStringList &extraOptions)
    : m_dir(std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/lantern-mariadb-XXXXXX"))), m_extraOptions(extraOptions)
{
    if (!m_dir->isValid())
        fail(QStringLiteral("cannot create a temp dir: ") + m_dir->errorString());
    if (path(QStringLiteral("mysqld.sock")).size() > SocketPathMax)
        fail(QStringLiteral("temp dir path too long for a unix socket: ") + m_dir->path());

    QProcess install;
    install.setProcessChannelMode(QProcess::MergedChannels);
    QStringList arguments{QStringLiteral("--no-defaults"), QStringLiteral("--datadir=") + path(QStringLiteral("data")),
                          QStringLiteral("--auth-root-authentication-method=normal"), QStringLiteral("--skip-test-db")};
    if (::geteuid() == 0)  // mariadbd refuses to run as root unless told to
        arguments << QStringLiteral("--user=root");
    install.start(QStringLiteral("mariadb-install-db"), arguments);
    if (!install.waitForFinished(static_cast<int>(Timeout.count())) || install.exitStatus() != QProcess::NormalExit
        || install.exitCode() != 0) {
        const QByteArray output = install.readAll();
        fail(QStringLiteral("mariadb-install-db failed: ") + install.errorString(), output);
    }
    start();
}

PrivateMariaDb::~PrivateMariaDb()
{
    try {
        stop();
    } catch (const std::exception &) {
        // stop() already sent SIGKILL; nothing more a destructor can do.
    }
}

QString PrivateMariaDb::path(const QString &name) const
{
    return m_dir->path() + QLatin1Char('/') + name;
}

DbUrl PrivateMariaDb::socketUrl() const
{
    DbUrl url;
    url.dialect = DbUrl::Dialect::MySql;
    url.host = QStringLiteral("localhost");  // the client library takes "localhost" to mean the socket
    url.port = m_port;
    url.user = QStringLiteral("root");
    url.unixSocket = path(QStringLiteral("mysqld.sock"));
    return url;
}

qint64 PrivateMariaDb::pid() const
{
    return m_process ? m_process->processId() : 0;
}

void PrivateMariaDb::start()
{
    if (m_process && m_process->state() != QProcess::NotRunning)
        fail(QStringLiteral("mariadbd is already running (pid %1)").arg(pid()));
    for (int attempt = 0; attempt < PortAttempts; ++attempt) {
        if (!m_started)
            m_port = pickPrivatePort();
        if (tryStart()) {
            m_started = true;
            return;
        }
    }
    fail(QStringLiteral("mariadbd: gave up after %1 ports in use").arg(PortAttempts), errorLog());
}

bool PrivateMariaDb::tryStart()
{
    const QString errorLogPath = path(QStringLiteral("mysqld.err"));
    const qint64 logOffset = QFileInfo(errorLogPath).size();
    QStringList arguments{QStringLiteral("--no-defaults"),
                          QStringLiteral("--datadir=") + path(QStringLiteral("data")),
                          QStringLiteral("--socket=") + path(QStringLiteral("mysqld.sock")),
                          QStringLiteral("--port=%1").arg(m_port),
                          QStringLiteral("--bind-address=127.0.0.1"),
                          QStringLiteral("--pid-file=") + path(QStringLiteral("mysqld.pid")),
                          QStringLiteral("--log-error=") + errorLogPath,
                          QStringLiteral("--skip-name-resolve"),
                          QStringLiteral("--character-set-server=utf8mb4"),
                          QStringLiteral("--collation-server=utf8mb4_unicode_ci"),
                          // No fsync per commit: a throwaway server. A clean stop still loses nothing.
                          QStringLiteral("--innodb-flush-log-at-trx-commit=2")};
    if (::geteuid() == 0)
        arguments << QStringLiteral("--user=root");
    arguments << m_extraOptions;

    m_process = std::make_unique<QProcess>();
    endWithStarter(*m_process);  // a test that aborts leaves no server behind
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setStandardOutputFile(path(QStringLiteral("mysqld.out")), QIODevice::Append);
    m_process->setStandardInputFile(QProcess::nullDevice());
    m_process->start(QStringLiteral("mariadbd"), arguments);
    if (!m_process->waitForStarted(static_cast<int>(Timeout.count())))
        fail(QStringLiteral("cannot start mariadbd: ") + m_process->errorString());

    // Ready means: accepts a connection on its socket. Poll it, watching for an early exit.
    const QDeadlineTimer deadline(Timeout);
    for (;;) {
        try {
            SqlConnection admin(socketUrl());
            // root over TCP from 127.0.0.1 (the server does not resolve names), as lanternd connects.
            admin.exec(QStringLiteral("CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'"));
            admin.exec(QStringLiteral("GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION"));
            break;
        } catch (const SqlUnavailableError &) {
            // Not accepting connections yet.
        }
        // Doubles as the poll interval: returns at once if the server exits.
        if (m_process->waitForFinished(20) || m_process->state() == QProcess::NotRunning) {
            const QByteArray log = readFileFrom(errorLogPath, logOffset);
            if (!m_started && log.contains("Address already in use"))
                return false;
            fail(QStringLiteral("mariadbd exited during startup (exit code %1)").arg(m_process->exitCode()), log);
        }
        if (deadline.hasExpired()) {
            m_process->kill();
            m_process->waitForFinished(5000);
            fail(QStringLiteral("mariadbd did not accept connections within %1 ms").arg(Timeout.count()), readFileFrom(errorLogPath, logOffset));
        }
    }

    // The TCP port must lead to this very server, not to one that was there first.
    DbUrl tcp = socketUrl();
    tcp.host = QStringLiteral("127.0.0.1");
    tcp.unixSocket.clear();
    SqlConnection check(tcp);
    QSqlQuery socket = check.exec(QStringLiteral("SELECT @@socket"));
    if (!socket.next() || socket.value(0).toString() != path(QStringLiteral("mysqld.sock")))
        fail(QStringLiteral("127.0.0.1:%1 does not reach the private mariadbd").arg(m_port));
    return true;
}

void PrivateMariaDb::stop()
{
    if (!m_process || m_process->state() == QProcess::NotRunning)
        return;
    m_process->terminate();  // SIGTERM: a clean shutdown
    if (m_process->waitForFinished(static_cast<int>(Timeout.count())))
        return;
    m_process->kill();
    m_process->waitForFinished(5000);
    fail(QStringLiteral("mariadbd ignored SIGTERM for %1 ms and was killed").arg(Timeout.count()), errorLog());
}

DbUrl PrivateMariaDb::createDatabase(const QString &name)
{
    {
        SqlConnection admin(socketUrl());
        admin.exec(QStringLiteral("CREATE DATABASE IF NOT EXISTS `%1` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci").arg(name));
    }
    DbUrl url = socketUrl();
    url.host = QStringLiteral("127.0.0.1");
    url.unixSocket.clear();
    url.database = name;
    return url;
}

void PrivateMariaDb::execAsRoot(const QString &sql)
{
    SqlConnection admin(socketUrl());
    admin.exec(sql);
}

QString PrivateMariaDb::urlText(const DbUrl &url)
{
    return QStringLiteral("mysql://%1@%2:%3/%4").arg(url.user, url.host).arg(url.port).arg(url.database);
}

QByteArray PrivateMariaDb::errorLog() const
{
    return readFileFrom(path(QStringLiteral("mysqld.err"))) + readFileFrom(path(QStringLiteral("mysqld.out")));
}

} // namespace lantern::test
