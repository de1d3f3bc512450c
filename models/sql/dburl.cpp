#include "sql/dburl.h"

#include "core/errors.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QUrl>
#include <QUrlQuery>

namespace lantern {

DbUrl DbUrl::parse(const QString &text)
{
    const QUrl url(text, QUrl::StrictMode);
    const auto invalid = [&text](const QString &why) {
        return InvalidInputError(tr("invalid database URL '%1': %2").arg(QUrl(text).toDisplayString(QUrl::RemovePassword), why));
    };
    if (!url.isValid())
        throw invalid(tr("expected mysql://user:password@host:port/dbname or sqlite:///absolute/path.db"));

    DbUrl result;
    if (url.scheme() == QLatin1String("sqlite")) {
        result.dialect = Dialect::Sqlite;
        result.path = url.path(QUrl::FullyDecoded);
        if (!url.host().isEmpty() || !QDir::isAbsolutePath(result.path) || result.path.endsWith(QLatin1Char('/')))
            throw invalid(tr("SQLite needs an absolute file path, as sqlite:///var/lib/lantern/lantern.db"));
        return result;
    }
    if (url.scheme() != QLatin1String("mysql"))
        throw invalid(tr("the scheme must be mysql or sqlite"));

    result.dialect = Dialect::MySql;
    result.host = url.host();
    result.port = url.port(3306);
    result.user = url.userName(QUrl::FullyDecoded);
    result.password = url.password(QUrl::FullyDecoded);
    result.database = url.path().mid(1);
    static const QRegularExpression validName(QStringLiteral("^[A-Za-z0-9_]{1,64}$"));
    if (result.host.isEmpty())
        throw invalid(tr("missing host"));
    if (!validName.match(result.database).hasMatch())
        throw invalid(tr("the database name must be 1 to 64 of A-Z a-z 0-9 _"));
    if (result.user.isEmpty())
        throw invalid(tr("missing user"));
    const QUrlQuery query(url);
    for (const auto &[key, value] : query.queryItems(QUrl::FullyDecoded)) {
        if (key == QLatin1String("unix_socket"))
            result.unixSocket = value;
        else
            throw invalid(tr("unknown parameter '%1' (only unix_socket is supported)").arg(key));
    }
    return result;
}

void DbUrl::checkTls() const
{
    if (!tls.enabled() && tls.keyFile.isEmpty())
        return;
    if (dialect != Dialect::MySql)
        throw InvalidInputError(tr("--db-ca, --db-cert and --db-key are for MySQL and MariaDB, not SQLite"));
    if (!tls.keyFile.isEmpty() && tls.certFile.isEmpty())
        throw InvalidInputError(tr("--db-key needs its certificate: give --db-cert too"));
    for (const QString &file : {tls.caFile, tls.certFile, tls.keyFile}) {
        if (file.contains(QLatin1Char(';')) || file.contains(QLatin1Char('=')))
            throw InvalidInputError(tr("the TLS file name %1 holds ';' or '=', which the MySQL driver's options cannot carry").arg(file));
        if (!file.isEmpty() && !QFileInfo(file).isReadable())
            throw InvalidInputError(tr("cannot read the database TLS file %1").arg(file));
    }
}

QString DbUrl::redacted() const
{
    if (dialect == Dialect::Sqlite)
        return QStringLiteral("sqlite://") + path;
    QString text = QStringLiteral("mysql://") + user + (password.isEmpty() ? QString() : QStringLiteral(":***"))
            + QLatin1Char('@') + host + QLatin1Char(':') + QString::number(port) + QLatin1Char('/') + database;
    if (!unixSocket.isEmpty())
        text += QStringLiteral("?unix_socket=") + unixSocket;
    return text;
}

QString DbUrl::driverName() const
{
    return dialect == Dialect::MySql ? QStringLiteral("QMYSQL") : QStringLiteral("QSQLITE");
}

} // namespace lantern
