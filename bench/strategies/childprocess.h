#pragma once

#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace lantern::bench {

/** A process the bench starts and then stops cleanly (SIGTERM) or kills (SIGKILL): the grabbing
    child of a crash run, a `lanternd work` worker. Its stdout and stderr go to files in
    `workDir`, so it never blocks on a pipe the bench is not reading. */
class ChildProcess final {
public:
    /** Starts it; throws LanternError when it cannot. `environment` is added to the bench's own. */
    ChildProcess(const QString &program, const QStringList &arguments, const QString &workDir, const QString &name,
                 const QStringList &environment = {});
    /** Kills it if still running. */
    ~ChildProcess();
    Q_DISABLE_COPY_MOVE(ChildProcess)

    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
    /** Waits up to `ms` for it to exit; true when it has. A wait that returns early on exit. */
    bool waitForExit(int ms);
    /** SIGKILL, and waits until the kernel has reaped it. */
    void kill();
    /** SIGTERM, waits for it (up to 30 s); throws LanternError unless it exits 0. */
    void stop();
    /** What it wrote on stderr so far. */
    QString errorText() const;
    QString commandLine() const;

private:
    QProcess m_process;
    QString m_name;
    QString m_stderrPath;
};

/** Runs `lanternd ARGUMENTS` to its end and returns the JSON object it printed; throws
    LanternError when it fails (exit other than 0 and `acceptedExit`). */
QJsonObject runLanternd(const QString &lanternd, const QStringList &arguments, int acceptedExit = 0);

} // namespace lantern::bench
