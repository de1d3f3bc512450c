#include "sql/sqlserverversion.h"

#include "sql/sqlconnection.h"

#include <QRegularExpression>

#include <tuple>

namespace lantern {

SqlServerVersion SqlServerVersion::parse(DbUrl::Dialect dialect, const QString &text)
{
    // MariaDB 10.x prefixes its handshake version with "5.5.5-" for clients that compare
    // versions; VERSION() does not, but a text taken from the handshake may.
    static const QRegularExpression handshakePrefix(QStringLiteral("^5\\.5\\.5-(?=\\d+\\.\\d+.*MariaDB)"),
                                                    QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression numbers(QStringLiteral("^(\\d+)\\.(\\d+)(?:\\.(\\d+))?"));
    SqlServerVersion version;
    version.text = text;
    if (dialect == DbUrl::Dialect::Sqlite)
        version.flavour = Flavour::Sqlite;
    else
        version.flavour = text.contains(QLatin1String("MariaDB"), Qt::CaseInsensitive) ? Flavour::MariaDb : Flavour::MySql;
    QString rest = text.trimmed();
    rest.remove(handshakePrefix);
    if (const auto match = numbers.match(rest); match.hasMatch()) {
        version.major = match.captured(1).toInt();
        version.minor = match.captured(2).toInt();
        version.patch = match.captured(3).toInt();
    }
    return version;
}

SqlServerVersion SqlServerVersion::of(SqlConnection &connection)
{
    const bool mysql = connection.dialect() == DbUrl::Dialect::MySql;
    QSqlQuery query = connection.exec(mysql ? QStringLiteral("SELECT VERSION()") : QStringLiteral("SELECT sqlite_version()"));
    return parse(connection.dialect(), query.next() ? query.value(0).toString() : QString());
}

bool SqlServerVersion::isAtLeast(int wantedMajor, int wantedMinor, int wantedPatch) const
{
    return std::tie(major, minor, patch) >= std::tie(wantedMajor, wantedMinor, wantedPatch);
}

} // namespace lantern
