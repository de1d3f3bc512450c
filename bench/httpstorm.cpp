#include "httpstorm.h"

#include "benchserver.h"
#include "httpprobe.h"
#include "redisbenchmarkrun.h"
#include "rounds.h"
#include "serveprocess.h"

#include <QElapsedTimer>
#include <QThread>

namespace lantern::bench {

namespace {

/** lanternd's lantern_redis_commands_total and lantern_redis_writes_total, from its /metrics. */
std::pair<double, double> redisBatching(const ServeProcess &serve)
{
    const HttpAnswer answer = httpRequest(serve.port(), QByteArrayLiteral("GET"), QByteArrayLiteral("/metrics"));
    double commands = 0;
    double writes = 0;
    for (const QByteArray &line : answer.body.split('\n')) {
        if (line.startsWith("lantern_redis_commands_total "))
            commands = line.mid(line.indexOf(' ') + 1).toDouble();
        else if (line.startsWith("lantern_redis_writes_total "))
            writes = line.mid(line.indexOf(' ') + 1).toDouble();
    }
    return {commands, writes};
}

/** Redis's run delay over a phase, as a share of the phase's time. */
class RedisWaiting final {
public:
    explicit RedisWaiting(BenchServer &server) : m_start(server.waitingMicros()) { m_clock.start(); }
    std::optional<double> percent(BenchServer &server) const
    {
        const double elapsedMicros = double(m_clock.nsecsElapsed()) / 1000;
        const std::optional<double> end = server.waitingMicros();
        if (!m_start || !end || elapsedMicros <= 0)
            return std::nullopt;
        return 100 * (*end - *m_start) / elapsedMicros;
    }

private:
    std::optional<double> m_start;
    QElapsedTimer m_clock;
};

} // namespace

StormFigures runHttpStorm(BenchServer &server, const ServeProcess &serve, const WrkOptions &options, qint64 expected)
{
    const auto [commandsBefore, writesBefore] = redisBatching(serve);
    server.resetStats();
    const double redisStart = server.cpuMicros();
    const RedisWaiting waiting(server);
    const ServeProcess::CpuTime serveStart = serve.cpu();
    const WrkFigures wrk = runWrk(options, expected);
    const ServeProcess::CpuTime serveEnd = serve.cpu();
    const std::optional<double> waitingPercent = waiting.percent(server);
    const double redisEnd = server.cpuMicros();
    const auto [commandsAfter, writesAfter] = redisBatching(serve);

    StormFigures figures;
    const auto perRequest = [&wrk](double micros) { return micros / static_cast<double>(std::max<qint64>(wrk.answered, 1)); };
    figures.requests = wrk.answered;
    figures.perSecond = wrk.perSecond;
    figures.p50Ms = wrk.p50Ms;
    figures.p99Ms = wrk.p99Ms;
    figures.evalshaMicros = server.commandMicros(QByteArrayLiteral("evalsha"));
    figures.redisMicros = perRequest(redisEnd - redisStart);
    figures.redisWaitingPercent = waitingPercent;
    figures.clientMicros = wrk.clientMicros;
    const double serveTotal = serveEnd.totalMicros - serveStart.totalMicros;
    figures.serveMicros = perRequest(serveTotal);
    figures.serveSystemPercent = serveTotal > 0 ? 100.0 * (serveEnd.systemMicros - serveStart.systemMicros) / serveTotal : 0;
    figures.wrk = wrk;
    if (writesAfter > writesBefore)
        figures.commandsPerWrite = (commandsAfter - commandsBefore) / (writesAfter - writesBefore);
    return figures;
}

StormFigures runBenchmarkStorm(BenchServer &server, const RedisBenchmarkOptions &options)
{
    server.resetStats();
    const double redisStart = server.cpuMicros();
    const RedisWaiting waiting(server);
    const PhaseFigures phase = runRedisBenchmark(options);
    const std::optional<double> waitingPercent = waiting.percent(server);
    const double redisEnd = server.cpuMicros();

    StormFigures figures;
    figures.requests = phase.requests;
    figures.perSecond = phase.perSecond;
    figures.p50Ms = phase.p50Ms;
    figures.p99Ms = phase.p99Ms;
    figures.evalshaMicros = server.commandMicros(QByteArrayLiteral("evalsha"));
    figures.redisMicros = (redisEnd - redisStart) / static_cast<double>(std::max<qint64>(phase.requests, 1));
    figures.redisWaitingPercent = waitingPercent;
    figures.clientMicros = phase.clientMicros;
    return figures;
}

QString cpuBudget(const QList<StormFigures> &phases, const QString &unit)
{
    std::vector<double> rates, serve, system, redis, client, batch, httpWaiting, baselineWaiting;
    for (const StormFigures &f : phases) {
        if (f.redisWaitingPercent)
            (f.serveMicros ? httpWaiting : baselineWaiting).push_back(*f.redisWaitingPercent);
        if (!f.serveMicros)
            continue;
        if (f.commandsPerWrite)
            batch.push_back(*f.commandsPerWrite);
        rates.push_back(f.perSecond);
        serve.push_back(*f.serveMicros);
        system.push_back(f.serveSystemPercent);
        redis.push_back(f.redisMicros);
        client.push_back(f.clientMicros);
    }
    if (rates.empty())
        return {};
    const double perRequest = median(serve) + median(redis) + median(client);
    const double rateMedian = median(rates);
    const auto fixed = [](double value, int decimals) { return QString::number(value, 'f', decimals); };
    return QStringLiteral("CPU per %1 through HTTP (medians): lanternd serve %2 us (%3 % of it in the kernel), Redis %4 us, the HTTP client %5 us: "
                          "%6 us in all, so at %7/s the three processes keep %8 of the machine's %9 cores busy.\n")
            .arg(unit, fixed(median(serve), 1), fixed(median(system), 0), fixed(median(redis), 1), fixed(median(client), 1),
                 fixed(perRequest, 1), rate(rateMedian), fixed(perRequest * rateMedian / 1e6, 2))
            .arg(QThread::idealThreadCount())
            + (batch.empty() ? QString()
                             : QStringLiteral("lanternd's event loops sent %1 Redis commands per write (median; /metrics), where "
                                              "redis-benchmark sends one per round trip on each connection.\n")
                                       .arg(fixed(median(batch), 1)))
            + (httpWaiting.empty() ? QString()
                                   : QStringLiteral("Redis was ready to run but waiting for a core %1 % of the time through HTTP (median; "
                                                    "its run delay, /proc/PID/schedstat)%2.\n")
                                             .arg(fixed(median(httpWaiting), 0),
                                                  baselineWaiting.empty()
                                                          ? QString()
                                                          : QStringLiteral(", %1 % under redis-benchmark, where it shares the cores "
                                                                           "with one process instead of two")
                                                                    .arg(fixed(median(baselineWaiting), 0))));
}

QString stormTableHeader(const QString &unit, const QString &freshColumn)
{
    return QStringLiteral("| round: client | %1 | p50 ms | p99 ms | non-2xx | EVALSHA us | Redis CPU us | Redis waiting % | "
                          "lanternd CPU us (kernel) | client CPU us | %2 |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
            .arg(unit, freshColumn);
}

QString stormTableRow(const StormFigures &f, const QString &fresh)
{
    const auto fixed = [](double value, int decimals) { return QString::number(value, 'f', decimals); };
    const QString serve = f.serveMicros ? QStringLiteral("%1 (%2 %)").arg(fixed(*f.serveMicros, 1), fixed(f.serveSystemPercent, 0))
                                        : QStringLiteral("-");
    const QString non2xx = f.wrk ? QString::number(f.wrk->non2xx) : QStringLiteral("-");
    const QString waiting = f.redisWaitingPercent ? fixed(*f.redisWaitingPercent, 0) : QStringLiteral("-");
    return QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 | %8 | %9 | %10 | %11 |")
            .arg(f.client, rate(f.perSecond), fixed(f.p50Ms, 3), fixed(f.p99Ms, 3), non2xx, fixed(f.evalshaMicros, 1), fixed(f.redisMicros, 1),
                 waiting, serve)
            .arg(fixed(f.clientMicros, 1), fresh);
}

} // namespace lantern::bench
