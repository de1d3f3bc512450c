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

/** Every sample's call chain (leaf first) from `perf script`, each frame's function and whether
    it is the kernel's; the share of the samples each category gets. */
QString categoryTable(const QString &perf, const QString &dataPath, const QList<PerfCategory> &categories)
{
    const QString script = perfOutput(perf, {QStringLiteral("script"), QStringLiteral("-i"), dataPath, QStringLiteral("-F"),
                                             QStringLiteral("comm,tid,ip,sym,dso")});
    static const QRegularExpression frame(QStringLiteral("^\\s+[0-9a-f]+\\s+(.*?)\\s+\\((.*)\\)\\s*$"));
    QList<qint64> counts(categories.size() + 1, 0);  // the last: none matched
    qint64 samples = 0;
    const auto categoryOf = [&](const QString &symbol, bool kernel) -> qsizetype {
        for (qsizetype i = 0; i < categories.size(); ++i) {
            for (const QString &prefix : categories[i].prefixes) {
                if ((kernel && prefix == QLatin1String("[kernel]")) || (!kernel && symbol.startsWith(prefix)))
                    return i;
            }
        }
        return -1;
    };
    qsizetype current = -1;
    bool inSample = false;
    const auto finish = [&] {
        if (inSample) {
            ++samples;
            ++counts[current >= 0 ? current : categories.size()];
        }
        inSample = false;
        current = -1;
    };
    for (const QString &line : script.split(QLatin1Char('\n'))) {
        if (line.trimmed().isEmpty()) {
            finish();
            continue;
        }
        if (!line.front().isSpace()) {  // a sample's header: comm tid
            finish();
            inSample = true;
            continue;
        }
        if (!inSample || current >= 0)
            continue;
        const QRegularExpressionMatch match = frame.match(line);
        if (!match.hasMatch())
            continue;
        const QString dso = match.captured(2);
        current = categoryOf(match.captured(1), dso.contains(QLatin1String("kernel.kallsyms")) || dso.startsWith(QLatin1String("[kernel")));
    }
    finish();
    QString table = QStringLiteral("| where a request's CPU goes (each sample counted once: the first frame of its call chain, leaf first, "
                                   "that names one of these) | share |\n|---|---:|\n");
    for (qsizetype i = 0; i <= categories.size(); ++i) {
        const QString name = i < categories.size() ? categories[i].name : QStringLiteral("the rest (Qt containers and strings, the loop's own bookkeeping)");
        table += QStringLiteral("| %1 | %2 |\n").arg(name, percentText(samples > 0 ? 100.0 * double(counts[i]) / double(samples) : 0));
    }
    return table;
}

} // namespace

QList<PerfProbe> serveProbes()
{
    return {
            {QStringLiteral("lantern::HttpServerLoop::readFrom"), QStringLiteral("a client's bytes read, its requests parsed, checked and their Redis work queued")},
            {QStringLiteral("lantern::HttpRequestParser::feed"), QStringLiteral("HTTP parsing (libhttp-parser)")},
            {QStringLiteral("lantern::ApiGate::admit"), QStringLiteral("routing, limits and the bearer")},
            {QStringLiteral("lantern::ApiGate::authenticate"), QStringLiteral("the bearer: HMAC-SHA256, then hashids decode of the token")},
            {QStringLiteral("lantern::RedisPipe::flush"), QStringLiteral("one write() of every EVALSHA queued in a turn of the loop")},
            {QStringLiteral("lantern::RedisPipeNode::onReadable"), QStringLiteral("Redis's replies read, parsed and turned into answers")},
            {QStringLiteral("lantern::checkinAnswerText"), QStringLiteral("a check-in's answer as JSON text")},
            {QStringLiteral("lantern::grabAnswerText"), QStringLiteral("a grab's answer as JSON text")},
            {QStringLiteral("lantern::appendHttpResponse"), QStringLiteral("status line, headers and body into the connection's buffer")},
            {QStringLiteral("lantern::HttpServerLoop::writeTo"), QStringLiteral("one write() of a connection's answers")},
            {QStringLiteral("tcp_sendmsg"), QStringLiteral("kernel: TCP send")},
            {QStringLiteral("net_rx_action"), QStringLiteral("kernel: loopback delivery to the receiver, run by the sender (softirq)")},
            {QStringLiteral("tcp_recvmsg"), QStringLiteral("kernel: TCP receive")},
            {QStringLiteral("__schedule"), QStringLiteral("kernel: switching threads (a loop with nothing to do sleeps in epoll_wait)")},
            {QStringLiteral("do_epoll_wait"), QStringLiteral("kernel: the event loop's epoll_wait()")},
    };
}

QList<PerfCategory> serveCategories()
{
    const auto list = [](const char *names) { return QString::fromLatin1(names).split(QLatin1Char(' ')); };
    return {
            {QStringLiteral("system calls and the kernel (TCP on loopback, epoll, scheduling)"),
             list("[kernel] __GI___libc_write __GI___libc_read __libc_send __libc_recv __libc_read __libc_write epoll_wait __GI_epoll_wait "
                  "__GI___writev writev send recv read write syscall")},
            {QStringLiteral("allocation (malloc, free, Qt's array allocations)"),
             list("malloc _int_malloc malloc_consolidate free cfree _int_free unlink_chunk realloc _int_realloc tcache "
                  "QArrayData::allocate QArrayData::reallocateUnaligned QArrayData::deallocate")
                     << QStringLiteral("operator new") << QStringLiteral("operator delete")},
            {QStringLiteral("HTTP parsing"), list("lantern::HttpRequestParser http_parser_execute lantern::HttpFramingCheck")},
            {QStringLiteral("the bearer check (HMAC-SHA256, hashids)"),
             list("lantern::ApiGate::authenticate lantern::UserTokens lantern::Hashids QMessageAuthenticationCode QCryptographicHash "
                  "sha256 SHA256 HMAC")},
            {QStringLiteral("routing, limits, feature switches"),
             list("lantern::ApiGate lantern::TokenBucket lantern::FeatureSwitches lantern::makeApiCall")},
            {QStringLiteral("JSON (the answer's object, its text)"),
             list("lantern::checkinAnswerText lantern::grabAnswerText lantern::checkinOutcomeJson lantern::grabOutcomeJson lantern::apiJson QJson QCborValue QCborContainerPrivate "
                  "lantern::requireEmptyJsonObject")},
            {QStringLiteral("the Redis pipe (commands out, replies in, hiredis's reader)"),
             list("lantern::RedisPipe lantern::RedisValue lantern::RedisConversation redisReader redisFormat redisvFormat "
                  "lantern::CheckinRun lantern::GrabRun")},
            {QStringLiteral("the answer's status line and headers"), list("lantern::appendHttpResponse")},
            {QStringLiteral("metrics"), list("lantern::ApiMetrics")},
            {QStringLiteral("dates and zones (today in --tz, the month)"), list("QDate QTimeZone QDateTime QGregorianCalendar QCalendar lantern::Config::today")},
            {QStringLiteral("the event loop (connections, buffers)"), list("lantern::HttpServerLoop")},
    };
}

PerfReport profileProcess(const QString &perf, qint64 pid, const QString &dataPath, const std::function<void()> &action,
                          const QList<PerfProbe> &probes, const QList<PerfCategory> &categories)
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

    report.text = QStringLiteral("%1 samples of lanternd serve's threads.\n\n%2\n%3\n%4\n%5")
                          .arg(samples)
                          .arg(categories.isEmpty() ? QString() : categoryTable(perf, dataPath, categories), byBinary, byProbe, top);
    return report;
}

} // namespace lantern::bench
