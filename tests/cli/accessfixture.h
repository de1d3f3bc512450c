#pragma once

// Operator accounts for the access tests (issue 25): a fresh MariaDB database with Lantern's
// roles installed, one account per role on MariaDB and on the test Redis, and lanternd runs
// under each of them. Everything it made goes when it goes (accounts, roles, ACL users, keys).

#include "clitest.h"

#include <QMap>
#include <QString>

namespace lantern::test::cli {

class AccessFixture final {
public:
    /** `redisUrl`: the Redis (or the cluster's seed list) the accounts are made on. */
    explicit AccessFixture(const QString &redisUrl = redisUrlText());
    ~AccessFixture();
    Q_DISABLE_COPY_MOVE(AccessFixture)

    /** Made with `operator add --name <name>_<pid> --role <role>`; false (and `failure`) when not.
        What lanternd printed goes to `added` when given. */
    bool addAccount(const QString &name, const QString &role, QByteArray *failure, Result *added = nullptr);
    QString accountName(const QString &name) const;
    QString password(const QString &name) const { return m_passwords.value(name); }

    /** lanternd as root (the set-up's administrative account). */
    const Lanternd &admin() const { return m_admin; }
    /** lanternd under account `name` on both servers. */
    Lanternd as(const QString &name) const;
    /** The MySQL URL under account `name`, and the Redis URL. */
    DbUrl dbUrlAs(const QString &name) const;
    RedisUrl redisUrlAs(const QString &name) const;

    const SqlTarget &sql() const { return m_sql; }
    const QString &prefix() const { return m_prefix; }
    QString redisUrl() const { return m_redisUrl; }

private:
    QString withCredentials(const QString &url, const QString &name) const;

    SqlTarget m_sql;
    QString m_prefix;
    QString m_redisUrl;
    Lanternd m_admin;
    QMap<QString, QString> m_passwords;  // short name -> password
};

} // namespace lantern::test::cli
