#include "testservers.h"

#include "sql/migrator.h"
#include "sql/sqlconnection.h"

#include <QAtomicInteger>
#include <QCoreApplication>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include <stdexcept>

#include <cerrno>
#include <csignal>

namespace lantern::test {

namespace {
QString requiredEnv(const char *name)
{
    const QString value = QProcessEnvironment::systemEnvironment().value(QString::fromLatin1(name));
    if (value.isEmpty())
        throw std::runtime_error(std::string(name) + " is not set: run the tests through scripts/test, which starts the private servers");
    return value;
}
} // namespace

RedisUrl redisUrl()
{
    return RedisUrl::parse(requiredEnv("LANTERN_TEST_REDIS"));
}

DbUrl mysqlUrl()
{
    // One database per test process, so suites running in parallel never see each other's rows.
    static const DbUrl url = [] {
        DbUrl server = DbUrl::parse(requiredEnv("LANTERN_TEST_MYSQL"));
        const QString name = QStringLiteral("lt_%1").arg(QCoreApplication::applicationPid());
        {
            SqlConnection admin(server);
            admin.exec(QStringLiteral("DROP DATABASE IF EXISTS ") + name);
            admin.exec(QStringLiteral("CREATE DATABASE ") + name + QStringLiteral(" CHARACTER SET utf8mb4"));
        }
        server.database = name;
        return server;
    }();
    return url;
}

DbUrl sqliteUrl()
{
    static QTemporaryDir dir;
    static QAtomicInteger<int> counter;
    return DbUrl::parse(QStringLiteral("sqlite://") + dir.path() + QStringLiteral("/test-%1.db").arg(counter.fetchAndAddRelaxed(1)));
}

QList<std::pair<QString, DbUrl>> sqlDialects()
{
    return {{QStringLiteral("mysql"), mysqlUrl()}, {QStringLiteral("sqlite"), sqliteUrl()}};
}

QString uniquePrefix()
{
    static QAtomicInteger<int> counter;
    return QStringLiteral("t%1_%2:").arg(QCoreApplication::applicationPid()).arg(counter.fetchAndAddRelaxed(1));
}

void resetTables(const DbUrl &url)
{
    SqlConnection connection(url);
    Migrator(connection).migrate();
    for (const char *table : {"checkin_log", "points_ledger", "audit_log", "payout", "grab_refused", "grab", "ledger_tally", "envelope", "envelope_split", "campaign_schedule",
                              "campaign"})
        connection.exec(QStringLiteral("DELETE FROM ") + QLatin1String(table));
}

int signalChild(qint64 pid, int signal)
{
    if (pid <= 0) {
        errno = ESRCH;
        return -1;
    }
    return ::kill(pid_t(pid), signal);
}

} // namespace lantern::test
