#pragma once

#include "clitest.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QNetworkAccessManager>
#include <QProcess>
#include <QStringList>

#include <utility>

namespace lantern::test::cli {

/** A `lanternd serve` child on 127.0.0.1 and a port the kernel chose, for the serve tests. */
class ServeProcess final {
public:
    explicit ServeProcess(const Lanternd &lanternd, int threads = 2, const QStringList &extra = {});
    /** SIGKILL if it still runs. */
    ~ServeProcess();
    Q_DISABLE_COPY_MOVE(ServeProcess)

    /** Waits for the "listening on" line; false if the process ended first (or after 15 s). */
    bool waitListening();
    quint16 port() const { return m_port; }
    qint64 pid() const { return m_process.processId(); }

    /** SIGTERM, without waiting. */
    void terminate() { m_process.terminate(); }
    /** Waits for the end; the exit code (-1: crashed or still running) and the final stdout. */
    std::pair<int, QByteArray> finish(int timeoutMs = 15000);
    /** SIGTERM, then finish(). */
    std::pair<int, QByteArray> stop();

    QByteArray stderrText() { return m_stderr += m_process.readAllStandardError(); }

private:
    QProcess m_process;
    QByteArray m_stderr;
    quint16 m_port = 0;
};

/** An HTTP answer as the serve tests look at it. */
struct HttpReply {
    int status = 0;  // 0: no answer within 15 s
    QByteArray body;
    QMap<QByteArray, QByteArray> headers;  // lower-case names

    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QByteArray describe() const { return QByteArray::number(status) + ' ' + body; }
};

/** A `lanternd serve` child (ServeProcess) and an HTTP client for it. */
class ServeClient final {
public:
    explicit ServeClient(const Lanternd &lanternd, const QStringList &extra = {});
    Q_DISABLE_COPY_MOVE(ServeClient)

    bool waitListening() { return m_process.waitListening(); }
    quint16 port() const { return m_process.port(); }
    /** Sends the request and waits for its answer (15 s at most). */
    HttpReply request(const QByteArray &method, const QString &path, const QString &bearer = {}, const QByteArray &body = {});
    /** SIGTERM; returns the exit code and the final stdout. */
    std::pair<int, QByteArray> stop() { return m_process.stop(); }
    QByteArray stderrText() { return m_process.stderrText(); }

private:
    ServeProcess m_process;
    QNetworkAccessManager m_network;
};

} // namespace lantern::test::cli
