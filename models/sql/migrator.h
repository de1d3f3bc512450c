#pragma once

#include <QCoreApplication>

#include <memory>

namespace lantern {

class SqlConnection;
struct DbUrl;

/** Opens a connection for this thread (creating an SQLite file's directory) with its schema
    brought up to date; throws SqlUnavailableError when the database cannot be reached. */
std::unique_ptr<SqlConnection> openMigrated(const DbUrl &url);

/** Applies the versioned migrations compiled in from resources/sql/<dialect>/NNNN_name.sql.
    Each file is one version; applying is idempotent and serialised between processes
    (GET_LOCK on MySQL, an immediate transaction on SQLite). */
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

private:
    SqlConnection &m_connection;
};

} // namespace lantern
