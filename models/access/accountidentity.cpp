#include "access/accountidentity.h"

#include "sql/sqlconnection.h"

#include <QSqlQuery>

namespace lantern::access {

QString AccountIdentity::text() const
{
    return role ? tr("%1 (%2)").arg(account, Roles::name(*role)) : account;
}

QString AccountIdentity::refusal(Action action) const
{
    return tr("the account %1 may not %2").arg(text(), Roles::actionText(action));
}

AccountIdentity AccountIdentity::of(SqlConnection &connection)
{
    AccountIdentity identity;
    if (connection.dialect() != DbUrl::Dialect::MySql)
        return identity;
    QSqlQuery query = connection.exec(QStringLiteral("SELECT USER(), CURRENT_ROLE()"));
    if (query.next()) {
        identity.account = query.value(0).toString().section(QLatin1Char('@'), 0, 0);
        identity.role = parseCurrentRole(query.value(1).toString(), connection.url().database);
    }
    return identity;
}

std::optional<Role> AccountIdentity::parseCurrentRole(const QString &text, const QString &database)
{
    // MySQL 8 lists every active role, comma separated; MariaDB has one at a time.
    for (QString role : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        role = role.trimmed().section(QLatin1Char('@'), 0, 0).remove(QLatin1Char('`')).remove(QLatin1Char('\''));
        if (const auto found = Roles::fromSqlRole(role, database))
            return found;
    }
    return std::nullopt;
}

} // namespace lantern::access
