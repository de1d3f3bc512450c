#pragma once

#include <QCoreApplication>
#include <QString>

namespace lantern {

/** mysql://user:password@host:port/dbname[?unix_socket=PATH] or sqlite:///absolute/path.db */
struct DbUrl {
    Q_DECLARE_TR_FUNCTIONS(lantern::DbUrl)

public:
    enum class Dialect { MySql, Sqlite };

    Dialect dialect = Dialect::Sqlite;
    QString host;
    int port = 3306;
    QString user;
    QString password;
    QString database;    // MySQL schema name
    QString unixSocket;  // MySQL only
    QString path;        // SQLite file

    /** Throws InvalidInputError naming what is wrong. */
    static DbUrl parse(const QString &text);
    QString redacted() const;
    QString driverName() const;
};

} // namespace lantern
