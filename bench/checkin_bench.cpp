// lantern-bench-checkin: check-ins per second through the library (CheckinService over the
// blocking RedisClient, one thread per client) next to redis-benchmark sending the very same
// EVALSHA at the same concurrency, and the ratio of the two. It measures; it asserts nothing.
#include "benchserver.h"
#include "checkinload.h"
#include "redisbenchmarkrun.h"

#include "checkin/checkinservice.h"
#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTextStream>

#include <algorithm>
#include <functional>
#include <limits>
#include <random>
#include <unordered_set>

using namespace lantern;
using namespace lantern::bench;

namespace {

// Every bench uid is "1" followed by 12 digits, UidBase + k with k < keyspace: the shape
// redis-benchmark gives "1__rand_int__" (it writes k as 12 zero-padded digits), so both phases
// send keys and arguments of the same length and the server stores them the same way.
constexpr qint64 UidBase = 1'000'000'000'000;
constexpr qint64 MaxKeyspace = 2'147'483'647;  // redis-benchmark -r is an int
const QByteArray SentinelUid = QByteArray::number(UidBase + 999'999'999'999);
const QByteArray RandomUid = QByteArrayLiteral("1__rand_int__");
// One shard: redis-benchmark cannot compute uid mod S for the {ck:S} hash tag, so with one
// shard both phases name the same day set and log queue. On a single Redis the shard count does
// not change the script's work, only over how many sets the day's uids spread.
constexpr int BenchShards = 1;

struct Settings {
    RedisUrl redis;
    int clients = 50;
    qint64 requests = 100'000;
    qint64 users = 1'000'000'000;
    QDate day;
    quint64 seed = 1;
    int rounds = 1;
    QString redisBenchmark;
    QString prefix;
};

Settings parseSettings(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "Check-ins per second through CheckinService at N concurrent clients, next to redis-benchmark "
            "running the same EVALSHA at the same concurrency. Point it at a private server: it uses keys under "
            "--prefix only and removes them, but it also resets the server's statistics (CONFIG RESETSTAT) and "
            "briefly lowers the slow-log threshold to capture the library's command line."));
    parser.addHelpOption();
    const QCommandLineOption redis(QStringLiteral("redis"), QStringLiteral("Redis URL."), QStringLiteral("url"),
                                   QStringLiteral("redis://127.0.0.1:6379"));
    const QCommandLineOption clients(QStringLiteral("clients"), QStringLiteral("Concurrent clients."), QStringLiteral("n"),
                                     QStringLiteral("50"));
    const QCommandLineOption requests(QStringLiteral("requests"), QStringLiteral("Check-ins per phase, in total."),
                                      QStringLiteral("n"), QStringLiteral("100000"));
    const QCommandLineOption users(QStringLiteral("users"), QStringLiteral("Uid keyspace (redis-benchmark -r), at most 2147483647."),
                                   QStringLiteral("n"), QStringLiteral("1000000000"));
    const QCommandLineOption day(QStringLiteral("date"), QStringLiteral("The day every uid signs."), QStringLiteral("yyyy-mm-dd"),
                                 QStringLiteral("2024-03-15"));
    const QCommandLineOption seed(QStringLiteral("seed"), QStringLiteral("Seed of the library's uid sample."), QStringLiteral("n"),
                                  QStringLiteral("1"));
    const QCommandLineOption program(QStringLiteral("redis-benchmark"), QStringLiteral("The redis-benchmark program."),
                                     QStringLiteral("path"), QStringLiteral("redis-benchmark"));
    const QCommandLineOption prefix(QStringLiteral("prefix"), QStringLiteral("Key prefix of the bench's keys."),
                                    QStringLiteral("prefix"), QStringLiteral("ltbench:"));
    const QCommandLineOption rounds(QStringLiteral("rounds"),
                                    QStringLiteral("Rounds of both phases, alternating which goes first; medians are compared."),
                                    QStringLiteral("n"), QStringLiteral("1"));
    parser.addOptions({redis, clients, requests, users, day, seed, rounds, program, prefix});
    parser.process(app);
    if (!parser.positionalArguments().isEmpty())
        throw InvalidInputError(QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().first()));

    const auto integer = [&parser](const QCommandLineOption &option, qint64 min, qint64 max) {
        bool ok = false;
        const qint64 value = parser.value(option).toLongLong(&ok);
        if (!ok || value < min || value > max)
            throw InvalidInputError(QStringLiteral("--%1 must be an integer in %2..%3").arg(option.names().first()).arg(min).arg(max));
        return value;
    };
    Settings settings;
    settings.redis = RedisUrl::parse(parser.value(redis));
    settings.clients = static_cast<int>(integer(clients, 1, 10'000));
    settings.requests = integer(requests, 1, 100'000'000);
    settings.users = integer(users, settings.requests, MaxKeyspace);
    settings.day = parseDate(parser.value(day), QStringLiteral("--date"));
    settings.seed = static_cast<quint64>(integer(seed, 0, std::numeric_limits<qint64>::max()));
    settings.rounds = static_cast<int>(integer(rounds, 1, 100));
    settings.redisBenchmark = parser.value(program);
    const QFileInfo programFile(settings.redisBenchmark);
    if (QStandardPaths::findExecutable(settings.redisBenchmark).isEmpty() && !(programFile.isFile() && programFile.isExecutable()))
        throw InvalidInputError(QStringLiteral("%1 not found (Debian package redis-tools)").arg(settings.redisBenchmark));
    settings.prefix = parser.value(prefix);
    if (settings.prefix.isEmpty())
        throw InvalidInputError(QStringLiteral("--prefix must not be empty: the bench removes every key under it"));
    return settings;
}

/** `count` distinct uids in random order (Floyd's sample, then a shuffle). */
std::vector<qint64> sampleUids(qint64 count, qint64 keyspace, quint64 seed)
{
    std::mt19937_64 random(seed);
    std::unordered_set<qint64> taken;
    taken.reserve(static_cast<size_t>(count));
    std::vector<qint64> uids;
    uids.reserve(static_cast<size_t>(count));
    for (qint64 j = keyspace - count; j < keyspace; ++j) {
        const qint64 k = std::uniform_int_distribution<qint64>(0, j)(random);
        const qint64 pick = taken.insert(k).second ? k : (taken.insert(j), j);
        uids.push_back(UidBase + pick);
    }
    std::shuffle(uids.begin(), uids.end(), random);
    return uids;
}

/** The library's own command for one check-in, captured on the server, with the uid made
    redis-benchmark's random placeholder. */
QByteArrayList captureCheckinCommand(BenchServer &server, RedisClient &redis, const KeySchema &keys, const CheckinRules &rules,
                                     const LuaScript &script, QDate day)
{
    QByteArrayList command = server.captureCommand(
            [&] { CheckinService(redis, keys, rules).checkin(SentinelUid.toLongLong(), day, day, QDateTime::currentMSecsSinceEpoch()); },
            SentinelUid);
    if (command.size() < 3 || command[0].toUpper() != "EVALSHA" || command[1] != script.sha1())
        throw LanternError(QStringLiteral("the captured check-in is not EVALSHA %1: %2")
                                   .arg(QString::fromLatin1(script.sha1()), QString::fromUtf8(command.join(' ').left(200))));
    qsizetype withUid = 0;
    for (QByteArray &arg : command) {
        arg.replace(SentinelUid, RandomUid);
        withUid += arg.contains(RandomUid) ? 1 : 0;
    }
    // At least one key and ARGV[1]: otherwise every redis-benchmark request would hit the same user.
    if (withUid < 2)
        throw LanternError(QStringLiteral("the captured check-in names the uid in %1 argument(s), expected a key and ARGV").arg(withUid));
    return command;
}

/** Removes the bench's keys when run() returns or throws. (A killed run leaves them; the next run
    removes them before it starts.) */
class KeysRemovedOnExit final {
public:
    KeysRemovedOnExit(BenchServer &server, QByteArray prefix) : m_server(server), m_prefix(std::move(prefix)) {}
    ~KeysRemovedOnExit()
    {
        try {
            m_server.removeKeys(m_prefix);
        } catch (const LanternError &) {
            // Best effort: the error that ended the run is the one to report.
        }
    }
    Q_DISABLE_COPY_MOVE(KeysRemovedOnExit)

private:
    BenchServer &m_server;
    QByteArray m_prefix;
};

QString rate(double perSecond)
{
    return QString::number(perSecond, 'f', 0);
}

QString row(const QString &client, const PhaseFigures &figures)
{
    return QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 of %8 |")
            .arg(client, rate(figures.perSecond), QString::number(figures.p50Ms, 'f', 3), QString::number(figures.p99Ms, 'f', 3),
                 QString::number(figures.serverMicros, 'f', 1), QString::number(figures.clientMicros, 'f', 1))
            .arg(figures.fresh)
            .arg(figures.requests);
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/** One phase between two resets of the bench's keys and the server's statistics. */
PhaseFigures measure(BenchServer &server, const KeySchema &keys, const std::function<PhaseFigures()> &phase)
{
    server.removeKeys(keys.prefix());
    server.resetStats();
    PhaseFigures figures = phase();
    figures.fresh = server.listLength(keys.checkinQueue(0));
    figures.serverMicros = server.commandMicros(QByteArrayLiteral("evalsha"));
    return figures;
}

int run(const Settings &settings)
{
    QTextStream out(stdout);
    const KeySchema keys(settings.prefix, BenchShards);
    const CheckinRules rules;  // the defaults: monthly streaks, rewards 10/20/30/50
    const LuaScript script(QStringLiteral("checkin"));

    RedisClient redis(settings.redis);
    BenchServer server(redis);
    server.loadScript(script);
    const KeysRemovedOnExit cleanup(server, keys.prefix());
    server.removeKeys(keys.prefix());
    const QByteArrayList command = captureCheckinCommand(server, redis, keys, rules, script, settings.day);
    const std::vector<qint64> uids = sampleUids(settings.requests, settings.users, settings.seed);

    CheckinLoadOptions load;
    load.redis = settings.redis;
    load.clients = settings.clients;
    load.day = settings.day;
    load.rules = rules;
    RedisBenchmarkOptions baseline;
    baseline.program = settings.redisBenchmark;
    baseline.redis = settings.redis;
    baseline.clients = settings.clients;
    baseline.requests = settings.requests;
    baseline.keyspace = settings.users;
    baseline.command = command;

    const QString clients = QString::number(settings.clients);
    out << "Check-in through the library vs redis-benchmark: " << settings.requests << " check-ins per phase, " << clients
        << " concurrent clients, " << settings.rounds << (settings.rounds == 1 ? " round" : " rounds") << ".\n\n"
        << "- day " << settings.day.toString(Qt::ISODate) << "; uids " << UidBase << " + [0, " << settings.users
        << ") at random; keys under `" << settings.prefix << "` (" << BenchShards << " shard); checkin.lua " << script.sha1() << "\n"
        << "- library: " << clients << " threads, each its own RedisClient and CheckinService, calling checkin() with distinct uids\n"
        << "- redis-benchmark: the library's EVALSHA as the server logged it, with the uid made `1__rand_int__`:\n"
        << "  `" << shellCommand(settings.redisBenchmark, redisBenchmarkArguments(baseline, true)) << "`\n\n"
        << "| round: client | check-ins/s | p50 ms | p99 ms | server CPU us | client CPU us | fresh check-ins |\n"
        << "|---|---:|---:|---:|---:|---:|---:|\n";
    out.flush();

    // Rounds alternate which client goes first, so neither always meets a warmer server.
    std::vector<double> libraryRates;
    std::vector<double> baselineRates;
    for (int round = 1; round <= settings.rounds; ++round) {
        for (int turn = 0; turn < 2; ++turn) {
            if ((turn == 0) == (round % 2 == 1)) {
                const PhaseFigures figures = measure(server, keys, [&] { return runCheckinLoad(load, keys, uids); });
                libraryRates.push_back(figures.perSecond);
                out << row(QStringLiteral("%1: library, %2 threads").arg(round).arg(clients), figures) << '\n';
            } else {
                const PhaseFigures figures = measure(server, keys, [&] { return runRedisBenchmark(baseline); });
                baselineRates.push_back(figures.perSecond);
                out << row(QStringLiteral("%1: redis-benchmark -c %2").arg(round).arg(clients), figures) << '\n';
            }
            out.flush();
        }
    }

    const double library = median(libraryRates);
    const double benchmark = median(baselineRates);
    out << "\n| " << (settings.rounds > 1 ? QStringLiteral("median of %1 rounds").arg(settings.rounds) : QStringLiteral("result"))
        << " | check-ins/s |\n|---|---:|\n"
        << "| library (CheckinService) | " << rate(library) << " |\n"
        << "| redis-benchmark (same EVALSHA) | " << rate(benchmark) << " |\n"
        << "| **ratio library / redis-benchmark** | **" << QString::number(library / benchmark, 'f', 2) << "** |\n";
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("lantern-bench-checkin"));
    try {
        return run(parseSettings(app));
    } catch (const InvalidInputError &error) {
        QTextStream(stderr) << "lantern-bench-checkin: " << error.message() << '\n';
        return 2;
    } catch (const std::exception &error) {
        QTextStream(stderr) << "lantern-bench-checkin: " << error.what() << '\n';
        return 1;
    }
}
