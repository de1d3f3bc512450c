#include "childprocess.h"

#include "redisbenchmarkrun.h"

#include "core/errors.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QProcessEnvironment>

#include <csignal>

#include <unistd.h>

namespace lantern::bench {

ChildProcess::ChildProcess(const QString &program, const QStringList &arguments, const QString &workDir, const QString &name,
                           const QStringList &environment)
    : m_name(name), m_stderrPath(QDir(workDir).filePath(name + QStringLiteral(".err")))
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString &pair : environment)
        env.insert(pair.section(QLatin1Char('='), 0, 0), pair.section(QLatin1Char('='), 1));
    m_process.setProcessEnvironment(env);
    m_process.setProgram(program);
    m_process.setArguments(arguments);
    m_process.setStandardOutputFile(QDir(workDir).filePath(name + QStringLiteral(".out")));
    m_process.setStandardErrorFile(m_stderrPath);
    m_process.setStandardInputFile(QProcess::nullDevice());
    m_process.start();
    if (!m_process.waitForStarted())
        throw LanternError(QStringLiteral("cannot start %1 (%2): %3").arg(name, program, m_process.errorString()));
}

ChildProcess::~ChildProcess()
{
    if (isRunning())
        kill();
}

bool ChildProcess::waitForExit(int ms)
{
    return !isRunning() || m_process.waitForFinished(ms);
}

void ChildProcess::kill()
{
    m_process.kill();  // SIGKILL on Unix
    m_process.waitForFinished(-1);
}

void ChildProcess::stop()
{
    if (isRunning()) {
        ::kill(static_cast<pid_t>(m_process.processId()), SIGTERM);
        if (!m_process.waitForFinished(30'000)) {
            kill();
            throw LanternError(QStringLiteral("%1 did not stop within 30 s of SIGTERM: %2").arg(m_name, errorText()));
        }
    }
    if (m_process.exitStatus() != QProcess::NormalExit || m_process.exitCode() != 0)
        throw LanternError(QStringLiteral("%1 failed (exit %2): %3").arg(m_name).arg(m_process.exitCode()).arg(errorText()));
}

QString ChildProcess::errorText() const
{
    QFile file(m_stderrPath);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()).trimmed() : QString();
}

QString ChildProcess::commandLine() const
{
    return shellCommand(m_process.program(), m_process.arguments());
}

QJsonObject runLanternd(const QString &lanternd, const QStringList &arguments, int acceptedExit)
{
    QProcess process;
    process.setProgram(lanternd);
    process.setArguments(arguments);
    process.setStandardInputFile(QProcess::nullDevice());
    process.start();
    const bool finished = process.waitForStarted() && process.waitForFinished(-1);
    const int exit = process.exitCode();
    if (!finished || process.exitStatus() != QProcess::NormalExit || (exit != 0 && exit != acceptedExit))
        throw LanternError(QStringLiteral("lanternd %1 failed (exit %2): %3")
                                   .arg(arguments.value(0))
                                   .arg(exit)
                                   .arg(QString::fromUtf8(process.readAllStandardError()).trimmed()));
    return QJsonDocument::fromJson(process.readAllStandardOutput()).object();
}

} // namespace lantern::bench
