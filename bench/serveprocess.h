#pragma once

#include "cpuplacement.h"

#include <QProcess>
#include <QString>
#include <QStringList>

namespace lantern::bench {

/** CPU time a process has used so far (user + system), in µs, and the system part. */
struct ProcessCpu {
    double totalMicros = 0;
    double systemMicros = 0;
};
/** From /proc/PID/stat; throws LanternError when it cannot be read (the process is gone). */
ProcessCpu processCpu(qint64 pid);

/** `lanternd serve` as a child of the bench: started, waited for until it listens, stopped with
    SIGTERM. Its stdout and stderr go to files in `workDir`, so a chatty server never blocks on a
    full pipe the bench is not reading. */
class ServeProcess final {
public:
    /** Starts `program serve arguments... --listen 127.0.0.1:0` and waits (up to 30 s) for the
        line it prints once it listens, then moves it onto `cpus` (empty: it stays where it
        landed, the bench's CPUs); throws LanternError with its stderr if it exits first. */
    ServeProcess(const QString &program, const QStringList &arguments, const QString &workDir, const CpuSet &cpus = {});
    /** Stops it (SIGTERM, then SIGKILL after 10 s) if stop() was not called. */
    ~ServeProcess();
    Q_DISABLE_COPY_MOVE(ServeProcess)

    quint16 port() const { return m_port; }
    /** Moves every thread of the server onto `cpus` (nothing for empty `cpus`). */
    void place(const CpuSet &cpus) const { placeProcess(pid(), cpus); }
    qint64 pid() const { return m_process.processId(); }
    /** The command line, as the report prints it. */
    QString commandLine() const;

    /** CPU time the server has used so far (user + system), in µs, and the system part. */
    using CpuTime = ProcessCpu;
    CpuTime cpu() const;

    /** SIGTERM, waits for it to exit, and returns the "requests" it says it answered; throws
        LanternError if it does not exit cleanly. */
    qint64 stop();

private:
    QProcess m_process;
    QString m_stdoutPath;
    QString m_stderrPath;
    quint16 m_port = 0;
    bool m_stopped = false;
};

} // namespace lantern::bench
