#pragma once

#include "sql/dburl.h"

#include <QCoreApplication>
#include <QStringList>

#include <memory>

namespace lantern {

class SqlConnection;

/** Opens a connection for this thread (creating an SQLite file's directory) with its schema
    brought up to date; throws SqlUnavailableError when the database cannot be reached. */
std::unique_ptr<SqlConnection> openMigrated(const DbUrl &url);

/** Applies the versioned migrations compiled in from resources/sql/<dialect>/NNNN_name.sql.
    Each file is one version; applying is idempotent and serialised between processes
    (GET_LOCK on MySQL, an immediate transaction on SQLite). MySQL commits each DDL statement at
    once, so a crash can leave a version half applied: a statement that adds or drops a column or
    an index is skipped when the schema already shows it (SchemaChange), and every other
    statement of a migration must be harmless to repeat (CREATE TABLE IF NOT EXISTS ...). The
    MySQL files use only what MySQL 8.0 and MariaDB 10.6+ both take (tst_mysqlportability). */
class Migrator final {
    Q_DECLARE_TR_FUNCTIONS(lantern::Migrator)

public:
    explicit Migrator(SqlConnection &connection) : m_connection(connection) {}

    /** The newest version compiled into this binary. */
    static int latestVersion();
    /** Version recorded in the database, 0 when none. */
    int currentVersion();
    /** Applies what is missing and returns the resulting version. */
    int migrate();
    /** Applies what is missing up to `target` (never down) and returns the resulting version. */
    int migrateTo(int target);

    /** The statements of one migration file, in order; empty when there is no such version. */
    static QStringList migrationStatements(DbUrl::Dialect dialect, int version);
    /** Splits a migration's text into statements: a statement ends with ';' at the end of a
        line; lines starting with "--" are comments. */
    static QStringList splitStatements(const QString &text);

private:
    SqlConnection &m_connection;
};

} // namespace lantern
