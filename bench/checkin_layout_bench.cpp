// lantern-bench-checkin-layout: check-ins per second through the library at N clients, the block
// layout (CheckinService, dense and sparse uids) next to the per-user bitmaps it replaced (the
// old checkin.lua, kept in bench/legacy/, driven the way the old CheckinService drove it), in
// alternating rounds of one run. It measures; it asserts nothing.
#include "benchserver.h"
#include "benchsettings.h"
#include "clientload.h"
#include "rounds.h"
#include "summaryrows.h"
#include "uidsample.h"

#include "checkin/checkinservice.h"
#include "checkin/streakcalculator.h"
#include "core/datetext.h"
#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "settings/config.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QFile>
#include <QTextStream>

#include <memory>

using namespace lantern;
using namespace lantern::bench;

namespace {

/** The old check-in script, as the bench's source tree holds it. */
const LuaScript &legacyScript()
{
    static const LuaScript script = [] {
        QFile file(QStringLiteral(LANTERN_BENCH_LEGACY_DIR "/checkin_per_user_bitmaps.lua"));
        if (!file.open(QIODevice::ReadOnly))
            throw LanternError(QStringLiteral("cannot read %1").arg(file.fileName()));
        return LuaScript(QStringLiteral("checkin_per_user_bitmaps"), file.readAll());
    }();
    return script;
}

/** A normal check-in on the old layout, as the old CheckinService made it: the script's keys and
    arguments, one EVALSHA, the streak and count from the bits it returns. */
CheckinOutcome legacyCheckin(RedisClient &redis, const KeySchema &keys, const CheckinRules &rules, qint64 uid, QDate day, qint64 nowMs)
{
    const QDate month = firstOfMonth(day);
    const QDate previous = month.addMonths(-1);
    const int shard = keys.shardOf(uid);
    QByteArrayList args{QByteArray::number(uid),
                        isoDay(day),
                        QByteArray::number(day.day()),
                        QByteArray::number(month.daysInMonth()),
                        QByteArray::number(previous.daysInMonth()),
                        QByteArrayLiteral("normal"),
                        rules.streakPolicy == StreakPolicy::Rolling ? QByteArrayLiteral("1") : QByteArrayLiteral("0"),
                        rules.makeupGrantsPoints ? QByteArrayLiteral("1") : QByteArrayLiteral("0"),
                        QByteArray::number(rules.makeupQuota),
                        QByteArray::number(qint64(62) * 86400),
                        QByteArray(),
                        QByteArray(),
                        QByteArray::number(nowMs)};
    for (const int points : rules.rewards)
        args << QByteArray::number(points);
    const RedisValue reply = legacyScript().run(
            redis, {keys.signBits(uid, month), keys.makeupBits(uid, month), keys.signBits(uid, previous), keys.daySet(shard, day), keys.checkinQueue(shard)},
            args);
    if (reply.isError() || reply.elements.size() != 4)
        throw RedisReplyError(QStringLiteral("unexpected reply of the old checkin script"));
    const MonthBits bits = MonthBits::fromBitfield(month, reply.elements[1].toInteger());
    CheckinOutcome outcome;
    outcome.uid = uid;
    outcome.date = day;
    outcome.kind = QStringLiteral("normal");
    outcome.already = reply.elements[0].toBytes() == "already";
    outcome.points = static_cast<int>(reply.elements[3].toInteger());
    outcome.monthCount = bits.count();
    outcome.streak = StreakCalculator::current(day, {bits}, rules.streakPolicy).streak;
    return outcome;
}

qint64 queued(BenchServer &server, const KeySchema &keys)
{
    qint64 total = 0;
    for (int shard = 0; shard < keys.shards(); ++shard)
        total += server.listLength(keys.checkinQueue(shard));
    return total;
}

int run(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "Check-ins per second through the library at N clients: the block layout (dense and sparse uids) and the old "
            "per-user bitmaps, alternating rounds. Point it at a private Redis: it removes every key under --prefix."));
    addBenchOptions(parser);
    parser.addOptions({
            {QStringLiteral("requests"), QStringLiteral("Check-ins per phase (distinct users)."), QStringLiteral("n"), QStringLiteral("200000")},
            {QStringLiteral("users"), QStringLiteral("Dense uids are drawn from 1 .. n."), QStringLiteral("n"), QStringLiteral("1000000")},
            {QStringLiteral("shards"), QStringLiteral("Check-in shards."), QStringLiteral("n"), QStringLiteral("16")},
            {QStringLiteral("date"), QStringLiteral("The day every uid signs."), QStringLiteral("yyyy-mm-dd"), QStringLiteral("2024-03-15")},
    });
    processArguments(parser, app);
    const BenchSettings bench = benchSettings(parser);
    const qint64 requests = integerOption(parser, QStringLiteral("requests"), 1, 10'000'000);
    const qint64 users = integerOption(parser, QStringLiteral("users"), requests, 100'000'000);
    const int shards = static_cast<int>(integerOption(parser, QStringLiteral("shards"), 1, 16384));
    const QDate day = parseDate(parser.value(QStringLiteral("date")), QStringLiteral("--date"));
    const KeySchema keys(bench.prefix, shards);
    const CheckinRules rules;

    RedisClient redis(bench.redis);
    BenchServer server(redis);
    const QByteArray prefix = bench.prefix.toUtf8();
    const KeysRemovedOnExit cleanup(server, prefix);
    server.loadScript(legacyScript());
    QTextStream out(stdout);

    std::vector<qint64> dense = sampleUids(requests, users, bench.seed);
    for (qint64 &uid : dense)
        uid = uid - UidBase + 1;  // 1 .. users
    const std::vector<qint64> sparse = sampleUids(requests, 1'000'000'000, bench.seed + 1);  // 13 digits: above the dense bound

    out << "- " << requests << " check-ins per phase, each a different user, day " << day.toString(Qt::ISODate) << ", " << bench.clients
        << " client threads, " << shards << " check-in shards, default rules; dense uids drawn from 1 .. " << users
        << ", sparse uids 13 digits (" << UidBase << " + [0, 10^9))\n"
        << "- before each phase the bench removes its keys and resets the server's statistics; " << bench.rounds
        << " rounds, alternating which phase goes first\n\n"
        << "| round | layout | check-ins/s | p50 ms | p99 ms | server CPU us | client CPU us | fresh |\n"
        << "|---:|---|---:|---:|---:|---:|---:|---:|\n";
    out.flush();

    const auto phase = [&](const QString &name, const std::vector<qint64> &uids, const ClientFactory &factory) -> RoundPhase {
        const std::vector<qint64> *list = &uids;
        return [&, name, factory, list](int round) {
            server.removeKeys(prefix);
            server.resetStats();
            PhaseFigures figures = runClientLoad(bench.redis, bench.clients, *list, factory);
            figures.fresh = queued(server, keys);
            figures.serverMicros = server.commandMicros(QByteArrayLiteral("evalsha"));
            out << "| " << round << " | " << name << " | " << rate(figures.perSecond) << " | " << QString::number(figures.p50Ms, 'f', 2) << " | "
                << QString::number(figures.p99Ms, 'f', 2) << " | " << QString::number(figures.serverMicros, 'f', 1) << " | "
                << QString::number(figures.clientMicros, 'f', 1) << " | " << figures.fresh << " |\n";
            out.flush();
            return figures.perSecond;
        };
    };
    const ClientFactory blocksClient = [&keys, &rules, day](RedisClient &client) -> ClientRequest {
        auto service = std::make_shared<CheckinService>(client, keys, rules);
        return [service, day](qint64 uid) { service->checkin(uid, day, day, QDateTime::currentMSecsSinceEpoch()); };
    };
    const ClientFactory oldClient = [&keys, &rules, day](RedisClient &client) -> ClientRequest {
        RedisClient *connection = &client;
        return [connection, &keys, &rules, day](qint64 uid) {
            legacyCheckin(*connection, keys, rules, uid, day, QDateTime::currentMSecsSinceEpoch());
        };
    };
    const QString oldName = QStringLiteral("old per-user bitmaps (dense uids)");
    const QString denseName = QStringLiteral("blocks, dense uids");
    const QString sparseName = QStringLiteral("blocks, sparse uids");
    const std::vector<double> medians = runAlternatingRounds(
            bench.rounds, {phase(oldName, dense, oldClient), phase(denseName, dense, blocksClient), phase(sparseName, sparse, blocksClient)});
    out << '\n';
    printSummary(out, bench.rounds, QStringLiteral("check-ins/s"), {{oldName, medians[0]}, {denseName, medians[1]}, {sparseName, medians[2]}},
                 {{QStringLiteral("blocks, dense / old"), medians[1], medians[0]}, {QStringLiteral("blocks, sparse / old"), medians[2], medians[0]}});
    out.flush();
    appendSummaryRows(bench.summaryFile,
                      {{QStringLiteral("check-ins/s through CheckinService, blocks, dense uids (%1 clients)").arg(bench.clients), rate(medians[1]),
                        QStringLiteral("the old per-user bitmaps, same run"), rate(medians[0]), ratioText(medians[1], medians[0])},
                       {QStringLiteral("check-ins/s through CheckinService, blocks, sparse uids (%1 clients)").arg(bench.clients), rate(medians[2]),
                        QStringLiteral("the old per-user bitmaps, same run"), rate(medians[0]), ratioText(medians[2], medians[0])}});
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-checkin-layout"), run);
}
