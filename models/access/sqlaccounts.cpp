#include "access/sqlaccounts.h"

#include "access/accountname.h"
#include "access/rolerights.h"
#include "core/errors.h"
#include "sql/sqlconnection.h"
#include "sql/sqlserverversion.h"

#include <QRegularExpression>
#include <QSqlQuery>

namespace lantern::access {

namespace {

/** `name`, for an identifier this code checked or wrote itself. */
QString quoted(const QString &identifier)
{
    return QLatin1Char('`') + identifier + QLatin1Char('`');
}

} // namespace

SqlAccounts::SqlAccounts(SqlConnection &connection) : m_connection(connection)
{
    if (connection.dialect() != DbUrl::Dialect::MySql)
        throw InvalidInputError(tr("accounts and roles need MariaDB or MySQL: SQLite has no accounts (docs/security.md)"));
    m_mariaDb = SqlServerVersion::of(connection).flavour == SqlServerVersion::Flavour::MariaDb;
}

QString SqlAccounts::databaseName() const
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_]{1,64}$"));
    const QString name = m_connection.url().database;
    if (!plain.match(name).hasMatch())
        throw InvalidInputError(tr("database name '%1' cannot be granted on: use A-Z a-z 0-9 _").arg(name));
    return name;
}

QString SqlAccounts::database() const
{
    return quoted(databaseName());
}

QString SqlAccounts::account(const QString &name) const
{
    return QStringLiteral("'%1'@'%'").arg(AccountName::validated(name));
}

QString SqlAccounts::identifiedBy(const QByteArray &password) const
{
    // MariaDB takes the mysql_native_password hash, so the password itself is never sent as
    // statement text; MySQL 8's caching_sha2_password has no such form that we can compute.
    if (m_mariaDb)
        return QStringLiteral(" IDENTIFIED BY PASSWORD '%1'").arg(QString::fromLatin1(AccountName::nativePasswordHash(password)));
    return QStringLiteral(" IDENTIFIED BY '%1'").arg(QString::fromLatin1(AccountName::validatedPassword(password)));
}

void SqlAccounts::install(qint64 approvalCents)
{
    QSqlQuery anonymous = m_connection.exec(QStringLiteral("SELECT COUNT(*) FROM mysql.user WHERE user = ''"));
    if (anonymous.next() && anonymous.value(0).toLongLong() > 0)
        throw RefusedError(tr("the server has anonymous accounts (user ''): with one, a client can pick the name the audit records; "
                              "drop them first (DROP USER ''@'localhost', ...)"));
    const QString db = database();
    // Roles held by a role make REVOKE ALL fail on MariaDB (1147 for a table of the held role's
    // grants): the admin role gives the others back first and takes them again below.
    const QString adminRole = Roles::sqlRole(Role::Admin, databaseName());
    QSqlQuery held = m_mariaDb ? m_connection.exec(QStringLiteral("SELECT Role FROM mysql.roles_mapping WHERE User = ? AND Host = ''"), {adminRole})
                               : m_connection.exec(QStringLiteral("SELECT FROM_USER FROM mysql.role_edges WHERE TO_USER = ? AND TO_HOST = '%'"), {adminRole});
    QStringList heldRoles;
    while (held.next())
        heldRoles << held.value(0).toString();
    for (const QString &role : heldRoles) {
        if (Roles::fromSqlRole(role, databaseName()))  // one of ours, so a checked name
            m_connection.exec(QStringLiteral("REVOKE %1 FROM %2").arg(quoted(role), quoted(adminRole)));
    }
    for (Role role : Roles::all()) {
        const QString name = quoted(Roles::sqlRole(role, databaseName()));
        m_connection.exec(QStringLiteral("CREATE ROLE IF NOT EXISTS ") + name);
        m_connection.exec(QStringLiteral("REVOKE ALL PRIVILEGES, GRANT OPTION FROM ") + name);
        for (const SqlGrant &grant : RoleRights::sqlGrants(role)) {
            const QString on = grant.table == QLatin1String("*") ? QString(db + QStringLiteral(".*")) : QString(db + QLatin1Char('.') + quoted(grant.table));
            m_connection.exec(QStringLiteral("GRANT %1 ON %2 TO %3").arg(grant.privileges, on, name));
        }
    }
    // The admin role manages accounts: it creates users and hands out the other roles.
    const QString admin = quoted(Roles::sqlRole(Role::Admin, databaseName()));
    m_connection.exec(QStringLiteral("GRANT ALL PRIVILEGES ON %1.* TO %2 WITH GRANT OPTION").arg(db, admin));
    m_connection.exec(QStringLiteral("GRANT CREATE USER ON *.* TO ") + admin);
    for (Role role : Roles::all()) {
        if (role != Role::Admin)
            m_connection.exec(QStringLiteral("GRANT %1 TO %2 WITH ADMIN OPTION").arg(quoted(Roles::sqlRole(role, databaseName())), admin));
    }
    m_connection.transaction([&] {
        m_connection.exec(QStringLiteral("DELETE FROM access_policy WHERE name = 'approval_cents'"));
        m_connection.exec(QStringLiteral("INSERT INTO access_policy (name, value) VALUES ('approval_cents', ?)"), {approvalCents});
    });
}

void SqlAccounts::add(const QString &name, Role role, const QByteArray &password)
{
    if (find(name))
        throw RefusedError(tr("the account %1 exists already (operator set-role or rotate change it)").arg(name));
    m_connection.exec(QStringLiteral("CREATE USER ") + account(name) + identifiedBy(password));
    try {
        grantRole(name, role);
    } catch (...) {
        m_connection.exec(QStringLiteral("DROP USER ") + account(name));  // no account without its role left behind
        throw;
    }
}

void SqlAccounts::grantRole(const QString &name, Role role)
{
    const QString sqlRole = quoted(Roles::sqlRole(role, databaseName()));
    m_connection.exec(QStringLiteral("GRANT %1 TO %2").arg(sqlRole, account(name)));
    m_connection.exec(m_mariaDb ? QStringLiteral("SET DEFAULT ROLE %1 FOR %2").arg(sqlRole, account(name))
                                : QStringLiteral("SET DEFAULT ROLE %1 TO %2").arg(sqlRole, account(name)));
}

void SqlAccounts::requireExisting(const QString &name)
{
    if (!find(name))
        throw RefusedError(tr("there is no operator account %1").arg(name));
}

void SqlAccounts::remove(const QString &name)
{
    requireExisting(name);
    m_connection.exec(QStringLiteral("DROP USER ") + account(name));
}

void SqlAccounts::rotate(const QString &name, const QByteArray &password)
{
    requireExisting(name);
    m_connection.exec(QStringLiteral("ALTER USER ") + account(name) + identifiedBy(password));
}

void SqlAccounts::setRole(const QString &name, Role role)
{
    const std::optional<SqlAccount> current = find(name);
    if (!current)
        throw RefusedError(tr("there is no operator account %1").arg(name));
    if (current->role != role)
        m_connection.exec(QStringLiteral("REVOKE %1 FROM %2").arg(quoted(Roles::sqlRole(current->role, databaseName())), account(name)));
    grantRole(name, role);
}

QList<SqlAccount> SqlAccounts::list()
{
    // The accounts whose default role is one of Lantern's, with host '%' as `operator add` makes.
    QSqlQuery query = m_mariaDb ? m_connection.exec(QStringLiteral("SELECT User, default_role FROM mysql.user WHERE Host = '%' "
                                                                   "AND default_role <> '' ORDER BY User"))
                                : m_connection.exec(QStringLiteral("SELECT USER, DEFAULT_ROLE_USER FROM mysql.default_roles WHERE HOST = '%' "
                                                                   "ORDER BY USER"));
    QList<SqlAccount> accounts;
    while (query.next()) {
        if (const auto role = Roles::fromSqlRole(query.value(1).toString(), databaseName()))
            accounts.append({query.value(0).toString(), *role});
    }
    return accounts;
}

std::optional<SqlAccount> SqlAccounts::find(const QString &name)
{
    AccountName::validated(name);
    for (const SqlAccount &candidate : list()) {
        if (candidate.name == name)
            return candidate;
    }
    return std::nullopt;
}

} // namespace lantern::access
