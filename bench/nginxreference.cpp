#include "nginxreference.h"

#include "phasefigures.h"
#include "redisbenchmarkrun.h"
#include "rounds.h"

#include "core/childprocess.h"
#include "core/errors.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTextStream>

#include <csignal>

#include <sys/resource.h>

namespace lantern::bench {

namespace {

QString logText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

/** A port nothing listens on now (the kernel's choice for port 0). */
quint16 freePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        throw LanternError(QStringLiteral("cannot find a free port: %1").arg(probe.errorString()));
    return probe.serverPort();
}

/** "793.00us", "1.31ms", "2.00s" -> milliseconds. */
double wrkMilliseconds(const QString &text)
{
    static const QRegularExpression value(QStringLiteral("^([0-9.]+)(us|ms|s)$"));
    const QRegularExpressionMatch match = value.match(text);
    if (!match.hasMatch())
        throw LanternError(QStringLiteral("cannot read wrk's latency '%1'").arg(text));
    const double number = match.captured(1).toDouble();
    const QString unit = match.captured(2);
    return unit == QLatin1String("us") ? number / 1000 : unit == QLatin1String("ms") ? number : number * 1000;
}

} // namespace

NginxProcess::NginxProcess(const QString &program, int workers, const QString &workDir)
    : m_program(program), m_errorLog(QDir(workDir).filePath(QStringLiteral("error.log"))), m_port(freePort())
{
    const QDir dir(workDir);
    const QString config = dir.filePath(QStringLiteral("nginx.conf"));
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        throw LanternError(QStringLiteral("cannot write %1: %2").arg(config, file.errorString()));
    QTextStream(&file) << "worker_processes " << workers << ";\ndaemon off;\nmaster_process on;\n"
                       << "pid " << dir.filePath(QStringLiteral("nginx.pid")) << ";\nerror_log " << m_errorLog << " warn;\n"
                       << "events { worker_connections 1024; }\nhttp {\n    access_log off;\n"
                       << "    client_body_temp_path " << dir.filePath(QStringLiteral("body")) << ";\n"
                       << "    proxy_temp_path " << dir.filePath(QStringLiteral("proxy")) << ";\n"
                       << "    fastcgi_temp_path " << dir.filePath(QStringLiteral("fastcgi")) << ";\n"
                       << "    server {\n        listen 127.0.0.1:" << m_port << ";\n"
                       << "        location = /livez { default_type application/json; return 200 '{\"status\":\"ok\"}'; }\n    }\n}\n";
    file.close();

    endWithStarter(m_process);  // a bench that aborts leaves no nginx behind
    m_process.setProgram(program);
    m_process.setArguments({QStringLiteral("-p"), workDir, QStringLiteral("-c"), config});
    m_process.setStandardInputFile(QProcess::nullDevice());
    m_process.setStandardOutputFile(dir.filePath(QStringLiteral("nginx.out")));
    m_process.setStandardErrorFile(dir.filePath(QStringLiteral("nginx.err")));
    m_process.start();
    if (!m_process.waitForStarted())
        throw LanternError(QStringLiteral("cannot start %1: %2").arg(program, m_process.errorString()));
    const qint64 master = m_process.processId();
    const QDeadlineTimer deadline(10'000);
    while (!deadline.hasExpired()) {
        if (m_process.waitForFinished(20))
            throw LanternError(QStringLiteral("nginx exited (%1) before it answered: %2")
                                       .arg(m_process.exitCode())
                                       .arg(QString(logText(dir.filePath(QStringLiteral("nginx.err"))) + logText(m_errorLog)).trimmed().left(500)));
        // The master's children are its workers.
        m_workers.clear();
        for (const QString &pid : logText(QStringLiteral("/proc/%1/task/%1/children").arg(master)).split(QLatin1Char(' '), Qt::SkipEmptyParts))
            m_workers << pid.toLongLong();
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, m_port);
        if (m_workers.size() == workers && socket.waitForConnected(100))
            return;
    }
    throw LanternError(QStringLiteral("nginx did not answer on port %1 within 10 s: %2").arg(m_port).arg(logText(m_errorLog).trimmed().left(500)));
}

NginxProcess::~NginxProcess()
{
    if (m_process.state() == QProcess::NotRunning)
        return;
    ::kill(static_cast<pid_t>(m_process.processId()), SIGQUIT);  // nginx's graceful stop
    if (!m_process.waitForFinished(10'000)) {
        m_process.kill();
        m_process.waitForFinished(5'000);
    }
}

void NginxProcess::place(const CpuSet &cpus) const
{
    placeProcess(m_process.processId(), cpus);
    for (const qint64 worker : m_workers)
        placeProcess(worker, cpus);
}

ProcessCpu NginxProcess::cpu() const
{
    ProcessCpu total;
    for (const qint64 worker : m_workers) {
        const ProcessCpu one = processCpu(worker);
        total.totalMicros += one.totalMicros;
        total.systemMicros += one.systemMicros;
    }
    return total;
}

QString NginxProcess::version() const
{
    QProcess process;
    process.start(m_program, {QStringLiteral("-v")}, QIODevice::ReadOnly);
    process.waitForFinished(10'000);
    static const QRegularExpression name(QStringLiteral("nginx/[^ \\n]+"));
    return name.match(QString::fromUtf8(process.readAllStandardError() + process.readAllStandardOutput())).captured(0);
}

FixedRun runFixedWrk(const QString &wrk, const QString &url, int threads, int connections, int seconds,
                     const std::function<ProcessCpu()> &serverCpu, const CpuSet &clientCpus)
{
    const QStringList command = placedCommand(wrk,
                                              {QStringLiteral("-t"), QString::number(threads), QStringLiteral("-c"), QString::number(connections),
                                               QStringLiteral("-d"), QStringLiteral("%1s").arg(seconds), QStringLiteral("--latency"), url},
                                              clientCpus);
    QProcess process;
    process.setStandardInputFile(QProcess::nullDevice());
    const ProcessCpu serverBefore = serverCpu();
    const double clientBefore = cpuMicros(RUSAGE_CHILDREN);  // taskset execs wrk: one process
    process.start(command.first(), command.mid(1), QIODevice::ReadOnly);
    if (!process.waitForStarted() || !process.waitForFinished(60'000 + seconds * 1000) || process.exitStatus() != QProcess::NormalExit
        || process.exitCode() != 0)
        throw LanternError(QStringLiteral("%1 failed: %2")
                                   .arg(shellCommand(command.first(), command.mid(1)), QString::fromUtf8(process.readAllStandardError()).left(500)));
    const double clientAfter = cpuMicros(RUSAGE_CHILDREN);
    const ProcessCpu serverAfter = serverCpu();
    const QString out = QString::fromUtf8(process.readAllStandardOutput());

    FixedRun run;
    static const QRegularExpression total(QStringLiteral("(\\d+) requests in ([0-9.]+)(us|ms|s)"));
    static const QRegularExpression p50(QStringLiteral("\\n\\s+50%\\s+(\\S+)"));
    static const QRegularExpression p99(QStringLiteral("\\n\\s+99%\\s+(\\S+)"));
    static const QRegularExpression non2xx(QStringLiteral("Non-2xx or 3xx responses: (\\d+)"));
    static const QRegularExpression errors(QStringLiteral("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)"));
    const QRegularExpressionMatch totals = total.match(out);
    const QRegularExpressionMatch median = p50.match(out);
    const QRegularExpressionMatch tail = p99.match(out);
    if (!totals.hasMatch() || !median.hasMatch() || !tail.hasMatch())
        throw LanternError(QStringLiteral("cannot read wrk's output: %1").arg(out.left(800)));
    run.requests = totals.captured(1).toLongLong();
    const double wall = wrkMilliseconds(totals.captured(2) + totals.captured(3)) / 1000;
    run.perSecond = wall > 0 ? double(run.requests) / wall : 0;
    run.p50Ms = wrkMilliseconds(median.captured(1));
    run.p99Ms = wrkMilliseconds(tail.captured(1));
    if (const QRegularExpressionMatch match = non2xx.match(out); match.hasMatch())
        run.non2xx = match.captured(1).toLongLong();
    if (const QRegularExpressionMatch match = errors.match(out); match.hasMatch()) {
        for (int i = 1; i <= 4; ++i)
            run.socketErrors += match.captured(i).toLongLong();
    }
    const double answered = double(std::max<qint64>(run.requests, 1));
    run.serverMicros = (serverAfter.totalMicros - serverBefore.totalMicros) / answered;
    const double serverTotal = serverAfter.totalMicros - serverBefore.totalMicros;
    run.serverSystemPercent = serverTotal > 0 ? 100 * (serverAfter.systemMicros - serverBefore.systemMicros) / serverTotal : 0;
    run.clientMicros = (clientAfter - clientBefore) / answered;
    return run;
}

QList<ReferenceLayout> referenceLayouts()
{
    const CpuSet all = onlineCpus();
    QList<ReferenceLayout> layouts{{all, all, QStringLiteral("every process on every core (CPUs %1)").arg(cpuListText(all))}};
    if (all.size() >= 2)
        layouts.append({{0}, {1}, QStringLiteral("servers on CPU 0, wrk on CPU 1")});
    return layouts;
}

std::vector<SummaryRow> runNginxReference(QTextStream &out, const ReferenceSetup &setup)
{
    const auto fixed = [](double value, int decimals) { return QString::number(value, 'f', decimals); };
    setup.serve->place(setup.layout.serverCpus);
    setup.nginx->place(setup.layout.serverCpus);
    const QStringList wrkCommand = placedCommand(QStringLiteral("wrk"),
                                                 {QStringLiteral("-t"), QString::number(setup.wrkThreads), QStringLiteral("-c"),
                                                  QString::number(setup.connections), QStringLiteral("-d"), QStringLiteral("%1s").arg(setup.seconds),
                                                  QStringLiteral("--latency")},
                                                 setup.layout.clientCpus);
    out << "\nAn outside reference, GET /livez (a fixed JSON 200, nothing asked of Redis), " << setup.layout.name
        << ": `lanternd serve --threads " << setup.serveThreads << "` against " << setup.nginx->version() << " (`worker_processes "
        << setup.serveThreads << "`, `return 200 '{\"status\":\"ok\"}'`, no access log), the same `"
        << shellCommand(wrkCommand.first(), wrkCommand.mid(1))
        << "` against each, " << setup.rounds << (setup.rounds == 1 ? " round" : " rounds alternating")
        << ":\n\n| round: server | requests/s | p50 ms | p99 ms | non-2xx | server CPU us (kernel) | client CPU us |\n"
        << "|---|---:|---:|---:|---:|---:|---:|\n";
    out.flush();
    std::vector<double> serveMicros;
    std::vector<double> nginxMicros;
    qint64 bad = 0;
    const auto phase = [&](const QString &name, quint16 port, const std::function<ProcessCpu()> &cpu, std::vector<double> &micros) {
        return [&, name, port, cpu](int round) {
            const FixedRun run = runFixedWrk(setup.wrk, QStringLiteral("http://127.0.0.1:%1/livez").arg(port), setup.wrkThreads,
                                             setup.connections, setup.seconds, cpu, setup.layout.clientCpus);
            bad += run.non2xx + run.socketErrors;
            micros.push_back(run.serverMicros);
            out << "| " << round << ": " << name << " | " << rate(run.perSecond) << " | " << fixed(run.p50Ms, 3) << " | " << fixed(run.p99Ms, 3)
                << " | " << run.non2xx << " | " << fixed(run.serverMicros, 1) << " (" << fixed(run.serverSystemPercent, 0) << " %) | "
                << fixed(run.clientMicros, 1) << " |\n";
            out.flush();
            return run.perSecond;
        };
    };
    const std::vector<double> rates = runAlternatingRounds(
            setup.rounds, {phase(QStringLiteral("lanternd serve"), setup.serve->port(), [&] { return setup.serve->cpu(); }, serveMicros),
                           phase(QStringLiteral("nginx"), setup.nginx->port(), [&] { return setup.nginx->cpu(); }, nginxMicros)});
    const double serveCpu = median(serveMicros);
    const double nginxCpu = median(nginxMicros);
    out << "\n| " << (setup.rounds > 1 ? QStringLiteral("median of %1 rounds").arg(setup.rounds) : QStringLiteral("result"))
        << " | lanternd serve | nginx | ratio |\n|---|---:|---:|---:|\n"
        << "| GET /livez/s | " << rate(rates[0]) << " | " << rate(rates[1]) << " | " << ratioText(rates[0], rates[1]) << " |\n"
        << "| server CPU us per request | " << fixed(serveCpu, 1) << " | " << fixed(nginxCpu, 1) << " | **" << ratioText(serveCpu, nginxCpu)
        << "** |\n";
    out.flush();
    if (bad > 0)
        throw LanternError(QStringLiteral("%1 answers to GET /livez were not 2xx or failed").arg(bad));
    const QString wrkLine = QStringLiteral("wrk -t %1 -c %2; %3").arg(setup.wrkThreads).arg(setup.connections).arg(setup.layout.name);
    return {{QStringLiteral("lanternd serve CPU us per GET /livez (no Redis; --threads %1, %2)").arg(setup.serveThreads).arg(wrkLine),
             fixed(serveCpu, 1), QStringLiteral("nginx answering a fixed JSON 200 (%1, the same wrk)")
                                        .arg(setup.serveThreads == 1 ? QStringLiteral("1 worker") : QStringLiteral("%1 workers").arg(setup.serveThreads)),
             fixed(nginxCpu, 1), ratioText(serveCpu, nginxCpu)},
            {QStringLiteral("GET /livez/s through lanternd serve (%1)").arg(wrkLine), rate(rates[0]), QStringLiteral("nginx, the same wrk"),
             rate(rates[1]), ratioText(rates[0], rates[1])}};
}

} // namespace lantern::bench
