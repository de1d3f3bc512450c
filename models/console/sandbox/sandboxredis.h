#pragma once

#include "redis/redisurl.h"

#include <QDeadlineTimer>
#include <QObject>
#include <QProcess>

class QTcpSocket;
class QTimer;

namespace lantern {

/** A private redis-server child for the sandbox: on a free 127.0.0.1 port, persisting nothing,
    gone when the console exits. start() returns at once; ready() or failed() follows. Readiness
    is polled with PING on a non-blocking socket driven by a timer, so the thread that owns this
    object (the GUI thread) never waits on the server. */
class SandboxRedis final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SandboxRedis)

public:
    /** `directory` becomes the server's working directory. */
    explicit SandboxRedis(QString directory, QObject *parent = nullptr);
    /** Stops the server (see stop()). */
    ~SandboxRedis() override;

    void start();
    /** Sends SIGTERM and waits up to a few seconds for the exit: only at shutdown. */
    void stop();

    bool isReady() const { return m_ready; }
    RedisUrl url() const;
    qint64 processId() const;

    /** LANTERN_REDIS_SERVER, else redis-server on PATH (empty when not found). */
    static QString serverProgram();
    /** How long start() waits for PONG. */
    static constexpr int StartTimeoutMs = 15000;

Q_SIGNALS:
    void ready(const lantern::RedisUrl &url);
    void failed(const QString &message, const QString &detail);

private:
    void launch();
    void probe();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void fail(const QString &message);
    static int freePort();

    QString m_directory;
    QProcess *m_process;
    QTimer *m_probeTimer;
    QTcpSocket *m_probe = nullptr;
    QDeadlineTimer m_deadline;
    QByteArray m_output;  // the server's log, for failure messages
    int m_port = 0;
    int m_attempt = 0;
    bool m_ready = false;
    bool m_stopping = false;
};

} // namespace lantern
