#pragma once

#include "sql/dburl.h"

#include <QString>

namespace lantern {

class SqlConnection;

/** The server behind a connection: MariaDB, MySQL or SQLite, and its version, as reported by
    SELECT VERSION() (sqlite_version() on SQLite). Read once after connecting by whatever needs a
    statement whose form differs between MySQL 8 and MariaDB (docs/decisions.md, "MySQL 8 and
    MariaDB": SET DEFAULT ROLE ... TO on MySQL, ... FOR on MariaDB, and MySQL's
    activate_all_roles_on_login). */
struct SqlServerVersion {
    enum class Flavour { MariaDb, MySql, Sqlite };

    Flavour flavour = Flavour::MySql;
    int major = 0;
    int minor = 0;
    int patch = 0;
    QString text;  // as the server reported it

    /** Reads the version text of a server of this dialect: "10.11.6-MariaDB-0+deb12u1" and the
        handshake form "5.5.5-10.11.6-MariaDB" are MariaDB, any other MySQL-dialect text
        ("8.0.36", "8.4.0-commercial", "8.0.36-28" of Percona) is MySQL. */
    static SqlServerVersion parse(DbUrl::Dialect dialect, const QString &text);
    /** Asks the server behind the connection. Throws SqlError / SqlUnavailableError. */
    static SqlServerVersion of(SqlConnection &connection);

    bool isAtLeast(int wantedMajor, int wantedMinor, int wantedPatch = 0) const;
};

} // namespace lantern
