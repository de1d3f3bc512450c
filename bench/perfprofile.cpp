#include "perfprofile.h"

#include "redisbenchmarkrun.h"

#include "core/errors.h"

#include <QFileInfo>
#include <QHash>
#include <QProcess>
#include <QRegularExpression>
#include <QThread>

#include <csignal>

namespace lantern::bench {

namespace {

/** perf's stdout for `arguments`; throws LanternError if it fails. */
QString perfOutput(const QString &perf, const QStringList &arguments)
{
    QProcess process;
    process.start(perf, arguments, QIODevice::ReadOnly);
    if (!process.waitForStarted() || !process.waitForFinished(600'000) || process.exitStatus() != QProcess::NormalExit
        || process.exitCode() != 0)
        throw LanternError(QStringLiteral("%1 failed: %2").arg(shellCommand(perf, arguments), QString::fromUtf8(process.readAllStandardError()).left(500)));
    return QString::fromUtf8(process.readAllStandardOutput());
}

/** The rows of a perf report --stdio -q table: the leading percentages, then the rest of the line. */
struct ReportRow {
    QList<double> percents;
    QString rest;
};

QList<ReportRow> reportRows(const QString &output)
{
    static const QRegularExpression row(QStringLiteral("^\\s*((?:[0-9.]+%\\s+)+)(.*?)\\s*$"));
    QList<ReportRow> rows;
    for (const QString &line : output.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const QRegularExpressionMatch match = row.match(line);
        if (!match.hasMatch())
            continue;
        ReportRow parsed;
        for (const QString &percent : match.captured(1).split(QLatin1Char('%'), Qt::SkipEmptyParts)) {
            if (!percent.trimmed().isEmpty())
                parsed.percents << percent.trimmed().toDouble();
        }
        parsed.rest = match.captured(2);
        rows << parsed;
    }
    return rows;
}

/** "[k] tcp_sendmsg" -> "tcp_sendmsg" (and whether it is the kernel's). */
QString symbolName(const QString &column, bool *kernel = nullptr)
{
    if (kernel)
        *kernel = column.startsWith(QLatin1String("[k]"));
    return column.startsWith(QLatin1Char('[')) ? column.mid(column.indexOf(QLatin1Char(']')) + 1).trimmed() : column.trimmed();
}

QString percentText(double percent)
{
    return QString::number(percent, 'f', 1) + QStringLiteral(" %");
}

} // namespace

PerfReport profileProcess(const QString &perf, qint64 pid, const QString &dataPath, const std::function<void()> &action,
                          const QList<PerfProbe> &probes)
{
    // DWARF call graphs: the build keeps no frame pointers, and the inclusive shares of lanternd's
    // own functions are the point. 999 Hz keeps the data small enough to report in seconds.
    const QStringList record{QStringLiteral("record"), QStringLiteral("--call-graph"), QStringLiteral("dwarf,16384"), QStringLiteral("-F"),
                             QStringLiteral("999"), QStringLiteral("-p"), QString::number(pid), QStringLiteral("-o"), dataPath};
    QProcess recorder;
    recorder.setProcessChannelMode(QProcess::MergedChannels);
    recorder.start(perf, record, QIODevice::ReadOnly);
    if (!recorder.waitForStarted())
        throw LanternError(QStringLiteral("cannot start %1: %2").arg(perf, recorder.errorString()));
    QThread::msleep(500);  // perf attaches to every thread of the process first
    if (recorder.state() != QProcess::Running)
        throw LanternError(QStringLiteral("%1 record stopped at once: %2").arg(perf, QString::fromUtf8(recorder.readAll()).left(500)));
    action();
    ::kill(static_cast<pid_t>(recorder.processId()), SIGINT);
    // perf ends by the signal it was sent, so its exit status says nothing; its data file does.
    if (!recorder.waitForFinished(120'000) || !QFileInfo(dataPath).isFile())
        throw LanternError(QStringLiteral("%1 record did not write %2: %3").arg(perf, dataPath, QString::fromUtf8(recorder.readAll()).left(500)));

    PerfReport report;
    QStringList printed = record.mid(0, record.size() - 2);
    printed[printed.indexOf(QStringLiteral("-p")) + 1] = QStringLiteral("PID");
    report.command = shellCommand(perf, printed);
    const QStringList common{QStringLiteral("report"), QStringLiteral("-i"), dataPath, QStringLiteral("--stdio"), QStringLiteral("-q"),
                             QStringLiteral("-g"), QStringLiteral("none")};

    // Samples by binary (self time), with their count.
    const QList<ReportRow> dsos = reportRows(perfOutput(perf, common + QStringList{QStringLiteral("--no-children"), QStringLiteral("-n"),
                                                                                   QStringLiteral("--sort"), QStringLiteral("dso")}));
    qint64 samples = 0;
    QString byBinary = QStringLiteral("| binary | share of lanternd's samples (self) |\n|---|---:|\n");
    for (const ReportRow &row : dsos) {
        // "-n" adds the sample count as the first word after the percentage.
        const QString count = row.rest.section(QLatin1Char(' '), 0, 0);
        samples += count.toLongLong();
        const QString binary = row.rest.section(QLatin1Char(' '), 1).trimmed();
        if (row.percents.value(0) >= 0.5)
            byBinary += QStringLiteral("| %1 | %2 |\n").arg(binary == QLatin1String("[kernel.kallsyms]") ? QStringLiteral("the kernel") : binary,
                                                             percentText(row.percents.value(0)));
    }

    // Inclusive shares of the probes.
    QHash<QString, double> inclusive;
    for (const ReportRow &row : reportRows(perfOutput(perf, common + QStringList{QStringLiteral("--children"), QStringLiteral("--sort"),
                                                                                 QStringLiteral("sym"), QStringLiteral("--percent-limit"),
                                                                                 QStringLiteral("0.1")}))) {
        const QString name = symbolName(row.rest);
        inclusive[name] = std::max(inclusive.value(name), row.percents.value(0));
    }
    QString byProbe = QStringLiteral("| function (with what it calls) | share | what it is |\n|---|---:|---|\n");
    for (const auto &[symbol, meaning] : probes) {
        const auto found = inclusive.constFind(symbol);
        byProbe += QStringLiteral("| `%1` | %2 | %3 |\n").arg(symbol, found == inclusive.constEnd() ? QStringLiteral("< 0.1 %") : percentText(*found), meaning);
    }

    // The functions that spent the most samples themselves.
    QString top = QStringLiteral("| function (self) | share |\n|---|---:|\n");
    int shown = 0;
    for (const ReportRow &row : reportRows(perfOutput(perf, common + QStringList{QStringLiteral("--no-children"), QStringLiteral("--sort"),
                                                                                 QStringLiteral("sym")}))) {
        bool kernel = false;
        const QString name = symbolName(row.rest, &kernel);
        top += QStringLiteral("| %1`%2` | %3 |\n").arg(kernel ? QStringLiteral("kernel: ") : QString(), name, percentText(row.percents.value(0)));
        if (++shown == 15)
            break;
    }

    report.text = QStringLiteral("%1 samples of lanternd serve's threads.\n\n%2\n%3\n%4")
                          .arg(samples)
                          .arg(byBinary, byProbe, top);
    return report;
}

} // namespace lantern::bench
