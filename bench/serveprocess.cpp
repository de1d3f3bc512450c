#include "serveprocess.h"

#include "redisbenchmarkrun.h"

#include "core/childprocess.h"
#include "core/errors.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <csignal>

#include <unistd.h>

namespace lantern::bench {

namespace {

QByteArray fileText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

ServeProcess::ServeProcess(const QString &program, const QStringList &arguments, const QString &workDir, const CpuSet &cpus)
    : m_stdoutPath(QDir(workDir).filePath(QStringLiteral("serve.out"))), m_stderrPath(QDir(workDir).filePath(QStringLiteral("serve.err")))
{
    endWithStarter(m_process);  // a bench that aborts leaves no server behind
    m_process.setProgram(program);
    m_process.setArguments(QStringList{QStringLiteral("serve")} + arguments + QStringList{QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")});
    m_process.setStandardOutputFile(m_stdoutPath);
    m_process.setStandardErrorFile(m_stderrPath);
    m_process.setStandardInputFile(QProcess::nullDevice());
    m_process.start();
    if (!m_process.waitForStarted())
        throw LanternError(QStringLiteral("cannot start %1: %2").arg(program, m_process.errorString()));

    static const QRegularExpression listening(QStringLiteral("listening on http://127\\.0\\.0\\.1:(\\d+) "));
    const QDeadlineTimer deadline(30'000);
    while (!deadline.hasExpired()) {
        const QString err = QString::fromUtf8(fileText(m_stderrPath));
        if (const QRegularExpressionMatch match = listening.match(err); match.hasMatch()) {
            m_port = static_cast<quint16>(match.captured(1).toUInt());
            place(cpus);  // its loops have started: they all move
            return;
        }
        if (m_process.waitForFinished(20)) {
            m_stopped = true;
            throw LanternError(QStringLiteral("lanternd serve exited (%1) before it listened: %2").arg(m_process.exitCode()).arg(err.trimmed()));
        }
    }
    throw LanternError(QStringLiteral("lanternd serve did not listen within 30 s"));
}

ServeProcess::~ServeProcess()
{
    if (m_stopped || m_process.state() == QProcess::NotRunning)
        return;
    ::kill(static_cast<pid_t>(m_process.processId()), SIGTERM);
    if (!m_process.waitForFinished(10'000)) {
        m_process.kill();
        m_process.waitForFinished(5'000);
    }
}

QString ServeProcess::commandLine() const
{
    return shellCommand(m_process.program(), m_process.arguments());
}

ProcessCpu processCpu(qint64 pid)
{
    // /proc/PID/stat: "pid (comm) state ..." -- utime and stime are fields 14 and 15, in ticks.
    const QByteArray stat = fileText(QStringLiteral("/proc/%1/stat").arg(pid));
    const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.size() < 13)
        throw LanternError(QStringLiteral("cannot read the CPU time of process %1").arg(pid));
    const double microsPerTick = 1e6 / static_cast<double>(::sysconf(_SC_CLK_TCK));
    const double user = fields[11].toDouble() * microsPerTick;
    const double system = fields[12].toDouble() * microsPerTick;
    return {user + system, system};
}

ServeProcess::CpuTime ServeProcess::cpu() const
{
    return processCpu(m_process.processId());
}

qint64 ServeProcess::stop()
{
    m_stopped = true;
    ::kill(static_cast<pid_t>(m_process.processId()), SIGTERM);
    if (!m_process.waitForFinished(30'000)) {
        m_process.kill();
        m_process.waitForFinished(5'000);
        throw LanternError(QStringLiteral("lanternd serve did not stop within 30 s of SIGTERM"));
    }
    if (m_process.exitStatus() != QProcess::NormalExit || m_process.exitCode() != 0)
        throw LanternError(QStringLiteral("lanternd serve exited with %1: %2")
                                   .arg(m_process.exitCode())
                                   .arg(QString::fromUtf8(fileText(m_stderrPath)).trimmed().right(500)));
    const QJsonObject summary = QJsonDocument::fromJson(fileText(m_stdoutPath)).object();
    return summary.value(QStringLiteral("requests")).toInteger(-1);
}

} // namespace lantern::bench
