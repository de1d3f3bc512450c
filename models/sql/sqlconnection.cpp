#include "sql/sqlconnection.h"

#include <QAtomicInteger>
#include <QSqlError>
#include <QRegularExpression>
#include <QThread>

#include <algorithm>

namespace lantern {

namespace {
QAtomicInteger<quint64> s_connectionCounter;

bool isConnectionLost(const QSqlError &error)
{
    // MySQL client errors 2002/2003/2006/2013 (and 2055): server gone, unreachable, lost; server
    // errors 1053 (shutdown in progress) and 1927 (connection killed): the same to a caller.
    const QString code = error.nativeErrorCode();
    return code == QLatin1String("2002") || code == QLatin1String("2003") || code == QLatin1String("2006")
            || code == QLatin1String("2013") || code == QLatin1String("2055") || code == QLatin1String("1053")
            || code == QLatin1String("1927");
}

/** The server refused for want of a privilege: 1044 (database), 1142 (table), 1143 (column),
    1227 (a global privilege such as CREATE USER), 1370 (routine), 1410 (granting). */
bool isAccessDenied(const QSqlError &error)
{
    static const QStringList codes{QStringLiteral("1044"), QStringLiteral("1142"), QStringLiteral("1143"), QStringLiteral("1227"),
                                   QStringLiteral("1370"), QStringLiteral("1410")};
    return codes.contains(error.nativeErrorCode());
}

/** A rule a trigger enforces (SIGNAL SQLSTATE '45000', error 1644) with Lantern's name for it as
    the message: "needs_approval", "same_account" (resources/sql/mysql/0007_access.sql). */
QString namedRule(const QSqlError &error)
{
    static const QStringList rules{QStringLiteral("needs_approval"), QStringLiteral("same_account")};
    if (error.nativeErrorCode() != QLatin1String("1644"))
        return {};
    for (const QString &rule : rules) {
        if (error.databaseText().contains(rule))
            return rule;
    }
    return {};
}

/** A single SELECT that writes nothing (no SELECT ... INTO OUTFILE/DUMPFILE). */
bool isPlainSelect(const QString &sql)
{
    static const QRegularExpression select(QStringLiteral("^\\s*\\(*\\s*SELECT\\b"), QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression intoFile(QStringLiteral("\\bINTO\\s+(OUTFILE|DUMPFILE)\\b"), QRegularExpression::CaseInsensitiveOption);
    return select.match(sql).hasMatch() && !intoFile.match(sql).hasMatch();
}
/** ";SSL_CA=...;SSL_CERT=...;SSL_KEY=..." for QMYSQL (mysql_ssl_set: TLS on, the chain checked
    against SSL_CA). */
QString tlsOptions(const DbTlsOptions &tls)
{
    QString options;
    const std::pair<const char *, const QString *> files[] = {{"SSL_CA", &tls.caFile}, {"SSL_CERT", &tls.certFile}, {"SSL_KEY", &tls.keyFile}};
    for (const auto &[name, file] : files) {
        if (!file->isEmpty())
            options += QLatin1Char(';') + QLatin1String(name) + QLatin1Char('=') + *file;
    }
    return options;
}

/** After "access denied" without TLS: whether the same account gets in over TLS (encrypted,
    nothing checked, closed at once), i.e. it is a REQUIRE SSL account and the password is right.
    Only to say so; nothing runs on it. */
bool acceptsTls(const DbUrl &url)
{
    const QString name = QStringLiteral("lantern-tls-probe-%1").arg(s_connectionCounter.fetchAndAddRelaxed(1));
    bool accepted = false;
    {
        QSqlDatabase probe = QSqlDatabase::addDatabase(url.driverName(), name);
        probe.setHostName(url.host);
        probe.setPort(url.port);
        probe.setUserName(url.user);
        probe.setPassword(url.password);
        probe.setDatabaseName(url.database);
        probe.setConnectOptions(QStringLiteral("MYSQL_OPT_CONNECT_TIMEOUT=3;SSL_CIPHER=HIGH"));
        accepted = probe.open();
        probe.close();
    }
    QSqlDatabase::removeDatabase(name);
    return accepted;
}

} // namespace

SqlConnection::SqlConnection(const DbUrl &url, SqlAccess access)
    : m_url(url), m_access(access), m_name(QStringLiteral("lantern-%1").arg(s_connectionCounter.fetchAndAddRelaxed(1)))
{
    QSqlDatabase db = QSqlDatabase::addDatabase(url.driverName(), m_name);
    if (url.dialect == DbUrl::Dialect::Sqlite) {
        db.setDatabaseName(url.path);
        db.setConnectOptions(access == SqlAccess::ReadOnly ? QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000;QSQLITE_OPEN_READONLY")
                                                           : QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    } else {
        db.setHostName(url.host);
        db.setPort(url.port);
        db.setUserName(url.user);
        db.setPassword(url.password);
        db.setDatabaseName(url.database);
        QString options = QStringLiteral("MYSQL_OPT_CONNECT_TIMEOUT=3;MYSQL_OPT_READ_TIMEOUT=30;MYSQL_OPT_WRITE_TIMEOUT=30");
        if (!url.unixSocket.isEmpty())
            options += QStringLiteral(";UNIX_SOCKET=") + url.unixSocket;
        options += tlsOptions(url.tls);
        db.setConnectOptions(options);
    }
    if (!db.open()) {
        const QSqlError error = db.lastError();
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_name);
        if (url.dialect == DbUrl::Dialect::MySql && !url.tls.enabled() && error.nativeErrorCode() == QLatin1String("1045")
            && acceptsTls(url))
            throw SqlUnavailableError(tr("cannot open database %1: the account requires TLS (REQUIRE SSL): give the server's CA "
                                         "with --db-ca FILE (and --db-cert, --db-key for an account that requires a certificate)")
                                              .arg(url.redacted()));
        if (error.nativeErrorCode() == QLatin1String("1044"))  // the account may not use this database
            throw ForbiddenError(tr("cannot open database %1: %2").arg(url.redacted(), error.text()));
        throw SqlUnavailableError(tr("cannot open database %1: %2").arg(url.redacted(), error.text()));
    }
    if (url.dialect == DbUrl::Dialect::Sqlite) {
        if (access == SqlAccess::ReadWrite)
            enableWal();
        run(QStringLiteral("PRAGMA foreign_keys=ON"));
    } else {
        run(QStringLiteral("SET SESSION sql_mode='STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO'"));
        run(QStringLiteral("SET SESSION time_zone='+00:00'"));
        if (access == SqlAccess::ReadOnly)
            run(QStringLiteral("SET SESSION TRANSACTION READ ONLY"));
    }
}

void SqlConnection::enableWal()
{
    // WAL is a property of the file, set once by whichever connection comes first. Switching
    // needs a moment without other transactions, and SQLite answers "locked" at once instead of
    // waiting out its busy timeout, so connections opened side by side retry for up to 5 s.
    for (int attempt = 0;; ++attempt) {
        try {
            QSqlQuery mode = run(QStringLiteral("PRAGMA journal_mode"));
            const bool wal = mode.next() && mode.value(0).toString().compare(QLatin1String("wal"), Qt::CaseInsensitive) == 0;
            mode.finish();  // an open statement is a read transaction, in which the mode cannot change
            if (!wal)
                run(QStringLiteral("PRAGMA journal_mode=WAL")).finish();
            return;
        } catch (const SqlError &error) {
            if (attempt >= 250 || !error.message().contains(QLatin1String("locked")))
                throw;
            QThread::msleep(20);
        }
    }
}

SqlConnection::~SqlConnection()
{
    m_prepared.clear();  // before the connection goes
    {
        QSqlDatabase db = QSqlDatabase::database(m_name, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_name);
}

QSqlDatabase SqlConnection::database() const
{
    return QSqlDatabase::database(m_name, false);
}

void SqlConnection::fail(const QString &during, const QSqlError &error) const
{
    const QString message = tr("%1 failed on %2: %3").arg(during, m_url.redacted(), error.text());
    if (isConnectionLost(error))
        throw SqlUnavailableError(message);
    if (isAccessDenied(error))
        throw ForbiddenError(message);
    if (const QString rule = namedRule(error); !rule.isEmpty())
        throw NamedRefusal(rule, message);
    throw SqlError(message + QStringLiteral(" [") + error.nativeErrorCode() + QLatin1Char(']'));
}

QSqlQuery SqlConnection::exec(const QString &sql, const QVariantList &values)
{
    if (m_access == SqlAccess::ReadOnly && !isPlainSelect(sql))
        throw SqlReadOnlyError(tr("read-only connection (setting read-only): '%1' was not run on %2; only SELECT statements are allowed")
                                       .arg(sql.simplified().left(60), m_url.redacted()));
    return run(sql, values);
}

QSqlQuery SqlConnection::run(const QString &sql, const QVariantList &values)
{
    QSqlQuery query(database());
    query.setForwardOnly(true);
    if (!query.prepare(sql))
        fail(tr("preparing '%1'").arg(sql.left(80)), query.lastError());
    for (const QVariant &value : values)
        query.addBindValue(value);
    if (!query.exec())
        fail(tr("running '%1'").arg(sql.left(80)), query.lastError());
    return query;
}

void SqlConnection::runMigrationText(const QString &sql)
{
    if (m_access == SqlAccess::ReadOnly)
        throw SqlReadOnlyError(tr("read-only connection (setting read-only): '%1' was not run on %2; only SELECT statements are allowed")
                                       .arg(sql.simplified().left(60), m_url.redacted()));
    QSqlQuery query(database());
    if (!query.exec(sql))
        fail(tr("running '%1'").arg(sql.left(80)), query.lastError());
}

int SqlConnection::write(const QString &sql, const QVariantList &values)
{
    constexpr size_t Kept = 16;
    if (m_access == SqlAccess::ReadOnly)
        throw SqlReadOnlyError(tr("read-only connection (setting read-only): '%1' was not run on %2; only SELECT statements are allowed")
                                       .arg(sql.simplified().left(60), m_url.redacted()));
    auto it = std::find_if(m_prepared.begin(), m_prepared.end(), [&sql](const auto &entry) { return entry.first == sql; });
    if (it != m_prepared.end()) {
        m_prepared.splice(m_prepared.begin(), m_prepared, it);
    } else {
        QSqlQuery query(database());
        query.setForwardOnly(true);
        if (!query.prepare(sql))
            fail(tr("preparing '%1'").arg(sql.left(80)), query.lastError());
        m_prepared.emplace_front(sql, std::move(query));
        if (m_prepared.size() > Kept)
            m_prepared.pop_back();
    }
    QSqlQuery &query = m_prepared.front().second;
    for (qsizetype i = 0; i < values.size(); ++i)
        query.bindValue(static_cast<int>(i), values.at(i));
    if (!query.exec()) {
        const QSqlError error = query.lastError();
        m_prepared.pop_front();  // not reused after a failure
        fail(tr("running '%1'").arg(sql.left(80)), error);
    }
    const int affected = query.numRowsAffected();
    query.finish();  // keeps the statement prepared, releases what it holds (SQLite's read lock)
    return affected;
}

QString SqlConnection::insertIgnoreInto() const
{
    return m_url.dialect == DbUrl::Dialect::MySql ? QStringLiteral("INSERT IGNORE INTO ") : QStringLiteral("INSERT OR IGNORE INTO ");
}

QString SqlConnection::placeholderRows(qsizetype rows, int columns)
{
    QString row = QStringLiteral("(?");
    for (int i = 1; i < columns; ++i)
        row += QStringLiteral(",?");
    row += QLatin1Char(')');
    return QStringList(rows, row).join(QLatin1Char(','));
}

void SqlConnection::begin()
{
    QSqlDatabase db = database();
    if (!db.transaction())
        fail(QStringLiteral("BEGIN"), db.lastError());
}

void SqlConnection::commit()
{
    QSqlDatabase db = database();
    if (!db.commit())
        fail(QStringLiteral("COMMIT"), db.lastError());
}

void SqlConnection::lockForWriting()
{
    if (dialect() == DbUrl::Dialect::Sqlite)
        exec(QStringLiteral("UPDATE campaign SET status = status WHERE 0 = 1"));
}

void SqlConnection::rollback()
{
    database().rollback();
}

bool SqlConnection::isRetryable(const SqlError &error)
{
    // MySQL 1213 deadlock, 1205 lock wait timeout; SQLite "database is locked".
    const QString text = error.message();
    return text.contains(QLatin1String("[1213]")) || text.contains(QLatin1String("[1205]"))
            || text.contains(QLatin1String("database is locked"));
}

} // namespace lantern
