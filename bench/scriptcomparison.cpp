#include "scriptcomparison.h"

#include "benchserver.h"
#include "redisbenchmarkrun.h"
#include "rounds.h"
#include "summaryrows.h"
#include "uidsample.h"

#include "core/errors.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTextStream>

namespace lantern::bench {

namespace {

QString row(const QString &client, const PhaseFigures &figures)
{
    return QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 of %8 |")
            .arg(client, rate(figures.perSecond), QString::number(figures.p50Ms, 'f', 3), QString::number(figures.p99Ms, 'f', 3),
                 QString::number(figures.serverMicros, 'f', 1), QString::number(figures.clientMicros, 'f', 1))
            .arg(figures.fresh)
            .arg(figures.requests);
}

} // namespace

QByteArrayList captureScriptCommand(BenchServer &server, const LuaScript &script, const std::function<void(qint64 uid)> &call,
                                    int minUidArguments)
{
    const QByteArray sentinel = QByteArray::number(SentinelUid);
    QByteArrayList command = server.captureCommand([&] { call(SentinelUid); }, sentinel);
    if (command.size() < 3 || command[0].toUpper() != "EVALSHA" || command[1] != script.sha1())
        throw LanternError(QStringLiteral("the captured %1 is not EVALSHA %2: %3")
                                   .arg(script.name(), QString::fromLatin1(script.sha1()), QString::fromUtf8(command.join(' ').left(200))));
    int withUid = 0;
    for (QByteArray &arg : command) {
        arg.replace(sentinel, RandomUid);
        withUid += arg.contains(RandomUid) ? 1 : 0;
    }
    if (withUid < minUidArguments)
        throw LanternError(QStringLiteral("the captured %1 names the uid in %2 argument(s), expected %3")
                                   .arg(script.name())
                                   .arg(withUid)
                                   .arg(minUidArguments));
    return command;
}

void addComparisonOptions(QCommandLineParser &parser, const QString &what, const QString &description)
{
    parser.setApplicationDescription(description
                                     + QStringLiteral(" Point it at a private server: it uses keys under --prefix only and removes them, "
                                                      "but it also resets the server's statistics (CONFIG RESETSTAT) and briefly lowers "
                                                      "the slow-log threshold to capture the library's command line."));
    addBenchOptions(parser);
    parser.addOptions({
            {QStringLiteral("requests"), QStringLiteral("%1 per phase, in total.").arg(what), QStringLiteral("n"), QStringLiteral("100000")},
            {QStringLiteral("users"), QStringLiteral("Uid keyspace (redis-benchmark -r), at most %1.").arg(MaxKeyspace), QStringLiteral("n"),
             QStringLiteral("1000000000")},
            {QStringLiteral("redis-benchmark"), QStringLiteral("The redis-benchmark program."), QStringLiteral("path"),
             QStringLiteral("redis-benchmark")},
    });
}

ComparisonSettings comparisonSettings(const QCommandLineParser &parser)
{
    ComparisonSettings settings;
    settings.bench = benchSettings(parser);
    settings.requests = integerOption(parser, QStringLiteral("requests"), 1, 100'000'000);
    settings.users = integerOption(parser, QStringLiteral("users"), settings.requests, MaxKeyspace);
    settings.redisBenchmark = parser.value(QStringLiteral("redis-benchmark"));
    const QFileInfo programFile(settings.redisBenchmark);
    if (QStandardPaths::findExecutable(settings.redisBenchmark).isEmpty() && !(programFile.isFile() && programFile.isExecutable()))
        throw InvalidInputError(QStringLiteral("%1 not found (Debian package redis-tools)").arg(settings.redisBenchmark));
    return settings;
}

void runScriptComparison(const ComparisonSettings &settings, const QString &scriptName,
                         const std::function<ScriptComparison(const ComparisonServer &)> &setUp)
{
    const BenchSettings &bench = settings.bench;
    const QByteArray prefix = bench.prefix.toUtf8();
    const LuaScript script(scriptName);
    RedisClient redis(bench.redis);
    BenchServer server(redis);
    server.loadScript(script);
    const KeysRemovedOnExit cleanup(server, prefix);
    server.removeKeys(prefix);
    const ScriptComparison comparison = setUp({redis, server, script});

    const std::vector<qint64> uids = sampleUids(settings.requests, settings.users, bench.seed);
    RedisBenchmarkOptions baseline;
    baseline.program = settings.redisBenchmark;
    baseline.redis = bench.redis;
    baseline.clients = bench.clients;
    baseline.requests = settings.requests;
    baseline.keyspace = settings.users;
    baseline.command = captureScriptCommand(server, script, [&](qint64 uid) { comparison.client(redis)(uid); }, comparison.uidArguments);

    QTextStream out(stdout);
    const QString clients = QString::number(bench.clients);
    out << comparison.title << ": " << settings.requests << ' ' << comparison.unit << " per phase, " << clients << " concurrent clients, "
        << bench.rounds << (bench.rounds == 1 ? " round" : " rounds") << ".\n\n";
    out << "- uids " << UidBase << " + [0, " << settings.users << ") at random; keys under `" << bench.prefix << "`; " << scriptName << ".lua "
        << script.sha1() << '\n';
    for (const QString &note : comparison.notes)
        out << "- " << note << '\n';
    out << "- library: " << clients << " threads, each its own RedisClient, calling " << comparison.library << " with distinct uids\n";
    out << "- redis-benchmark: the library's EVALSHA as the server logged it, with the uid made `" << RandomUid << "`:\n"
        << "  `" << shellCommand(settings.redisBenchmark, redisBenchmarkArguments(baseline, true)) << "`\n\n"
        << "| round: client | " << comparison.unit << "/s | p50 ms | p99 ms | server CPU us | client CPU us | " << comparison.freshColumn
        << " |\n|---|---:|---:|---:|---:|---:|---:|\n";
    out.flush();

    // One phase between two resets of the bench's keys and the server's statistics.
    const auto measure = [&](const QString &client, const std::function<PhaseFigures()> &phase) {
        server.removeKeys(prefix);
        if (comparison.reset)
            comparison.reset();
        server.resetStats();
        PhaseFigures figures = phase();
        figures.fresh = comparison.fresh();
        figures.serverMicros = server.commandMicros(QByteArrayLiteral("evalsha"));
        out << row(client, figures) << '\n';
        out.flush();
        return figures.perSecond;
    };
    const std::vector<double> medians = runAlternatingRounds(
            bench.rounds,
            {[&](int round) {
                 return measure(QStringLiteral("%1: library, %2 threads").arg(round).arg(clients),
                                [&] { return runClientLoad(bench.redis, bench.clients, uids, comparison.client); });
             },
             [&](int round) {
                 return measure(QStringLiteral("%1: redis-benchmark -c %2").arg(round).arg(clients), [&] { return runRedisBenchmark(baseline); });
             }});
    printSummary(out, bench.rounds, comparison.unit + QStringLiteral("/s"),
                 {{QStringLiteral("library (%1)").arg(comparison.library), medians[0]},
                  {QStringLiteral("redis-benchmark (same EVALSHA)"), medians[1]}},
                 {{QStringLiteral("ratio library / redis-benchmark"), medians[0], medians[1]}});
    appendSummaryRows(bench.summaryFile, {{QStringLiteral("%1/s through %2 (%3 threads)").arg(comparison.unit, comparison.library, clients),
                                           rate(medians[0]), QStringLiteral("redis-benchmark -c %1, the same EVALSHA").arg(clients),
                                           rate(medians[1]), ratioText(medians[0], medians[1])}});
}

} // namespace lantern::bench
