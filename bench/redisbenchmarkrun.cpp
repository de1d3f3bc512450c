#include "redisbenchmarkrun.h"

#include "core/errors.h"

#include <QProcess>
#include <QRegularExpression>

#include <algorithm>

#include <sys/resource.h>

namespace lantern::bench {

namespace {

/** One line of redis-benchmark --csv: every field double-quoted, comma-separated. */
QStringList csvFields(const QString &line)
{
    QStringList fields;
    QString field;
    bool quoted = false;
    for (const QChar c : line) {
        if (c == QLatin1Char('"'))
            quoted = !quoted;
        else if (c == QLatin1Char(',') && !quoted)
            fields << std::exchange(field, QString());
        else
            field += c;
    }
    fields << field;
    return fields;
}

double number(const QStringList &header, const QStringList &row, const QString &column)
{
    const qsizetype index = header.indexOf(column);
    bool ok = false;
    const double value = index >= 0 && index < row.size() ? row[index].toDouble(&ok) : 0;
    if (!ok)
        throw LanternError(QStringLiteral("redis-benchmark printed no %1 column").arg(column));
    return value;
}

} // namespace

QStringList redisBenchmarkArguments(const RedisBenchmarkOptions &options, bool redacted)
{
    QStringList arguments{QStringLiteral("-h"), options.redis.host, QStringLiteral("-p"), QString::number(options.redis.port)};
    if (!options.redis.user.isEmpty())
        arguments << QStringLiteral("--user") << options.redis.user;
    if (!options.redis.password.isEmpty())
        arguments << QStringLiteral("-a") << (redacted ? QStringLiteral("***") : options.redis.password) << QStringLiteral("--no-auth-warning");
    if (options.redis.db != 0)
        arguments << QStringLiteral("--dbnum") << QString::number(options.redis.db);
    arguments << QStringLiteral("-c") << QString::number(options.clients) << QStringLiteral("-n") << QString::number(options.requests)
              << QStringLiteral("-r") << QString::number(options.keyspace) << QStringLiteral("--csv");
    for (const QByteArray &arg : options.command)
        arguments << QString::fromUtf8(arg);
    return arguments;
}

QString shellCommand(const QString &program, const QStringList &arguments)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_./:=@+-]+$"));
    QStringList words{program};
    for (const QString &argument : arguments) {
        if (plain.match(argument).hasMatch())
            words << argument;
        else
            words << QLatin1Char('\'') + QString(argument).replace(QLatin1String("'"), QLatin1String("'\\''")) + QLatin1Char('\'');
    }
    return words.join(QLatin1Char(' '));
}

PhaseFigures runRedisBenchmark(const RedisBenchmarkOptions &options)
{
    QProcess process;
    process.setProgram(options.program);
    process.setArguments(redisBenchmarkArguments(options));
    process.start(QIODevice::ReadOnly);
    if (!process.waitForStarted())
        throw LanternError(QStringLiteral("cannot start %1: %2").arg(options.program, process.errorString()));
    const double cpuStart = cpuMicros(RUSAGE_CHILDREN);
    process.waitForFinished(-1);
    const double cpuEnd = cpuMicros(RUSAGE_CHILDREN);

    const QString out = QString::fromUtf8(process.readAllStandardOutput());
    const QString err = QString::fromUtf8(process.readAllStandardError()).trimmed();
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        throw LanternError(QStringLiteral("%1 failed (exit %2): %3").arg(options.program).arg(process.exitCode()).arg(err));
    // redis-benchmark counts error replies as answered requests: any error fails the phase.
    if (err.contains(QLatin1String("Error")) || err.contains(QLatin1String("ERR")))
        throw LanternError(QStringLiteral("%1 reported errors: %2").arg(options.program, err.left(500)));

    const QStringList lines = out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const auto header = std::find_if(lines.begin(), lines.end(), [](const QString &line) { return line.startsWith(QLatin1String("\"test\",")); });
    if (header == lines.end() || header + 1 == lines.end())
        throw LanternError(QStringLiteral("%1 printed no CSV figures: %2").arg(options.program, out.left(500)));
    const QStringList columns = csvFields(header->trimmed());
    const QStringList row = csvFields((header + 1)->trimmed());

    PhaseFigures figures;
    figures.requests = options.requests;
    figures.perSecond = number(columns, row, QStringLiteral("rps"));
    if (figures.perSecond <= 0)
        throw LanternError(QStringLiteral("%1 reported %2 requests/s").arg(options.program).arg(figures.perSecond));
    figures.p50Ms = number(columns, row, QStringLiteral("p50_latency_ms"));
    figures.p99Ms = number(columns, row, QStringLiteral("p99_latency_ms"));
    figures.seconds = static_cast<double>(options.requests) / figures.perSecond;
    figures.clientMicros = (cpuEnd - cpuStart) / static_cast<double>(options.requests);
    return figures;
}

} // namespace lantern::bench
