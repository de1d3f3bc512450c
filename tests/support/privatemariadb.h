#pragma once

#include "sql/dburl.h"

#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <chrono>
#include <memory>

class QProcess;
class QTemporaryDir;

namespace lantern::test {

/** A MariaDB server of one test's own: mariadb-install-db and mariadbd in a temp dir, TCP on a
    127.0.0.1 port outside the kernel's ephemeral range. For tests that stop and restart their
    server (the shared one of scripts/test must never be stopped). Startup waits until the server
    accepts a connection; every failure throws std::runtime_error carrying the server's log. */
class PrivateMariaDb final {
public:
    /** Bounds each start and stop. */
    static constexpr std::chrono::milliseconds Timeout{30000};

    /** Initialises a fresh data directory and starts the server with `extraOptions` after the
        base ones (e.g. --ssl-ca/--ssl-cert/--ssl-key for TLS). */
    explicit PrivateMariaDb(const QStringList &extraOptions = {});
    /** Stops the server if it runs; the data directory goes with the temp dir. */
    ~PrivateMariaDb();
    Q_DISABLE_COPY_MOVE(PrivateMariaDb)

    /** Starts mariadbd again on the same data directory and port; returns once it answers. */
    void start();
    /** SIGTERM; returns once the process has exited (SIGKILL after Timeout, then throws). */
    void stop();
    bool isRunning() const;
    qint64 pid() const;
    int port() const { return m_port; }

    /** Creates database `name` (if missing) and returns it as lanternd takes it, over TCP:
        mysql://root@127.0.0.1:PORT/NAME. */
    DbUrl createDatabase(const QString &name);
    /** Runs `sql` as root over the Unix socket (CREATE USER ..., GRANT ...). */
    void execAsRoot(const QString &sql);
    static QString urlText(const DbUrl &url);

    /** The server's error log (all starts), for failure messages. */
    QByteArray errorLog() const;

private:
    /** One attempt: false when the port turned out to be taken (only on the first start). */
    bool tryStart();
    DbUrl socketUrl() const;
    QString path(const QString &name) const;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QProcess> m_process;
    QStringList m_extraOptions;
    int m_port = 0;
    bool m_started = false;  // a start has succeeded once: the port is ours and fixed
};

} // namespace lantern::test
