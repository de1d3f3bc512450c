#pragma once

#include "benchsettings.h"
#include "clientload.h"

#include <QByteArrayList>
#include <QStringList>

#include <functional>

namespace lantern {
class LuaScript;
class RedisClient;
}

namespace lantern::bench {

class BenchServer;

/** The settings of a library-vs-redis-benchmark bench: the shared ones, plus requests per phase,
    the uid keyspace and the redis-benchmark program. */
struct ComparisonSettings {
    BenchSettings bench;
    qint64 requests = 100'000;
    qint64 users = 1'000'000'000;
    QString redisBenchmark;
};

/** addBenchOptions, plus --requests (`what` per phase), --users and --redis-benchmark; the
    description gets the warning every such bench owes its user. */
void addComparisonOptions(QCommandLineParser &parser, const QString &what, const QString &description);
ComparisonSettings comparisonSettings(const QCommandLineParser &parser);

/** One Lua script through the library at N clients, next to redis-benchmark sending the very
    same EVALSHA at the same concurrency. */
struct ScriptComparison {
    QString title;        // "Grab storm through the library vs redis-benchmark"
    QString unit;         // one request, plural: "grabs" (the rate column is "grabs/s")
    QString freshColumn;  // what `fresh` counts: "envelopes won"
    QString library;      // what the library phase calls: "GrabService::grab()"
    QStringList notes;    // bullet lines (without "- ") on the bench's own set-up
    ClientFactory client; // one library client; also makes the request whose EVALSHA is captured
    int uidArguments = 1; // arguments of that EVALSHA that name the uid
    std::function<void()> reset;    // before each phase, once the bench's keys are gone: what a phase starts from
    std::function<qint64()> fresh;  // after each phase: requests that did the full work
};

/** The bench's own connection and the script, while a comparison is set up. */
struct ComparisonServer {
    RedisClient &redis;
    BenchServer &server;
    const LuaScript &script;
};

/** The client's own EVALSHA of `script`, as the server logged it while `call(SentinelUid)` ran,
    with the uid made redis-benchmark's RandomUid. Throws unless it is that EVALSHA and names the
    uid in at least `minUidArguments` arguments (fewer: every redis-benchmark request would be the
    same user's). */
QByteArrayList captureScriptCommand(BenchServer &server, const LuaScript &script, const std::function<void(qint64 uid)> &call,
                                    int minUidArguments);

/** Connects, loads `script`, removes the keys under the bench's prefix, lets `setUp` prepare the
    comparison, captures the library's EVALSHA, then prints the set-up, one table row per phase
    and round, and the medians with their ratio (also a summary row). The keys go again on any exit. */
void runScriptComparison(const ComparisonSettings &settings, const QString &script,
                         const std::function<ScriptComparison(const ComparisonServer &)> &setUp);

} // namespace lantern::bench
