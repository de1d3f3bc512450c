#include "wrkrun.h"

#include "phasefigures.h"

#include "core/errors.h"

#include <QProcess>
#include <QTemporaryDir>

#include <sys/resource.h>

namespace lantern::bench {

QStringList wrkArguments(const WrkOptions &options, const QString &donePath)
{
    return {QStringLiteral("-t"), QString::number(options.threads), QStringLiteral("-c"), QString::number(options.connections),
            QStringLiteral("-d"), QStringLiteral("%1s").arg(options.maxSeconds), QStringLiteral("--timeout"),
            QStringLiteral("%1s").arg(options.timeoutSeconds), QStringLiteral("-s"), options.script, options.url,
            QStringLiteral("--"), options.bearerFile, QString::number(options.threads), donePath};
}

WrkFigures runWrk(const WrkOptions &options, qint64 expected)
{
    const QTemporaryDir dir;
    if (!dir.isValid())
        throw LanternError(QStringLiteral("cannot create a temporary directory: %1").arg(dir.errorString()));
    QProcess process;
    process.setProgram(options.program);
    process.setArguments(wrkArguments(options, dir.filePath(QStringLiteral("done"))));
    process.setStandardInputFile(QProcess::nullDevice());
    const double cpuStart = cpuMicros(RUSAGE_CHILDREN);
    process.start(QIODevice::ReadOnly);
    if (!process.waitForStarted())
        throw LanternError(QStringLiteral("cannot start %1: %2").arg(options.program, process.errorString()));
    process.waitForFinished(-1);
    const double cpuEnd = cpuMicros(RUSAGE_CHILDREN);

    const QString out = QString::fromUtf8(process.readAllStandardOutput());
    const QString err = QString::fromUtf8(process.readAllStandardError()).trimmed();
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        throw LanternError(QStringLiteral("%1 failed (exit %2): %3").arg(options.program).arg(process.exitCode()).arg(err.left(500)));

    WrkFigures figures;
    const qsizetype at = out.indexOf(QLatin1String("lantern-wrk "));
    if (at < 0)
        throw LanternError(QStringLiteral("%1 printed no summary line (is %2 bench/wrk/bearers.lua?): %3")
                                   .arg(options.program, options.script, QString(out + err).left(500)));
    bool parsed = true;
    const auto number = [&parsed](const QString &text) {
        bool ok = false;
        const double value = text.toDouble(&ok);
        parsed = parsed && ok;
        return value;
    };
    for (const QString &field : out.mid(at).section(QLatin1Char('\n'), 0, 0).split(QLatin1Char(' '), Qt::SkipEmptyParts).mid(1)) {
        const QString name = field.section(QLatin1Char('='), 0, 0);
        const QString value = field.section(QLatin1Char('='), 1);
        if (name == QLatin1String("answered"))
            figures.answered = static_cast<qint64>(number(value));
        else if (name == QLatin1String("fillers"))
            figures.fillers = static_cast<qint64>(number(value));
        else if (name == QLatin1String("non2xx"))
            figures.non2xx = static_cast<qint64>(number(value));
        else if (name == QLatin1String("errors"))
            figures.socketErrors = static_cast<qint64>(number(value));
        else if (name == QLatin1String("seconds"))
            figures.seconds = number(value);
        else if (name == QLatin1String("p50_ms"))
            figures.p50Ms = number(value);
        else if (name == QLatin1String("p99_ms"))
            figures.p99Ms = number(value);
        else if (name == QLatin1String("max_ms"))
            figures.maxMs = number(value);
        else if (name == QLatin1String("outcomes")) {
            for (const QString &pair : value.split(QLatin1Char(','), Qt::SkipEmptyParts))
                figures.outcomes.insert(pair.section(QLatin1Char(':'), 0, 0), static_cast<qint64>(number(pair.section(QLatin1Char(':'), 1))));
        }
    }
    if (!parsed || figures.seconds <= 0)
        throw LanternError(QStringLiteral("cannot read wrk's summary line: %1").arg(out.mid(at).section(QLatin1Char('\n'), 0, 0)));
    if (figures.answered != expected)
        throw LanternError(QStringLiteral("wrk got %1 answers to %2 requests (socket errors: %3); wrk said: %4")
                                   .arg(figures.answered)
                                   .arg(expected)
                                   .arg(figures.socketErrors)
                                   .arg(out.trimmed().left(800)));
    figures.perSecond = static_cast<double>(figures.answered) / figures.seconds;
    figures.clientMicros = (cpuEnd - cpuStart) / static_cast<double>(std::max<qint64>(figures.answered, 1));
    return figures;
}

} // namespace lantern::bench
