#pragma once

#include "access/role.h"

#include <QCoreApplication>
#include <QList>
#include <QString>

#include <optional>

namespace lantern {
class SqlConnection;
}

namespace lantern::access {

/** An operator account as the database knows it: its name and its default role. */
struct SqlAccount {
    QString name;
    Role role = Role::Viewer;
};

/** The MariaDB (and MySQL 8) side of access: the roles with their grants, and the operator
    accounts, each with one Lantern role as its default. Needs an administrative connection
    (CREATE USER, GRANT OPTION on Lantern's database). Account names and password hashes are
    checked by AccountName before they become statement text; nothing else from outside does. */
class SqlAccounts final {
    Q_DECLARE_TR_FUNCTIONS(lantern::access::SqlAccounts)

public:
    explicit SqlAccounts(SqlConnection &connection);

    /** Creates the seven roles and gives each exactly RoleRights::sqlGrants (what it held
        before is revoked first), records the four-eyes bound; idempotent. Refuses a server with
        anonymous accounts: with one, a client could choose the name USER() reports. */
    void install(qint64 approvalCents);

    void add(const QString &name, Role role, const QByteArray &password);
    void remove(const QString &name);
    void rotate(const QString &name, const QByteArray &password);
    void setRole(const QString &name, Role role);
    QList<SqlAccount> list();
    std::optional<SqlAccount> find(const QString &name);

private:
    bool isMariaDb() const { return m_mariaDb; }
    QString databaseName() const;
    QString database() const;
    QString account(const QString &name) const;
    QString identifiedBy(const QByteArray &password) const;
    void grantRole(const QString &name, Role role);
    void requireExisting(const QString &name);

    SqlConnection &m_connection;
    bool m_mariaDb = true;
};

} // namespace lantern::access
