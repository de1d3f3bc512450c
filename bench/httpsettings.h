#pragma once

#include "benchsettings.h"
#include "cpuplacement.h"

#include <QStringList>

class QCommandLineParser;

namespace lantern::bench {

/** The settings of a bench that drives `lanternd serve` with wrk: the shared ones (--clients is
    wrk's -c and redis-benchmark's -c), the programs, and how the server runs. */
struct HttpSettings {
    BenchSettings bench;
    QString redisUrl;  // --redis as given, for lanternd's command line
    QString lanternd;
    QString wrk;
    QString wrkScript;
    /** The check-in and grab storms' client: lantern-bench-httpload (bench/httpload.cpp), or wrk
        with --wrk-script; both take wrk's arguments and print bearers.lua's summary line. */
    QString httpClient;
    /** Its name, as the tables show it ("lantern-bench-httpload" or "wrk"). */
    QString httpClientName() const;
    QString redisBenchmark;
    int wrkThreads = 2;
    int serveThreads = 2;
    QString tokenSecret;
    QString timeZone;
    /** --server-cpus: where every lanternd serve the bench starts runs (empty: on the bench's
        own CPUs, which a child inherits); scripts/bench --pin gives the servers' CPU. */
    CpuSet serverCpus;
};

/** addBenchOptions, plus --lanternd, --wrk, --wrk-script, --http-client, --wrk-threads,
    --serve-threads, --server-cpus, --token-secret, --tz and --redis-benchmark. */
void addHttpOptions(QCommandLineParser &parser);
/** Throws InvalidInputError for a value out of range or a program that cannot be found. */
HttpSettings httpSettings(const QCommandLineParser &parser);

/** `lanternd serve`'s arguments (after "serve", without --listen): the bench's Redis and prefix,
    one check-in shard (so the keys have the shape redis-benchmark can send), `db` for SQL. */
QStringList serveArguments(const HttpSettings &settings, int threads, const QString &db);

/** A program name or path that can be run; throws InvalidInputError naming `package` otherwise. */
void requireProgram(const QString &program, const QString &package);

} // namespace lantern::bench
