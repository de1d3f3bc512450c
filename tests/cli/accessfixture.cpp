#include "accessfixture.h"

#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testservers.h"

#include <QCoreApplication>
#include <QTemporaryFile>
#include <QUrl>

namespace lantern::test::cli {

AccessFixture::AccessFixture(const QString &redisUrl)
    : m_sql(freshSql(QStringLiteral("mysql"))), m_prefix(uniquePrefix()), m_redisUrl(redisUrl),
      m_admin(redisUrl, m_sql.url, m_prefix, QStringLiteral("2025-03-10"))
{
}

AccessFixture::~AccessFixture()
{
    try {
        RedisClient redis(RedisUrl::parse(m_redisUrl));
        SqlConnection server(mysqlUrl());
        for (const QString &name : m_passwords.keys()) {
            // Accounts a test took its Lantern role from are not operators any more: by hand.
            redis.command({QByteArrayLiteral("ACL"), QByteArrayLiteral("DELUSER"), accountName(name).toUtf8()});
            server.exec(QStringLiteral("DROP USER IF EXISTS '%1'@'%'").arg(accountName(name)));
        }
        deleteKeys(redis, m_prefix.toUtf8());
        for (const char *role : {"viewer", "support", "manager", "oncall", "worker", "api", "admin"})
            server.exec(QStringLiteral("DROP ROLE IF EXISTS `%1_%2`").arg(m_sql.db.database, QLatin1String(role)));
    } catch (const std::exception &) {
        // the servers went away: nothing left to clean
    }
}

QString AccessFixture::accountName(const QString &name) const
{
    return QStringLiteral("%1_%2").arg(name).arg(QCoreApplication::applicationPid());
}

bool AccessFixture::addAccount(const QString &name, const QString &role, QByteArray *failure, Result *added)
{
    QTemporaryFile file;
    const QString password = QStringLiteral("pw-%1-%2-secret").arg(name).arg(QCoreApplication::applicationPid());
    if (!file.open() || file.write(password.toUtf8() + '\n') <= 0 || !file.flush()) {
        *failure = "cannot write a password file";
        return false;
    }
    const Result result = m_admin.run({QStringLiteral("operator"), QStringLiteral("add"), QStringLiteral("--name"), accountName(name),
                                       QStringLiteral("--role"), role, QStringLiteral("--password-file"), file.fileName()});
    if (added)
        *added = result;
    if (result.exitCode != 0) {
        *failure = result.describe();
        return false;
    }
    m_passwords.insert(name, password);
    return true;
}

QString AccessFixture::withCredentials(const QString &url, const QString &name) const
{
    if (url.startsWith(QLatin1String("redis"))) {
        // A cluster's seed list (redis://h1:p1,h2:p2) or the sentinels of redis-sentinel://
        // is no URL QUrl takes: the credentials go right after the scheme.
        const qsizetype hosts = url.indexOf(QLatin1String("://")) + 3;
        return url.left(hosts) + QStringLiteral("%1:%2@").arg(accountName(name), m_passwords.value(name)) + url.mid(hosts);
    }
    QUrl parsed(url);
    parsed.setUserName(accountName(name));
    parsed.setPassword(m_passwords.value(name));
    return parsed.toString();
}

Lanternd AccessFixture::as(const QString &name) const
{
    return Lanternd(withCredentials(m_redisUrl, name), withCredentials(m_sql.url, name), m_prefix, QStringLiteral("2025-03-10"));
}

DbUrl AccessFixture::dbUrlAs(const QString &name) const
{
    return DbUrl::parse(withCredentials(m_sql.url, name));
}

RedisUrl AccessFixture::redisUrlAs(const QString &name) const
{
    return RedisUrl::parse(withCredentials(m_redisUrl, name));
}

} // namespace lantern::test::cli
