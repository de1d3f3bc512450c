#pragma once

#include "clitest.h"

#include <QByteArray>
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

} // namespace lantern::test::cli
