#include "sql/migrator.h"

#include "sql/schemachange.h"
#include "sql/sqlconnection.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <map>

namespace lantern {

namespace {

QString dialectDir(DbUrl::Dialect dialect)
{
    return dialect == DbUrl::Dialect::MySql ? QStringLiteral(":/sql/mysql") : QStringLiteral(":/sql/sqlite");
}

/** version -> file path, from the embedded resources. */
std::map<int, QString> migrationFiles(DbUrl::Dialect dialect)
{
    std::map<int, QString> files;
    static const QRegularExpression pattern(QStringLiteral("^(\\d{4})_[a-z0-9_]+\\.sql$"));
    const QDir dir(dialectDir(dialect));
    for (const QString &name : dir.entryList(QDir::Files, QDir::Name)) {
        const auto match = pattern.match(name);
        if (match.hasMatch())
            files.emplace(match.captured(1).toInt(), dir.filePath(name));
    }
    return files;
}

QString readResource(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw SqlError(QStringLiteral("migration resource %1 is missing").arg(path));
    return QString::fromUtf8(file.readAll());
}

} // namespace

std::unique_ptr<SqlConnection> openMigrated(const DbUrl &url)
{
    if (url.dialect == DbUrl::Dialect::Sqlite) {
        const QString dir = QFileInfo(url.path).absolutePath();
        if (!QDir().mkpath(dir))
            throw SqlUnavailableError(QCoreApplication::translate("lantern::Migrator", "cannot create the database directory %1").arg(dir));
    }
    auto connection = std::make_unique<SqlConnection>(url);
    Migrator migrator(*connection);
    if (migrator.currentVersion() < Migrator::latestVersion())
        migrator.migrate();
    return connection;
}

QStringList Migrator::splitStatements(const QString &text)
{
    QStringList result;
    QString current;
    for (const QString &line : text.split(QLatin1Char('\n'))) {
        const QString trimmed = line.trimmed();
        if (trimmed.isEmpty() || trimmed.startsWith(QLatin1String("--")))
            continue;
        current += line + QLatin1Char('\n');
        if (trimmed.endsWith(QLatin1Char(';'))) {
            result << current.trimmed().chopped(1);
            current.clear();
        }
    }
    if (!current.trimmed().isEmpty())
        result << current.trimmed();
    return result;
}

QStringList Migrator::migrationStatements(DbUrl::Dialect dialect, int version)
{
    const auto files = migrationFiles(dialect);
    const auto it = files.find(version);
    return it == files.end() ? QStringList() : splitStatements(readResource(it->second));
}

int Migrator::latestVersion()
{
    const auto files = migrationFiles(DbUrl::Dialect::Sqlite);
    return files.empty() ? 0 : files.rbegin()->first;
}

int Migrator::currentVersion()
{
    // Created only when missing: an account without CREATE (every role but admin, docs/security.md)
    // is refused CREATE TABLE IF NOT EXISTS even for a table that exists.
    // (A read-only connection is refused the statement, as it always was: it never migrates.)
    if (m_connection.isReadOnly() || !m_connection.database().tables().contains(QStringLiteral("schema_version")))
        m_connection.exec(QStringLiteral("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL PRIMARY KEY, applied_at_ms BIGINT NOT NULL)"));
    QSqlQuery query = m_connection.exec(QStringLiteral("SELECT COALESCE(MAX(version), 0) FROM schema_version"));
    return query.next() ? query.value(0).toInt() : 0;
}

int Migrator::migrate()
{
    return migrateTo(latestVersion());
}

int Migrator::migrateTo(int target)
{
    const bool mysql = m_connection.dialect() == DbUrl::Dialect::MySql;
    if (mysql) {
        QSqlQuery lock = m_connection.exec(QStringLiteral("SELECT GET_LOCK('lantern_migrate', 30)"));
        if (!lock.next() || lock.value(0).toInt() != 1)
            throw SqlError(tr("another process holds the migration lock for over 30 s"));
    } else {
        m_connection.exec(QStringLiteral("BEGIN IMMEDIATE"));
    }
    const auto release = [&] {
        if (mysql)
            m_connection.exec(QStringLiteral("SELECT RELEASE_LOCK('lantern_migrate')"));
        else
            m_connection.exec(QStringLiteral("COMMIT"));
    };
    try {
        int version = currentVersion();
        for (const auto &[fileVersion, path] : migrationFiles(m_connection.dialect())) {
            if (fileVersion <= version)
                continue;
            if (fileVersion > target)
                break;
            for (const QString &statement : splitStatements(readResource(path))) {
                const auto change = SchemaChange::parse(statement);
                if (change && change->isMade(m_connection))
                    continue;  // made by a run that stopped before recording this version
                if (statement.startsWith(QLatin1String("CREATE TRIGGER")))
                    m_connection.runMigrationText(statement);  // MySQL 8 cannot prepare it
                else
                    m_connection.exec(statement);
            }
            m_connection.exec(QStringLiteral("INSERT INTO schema_version (version, applied_at_ms) VALUES (?, ?)"),
                              {fileVersion, QDateTime::currentMSecsSinceEpoch()});
            version = fileVersion;
        }
        release();
        return version;
    } catch (...) {
        if (mysql)
            m_connection.exec(QStringLiteral("SELECT RELEASE_LOCK('lantern_migrate')"));
        else
            m_connection.exec(QStringLiteral("ROLLBACK"));
        throw;
    }
}

} // namespace lantern
