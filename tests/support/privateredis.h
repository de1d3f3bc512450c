#pragma once

#include "redis/redisurl.h"

#include <QByteArray>
#include <QByteArrayList>
#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

class QProcess;
class QTemporaryDir;

namespace lantern::test {

/** One command on a fresh hiredis connection to 127.0.0.1:`port` (after AUTH `password` when
    given), bounded by `timeout`: the reply as PrivateRedis::command renders it, an error reply
    prefixed with '-'; nullopt when nothing answered. For servers the tests start themselves
    (sentinels among them), never through the code under test. */
std::optional<QByteArray> rawRedisCommand(int port, const QByteArrayList &args, std::chrono::milliseconds timeout,
                                          const QByteArray &password = {});

/** A redis-server of one test's own: a temp dir, TCP on a 127.0.0.1 port below the kernel's
    ephemeral range (and below 55536, so that the port + 10000 of a cluster bus is valid too).
    For tests that crash, stop and restart Redis, or watch it load its dataset (the shared server
    of scripts/test must never be stopped). A start returns as soon as the server answers, which
    may be with -LOADING. Every failure throws std::runtime_error carrying the server's log.
    It talks to its server over hiredis directly, never through the code under test. */
class PrivateRedis final {
public:
    /** Bounds each start, stop, save and finishLoading(). */
    static constexpr std::chrono::milliseconds Timeout{30000};

    enum class Stop {
        Shutdown,   // SHUTDOWN NOSAVE: no RDB written, the AOF (if on) flushed and fsynced
        Terminate,  // SIGTERM: exits as configured (an RDB save when save points are set)
        Kill,       // SIGKILL: a crash; what the AOF holds is what its fsync policy wrote
    };

    /** Starts a server with `options` (redis-server command-line options, e.g. {"--appendonly",
        "yes", "--appendfsync", "everysec"}) after the base ones: no save points, DEBUG allowed
        from 127.0.0.1, no RDB compression, clients served every 1 KiB while loading. */
    explicit PrivateRedis(const QStringList &options = {});
    /** SIGKILL if it still runs; the dir goes with the temp dir. */
    ~PrivateRedis();
    Q_DISABLE_COPY_MOVE(PrivateRedis)

    /** Starts redis-server again on the same dir and port with the constructor's options plus
        `extra` (for this start only, e.g. slowLoading()). Returns once the server answers a PING,
        with PONG or -LOADING: it may still be loading (isLoading(), finishLoading()). */
    void start(const QStringList &extra = {});
    /** Stops the server; returns once the process has exited (throws after Timeout). */
    void stop(Stop how = Stop::Shutdown);
    bool isRunning() const;
    qint64 pid() const;
    int port() const { return m_port; }

    /** redis://127.0.0.1:PORT, as a RedisUrl and as lanternd takes it. */
    RedisUrl url() const;
    QString urlText() const;
    /** The server's `dir`: dump.rdb, and appendDir() inside it. */
    QString dataDir() const;
    /** The AOF directory (`appenddirname`): the manifest, the base and incr files. Edit it only
        while the server is stopped, e.g. to truncate the incr file as an OS crash would. */
    QString appendDir() const;
    /** The server's log (all starts), for failure messages. */
    QByteArray log() const;

    /** Sends one command on a connection of its own; the reply as text (an integer in decimal,
        an array's elements joined by '\n'). An error reply throws. */
    QByteArray command(const QByteArrayList &args) const;
    /** Whether the server answers PING with -LOADING right now. */
    bool isLoading() const;
    /** Returns once every write acknowledged so far is in the AOF files (in the page cache, not
        necessarily on disk): under appendfsync everysec Redis postpones its write(2) while an
        fsync is slow, and answers clients meanwhile. */
    void waitUntilAofWritten() const;

    /** `keys` filler keys of `valueBytes` each (DEBUG POPULATE, prefix "filler:"), then on disk:
        a rewritten AOF when appendonly is on, an RDB otherwise. What the next start loads. */
    void fill(int keys, int valueBytes = 1024);
    /** Options for start(): load each key `perKey` slowly (key-load-delay), so that loading
        fill()'s keys lasts keys × perKey unless finishLoading() ends it early. */
    static QStringList slowLoading(std::chrono::microseconds perKey = std::chrono::milliseconds(50));
    /** Lifts key-load-delay (CONFIG SET works while loading) and waits until PING answers PONG. */
    void finishLoading();

private:
    /** One attempt: false when the port turned out to be taken (only before the first start). */
    bool tryStart(const QStringList &extra);
    /** PING's reply, or a null QByteArray when the server does not answer within `timeout`. */
    QByteArray ping(std::chrono::milliseconds timeout) const;
    void waitUntil(const char *what, const std::function<bool()> &done) const;
    [[noreturn]] void failWithLog(const QString &what) const;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QProcess> m_process;
    QStringList m_options;
    int m_port = 0;
    bool m_started = false;  // a start has succeeded once: the port is ours and fixed
};

} // namespace lantern::test
