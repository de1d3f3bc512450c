#pragma once

#include <QCoreApplication>
#include <QString>

namespace lantern {

/** TLS to MySQL/MariaDB through Qt 6.4's QMYSQL (--db-ca, --db-cert, --db-key: docs/connect.md).
    The chain is checked against the CA; the host name is not (QMYSQL 6.4 cannot ask for it). */
struct DbTlsOptions {
    QString caFile;    // SSL_CA: turns TLS on and checks the server's chain
    QString certFile;  // SSL_CERT: client certificate (REQUIRE X509 accounts)
    QString keyFile;   // SSL_KEY
    bool enabled() const { return !caFile.isEmpty() || !certFile.isEmpty(); }
    bool operator==(const DbTlsOptions &other) const = default;
};

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
    DbTlsOptions tls;    // MySQL only, from --db-ca, --db-cert, --db-key (Config)

    /** Throws InvalidInputError naming what is wrong. */
    static DbUrl parse(const QString &text);
    QString redacted() const;
    QString driverName() const;
    /** Throws InvalidInputError for TLS files on SQLite, a key without its certificate, or a
        path QMYSQL's option string cannot carry. */
    void checkTls() const;
};

} // namespace lantern
