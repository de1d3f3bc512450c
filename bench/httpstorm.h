#pragma once

#include "wrkrun.h"

#include <QList>
#include <QString>

#include <optional>

namespace lantern::bench {

class BenchServer;
class ServeProcess;
struct RedisBenchmarkOptions;

/** One phase of a storm: wrk through `lanternd serve`, or redis-benchmark sending the server's
    EVALSHA straight to Redis. CPU figures are per answered request. */
struct StormFigures {
    QString client;                     // the table row's label
    qint64 requests = 0;
    double perSecond = 0;
    double p50Ms = 0;
    double p99Ms = 0;
    double evalshaMicros = 0;           // Redis's own time per EVALSHA (INFO commandstats)
    double redisMicros = 0;             // the Redis process's CPU (INFO cpu), network I/O included
    std::optional<double> redisWaitingPercent;  // of the phase's time, Redis ready to run but waiting for a CPU
    double clientMicros = 0;            // wrk's or redis-benchmark's CPU
    std::optional<double> serveMicros;  // lanternd serve's CPU (HTTP phases only)
    double serveSystemPercent = 0;      // the part of it spent in the kernel
    std::optional<double> commandsPerWrite;  // lanternd's Redis commands per write() (its /metrics)
    std::optional<WrkFigures> wrk;      // HTTP phases: non-2xx, outcomes
};

/** Resets the server's statistics, runs wrk against `serve` and measures every process's CPU.
    `expected`: the bearer file's lines. */
StormFigures runHttpStorm(BenchServer &server, const ServeProcess &serve, const WrkOptions &options, qint64 expected);
/** The same for redis-benchmark (no lanternd in the path). */
StormFigures runBenchmarkStorm(BenchServer &server, const RedisBenchmarkOptions &options);

/** One sentence on where the CPU of the HTTP phases among `phases` went, from their medians:
    each process's CPU per request, their sum, and how many of the machine's cores that sum keeps
    busy at the median rate; and one on how long Redis waited for a core in them and in the
    redis-benchmark phases. Empty without an HTTP phase. */
QString cpuBudget(const QList<StormFigures> &phases, const QString &unit);

/** The phase table: header (with `unit`, e.g. "check-ins/s") and one row. */
QString stormTableHeader(const QString &unit, const QString &freshColumn);
QString stormTableRow(const StormFigures &figures, const QString &fresh);

} // namespace lantern::bench
