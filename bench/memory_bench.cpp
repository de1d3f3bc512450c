// lantern-bench-memory: Redis bytes per user-month of everything check-in keeps in Redis (the
// signed days, the make-up marks, whatever reconcile reads), for the block layout (dense uids at
// --users and --big-users, sparse uids at --sparse-users) and for the per-user bitmaps and per-day
// sets it replaced, measured in the same run. Each phase starts from an empty prefix and reads
// INFO memory before and after, next to the one-bit-per-user-day floor. It measures; it asserts
// nothing.
#include "benchserver.h"
#include "benchsettings.h"
#include "checkinseed.h"
#include "rounds.h"
#include "summaryrows.h"

#include "checkin/monthbits.h"
#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "settings/config.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTextStream>
#include <QThread>

#include <algorithm>
#include <bit>
#include <limits>
#include <cmath>
#include <numeric>
#include <random>

using namespace lantern;
using namespace lantern::bench;

namespace {

/** How long the old per-day uid sets lived (the old CheckinRules::daySetTtlDays). */
constexpr int OldDaySetTtlDays = 62;

struct MemorySettings {
    BenchSettings bench;
    qint64 users = 1'000'000;
    qint64 bigUsers = 0;
    qint64 sparseUsers = 1'000'000;
    int days = 20;
    double makeupShare = 0.01;
    QDate month{2024, 3, 1};
    int shards = KeySchema::DefaultShards;
    int daySetDays = 3;
    int batch = 1000;
};

MemorySettings parseSettings(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "Redis bytes per user-month of check-in data, block layout (dense and sparse uids) and the old per-user bitmaps with "
            "their per-day sets, in one run. Point it at a private Redis with nothing else writing: it removes every key under "
            "--prefix (use one as long as the production prefix, e.g. lb: for lt:)."));
    addBenchOptions(parser);
    parser.addOptions({
            {QStringLiteral("users"), QStringLiteral("Dense users: uids 1 .. n (both layouts)."), QStringLiteral("n"), QStringLiteral("1000000")},
            {QStringLiteral("big-users"), QStringLiteral("Dense users of a second, block layout only phase (0: none)."), QStringLiteral("n"),
             QStringLiteral("0")},
            {QStringLiteral("sparse-users"), QStringLiteral("Sparse users: random 63-bit uids (0: none)."), QStringLiteral("n"),
             QStringLiteral("1000000")},
            {QStringLiteral("days"), QStringLiteral("Days each user signs in the month, drawn at random."), QStringLiteral("n"),
             QStringLiteral("20")},
            {QStringLiteral("makeup-percent"), QStringLiteral("Users, in percent, one of whose days is a make-up."), QStringLiteral("p"),
             QStringLiteral("1")},
            {QStringLiteral("month"), QStringLiteral("The month."), QStringLiteral("yyyy-mm"), QStringLiteral("2024-03")},
            {QStringLiteral("shards"), QStringLiteral("Check-in shards (uid mod S tags the keys)."), QStringLiteral("n"), QStringLiteral("16")},
            {QStringLiteral("day-set-days"), QStringLiteral("Days of the month whose old day sets are written (scaled to the month)."),
             QStringLiteral("n"), QStringLiteral("3")},
            {QStringLiteral("batch"), QStringLiteral("Commands per pipeline."), QStringLiteral("n"), QStringLiteral("1000")},
    });
    processArguments(parser, app);
    MemorySettings settings;
    settings.bench = benchSettings(parser);
    settings.users = integerOption(parser, QStringLiteral("users"), 1, 100'000'000);
    settings.bigUsers = integerOption(parser, QStringLiteral("big-users"), 0, 100'000'000);
    settings.sparseUsers = integerOption(parser, QStringLiteral("sparse-users"), 0, 100'000'000);
    settings.month = parseMonth(parser.value(QStringLiteral("month")));
    settings.days = static_cast<int>(integerOption(parser, QStringLiteral("days"), 1, settings.month.daysInMonth()));
    settings.makeupShare = static_cast<double>(integerOption(parser, QStringLiteral("makeup-percent"), 0, 100)) / 100.0;
    settings.shards = static_cast<int>(integerOption(parser, QStringLiteral("shards"), 1, 16384));
    settings.daySetDays = static_cast<int>(integerOption(parser, QStringLiteral("day-set-days"), 1, settings.month.daysInMonth()));
    settings.batch = static_cast<int>(integerOption(parser, QStringLiteral("batch"), 1, 100'000));
    return settings;
}

/** INFO memory's used_memory less the client buffers (mem_clients_normal): what the data costs,
    not the bench's own query and reply buffers. */
qint64 dataMemory(RedisClient &redis)
{
    const QByteArray info = redis.command({QByteArrayLiteral("INFO"), QByteArrayLiteral("memory")}).toBytes();
    qint64 used = -1;
    qint64 clients = 0;
    for (const QByteArray &line : info.split('\n')) {
        if (line.startsWith("used_memory:"))
            used = line.mid(12).trimmed().toLongLong();
        else if (line.startsWith("mem_clients_normal:"))
            clients = line.mid(19).trimmed().toLongLong();
    }
    if (used < 0)
        throw LanternError(QStringLiteral("INFO memory has no used_memory"));
    return used - clients;
}

QString serverVersion(RedisClient &redis)
{
    const QByteArray info = redis.command({QByteArrayLiteral("INFO"), QByteArrayLiteral("server")}).toBytes();
    for (const QByteArray &line : info.split('\n')) {
        if (line.startsWith("redis_version:"))
            return QString::fromLatin1(line.mid(14).trimmed());
    }
    return QStringLiteral("?");
}

/** Waits until the server has settled: lazy frees done, the idle client buffers shrunk. */
void settle(RedisClient &redis)
{
    QThread::msleep(1500);
    redis.command({QByteArrayLiteral("PING")});
}

/** `count` users' months: `days` random days each, and one of them a make-up for `makeupShare` of the users. */
std::vector<UserMonth> drawMonths(qint64 count, const MemorySettings &s, std::mt19937_64 &random)
{
    const int monthDays = s.month.daysInMonth();
    std::vector<UserMonth> months(static_cast<size_t>(count));
    std::vector<int> pool(static_cast<size_t>(monthDays));
    std::bernoulli_distribution makeup(s.makeupShare);
    for (UserMonth &month : months) {
        std::iota(pool.begin(), pool.end(), 1);
        for (int i = 0; i < s.days; ++i) {
            const auto j = std::uniform_int_distribution<size_t>(static_cast<size_t>(i), pool.size() - 1)(random);
            std::swap(pool[static_cast<size_t>(i)], pool[j]);
            month.days |= 1U << (pool[static_cast<size_t>(i)] - 1);
        }
        if (makeup(random))
            month.makeups = 1U << (pool[0] - 1);
    }
    return months;
}

/** What one phase measured. */
struct PhaseResult {
    qint64 bytes = 0;      // used_memory after less before
    qint64 keys = 0;       // keys added
    qint64 commands = 0;   // commands sent
    double seconds = 0;    // writing them
};

/** Empties the prefix, settles, runs `write`, settles, measures. */
PhaseResult measure(RedisClient &redis, BenchServer &server, const QByteArray &prefix, const std::function<qint64()> &write)
{
    server.removeKeys(prefix);
    settle(redis);
    const qint64 keysBefore = redis.command({QByteArrayLiteral("DBSIZE")}).toInteger();
    const qint64 before = dataMemory(redis);
    QElapsedTimer timer;
    timer.start();
    PhaseResult result;
    result.commands = write();
    result.seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    settle(redis);
    result.bytes = dataMemory(redis) - before;
    result.keys = redis.command({QByteArrayLiteral("DBSIZE")}).toInteger() - keysBefore;
    return result;
}

qint64 writeBlocks(RedisClient &redis, const KeySchema &keys, const MemorySettings &s, const std::vector<qint64> &uids,
                   const std::vector<UserMonth> &months)
{
    return seedBlocks(redis, keys, s.month, uids, months, s.batch);
}

/** The old layout as the old checkin.lua left it: per-user sign bitmaps by SETBIT in day order,
    make-up bitmaps, and per-day uid sets (SADD, EXPIRE) for the first `days` days only. */
qint64 writeOldBitmaps(RedisClient &redis, const KeySchema &keys, const MemorySettings &s, const std::vector<qint64> &uids,
                       const std::vector<UserMonth> &months)
{
    Pipeliner pipe(redis, s.batch);
    for (size_t i = 0; i < uids.size(); ++i) {
        const QByteArray key = keys.signBits(uids[i], s.month);
        for (quint32 bits = months[i].days; bits != 0; bits &= bits - 1)
            pipe.add({QByteArrayLiteral("SETBIT"), key, QByteArray::number(std::countr_zero(bits)), QByteArrayLiteral("1")});
        if (months[i].makeups != 0)
            pipe.add({QByteArrayLiteral("SETBIT"), keys.makeupBits(uids[i], s.month), QByteArray::number(std::countr_zero(months[i].makeups)),
                      QByteArrayLiteral("1")});
    }
    pipe.flush();
    return pipe.sent();
}

qint64 writeOldDaySets(RedisClient &redis, const KeySchema &keys, const MemorySettings &s, const std::vector<qint64> &uids,
                       const std::vector<UserMonth> &months, qint64 &members)
{
    Pipeliner pipe(redis, s.batch);
    for (int day = 1; day <= s.daySetDays; ++day) {
        const QDate date(s.month.year(), s.month.month(), day);
        for (size_t i = 0; i < uids.size(); ++i) {
            if ((months[i].days & (1U << (day - 1))) == 0)
                continue;
            pipe.add({QByteArrayLiteral("SADD"), keys.daySet(keys.shardOf(uids[i]), date), QByteArray::number(uids[i])});
            ++members;
        }
        for (int shard = 0; shard < s.shards; ++shard)
            pipe.add({QByteArrayLiteral("EXPIRE"), keys.daySet(shard, date), QByteArray::number(OldDaySetTtlDays * 86'400)});
    }
    pipe.flush();
    return pipe.sent();
}

int run(const QCoreApplication &app)
{
    const MemorySettings s = parseSettings(app);
    const QByteArray prefix = s.bench.prefix.toUtf8();
    const KeySchema keys(s.bench.prefix, s.shards);
    RedisClient redis(s.bench.redis);
    BenchServer server(redis);
    const KeysRemovedOnExit cleanup(server, prefix);
    QTextStream out(stdout);
    std::mt19937_64 random(s.bench.seed);
    const int monthDays = s.month.daysInMonth();
    const double floorBytes = monthDays / 8.0;
    const auto fixed = [](double value, int decimals = 1) { return QString::number(std::abs(value) < 0.05 ? 0.0 : value, 'f', decimals); };
    const QString floorLabel = QStringLiteral("one bit per user-day (%1 bits)").arg(monthDays);

    const std::vector<UserMonth> months = drawMonths(std::max({s.users, s.bigUsers, s.sparseUsers}), s, random);
    const auto denseUids = [](qint64 count) {
        std::vector<qint64> uids(static_cast<size_t>(count));
        std::iota(uids.begin(), uids.end(), qint64(1));
        return uids;
    };
    qint64 makeupUsers = 0;
    for (qint64 i = 0; i < s.users; ++i)
        makeupUsers += months[size_t(i)].makeups != 0;

    out << "Redis memory of one month of check-ins (" << s.month.toString(QStringLiteral("yyyy-MM")) << ", " << monthDays << " days): "
        << s.days << " random days per user, one of them a make-up for " << fixed(s.makeupShare * 100, 0) << " % of the users ("
        << makeupUsers << " of " << s.users << "); " << s.shards << " check-in shards; prefix `" << s.bench.prefix << "`; Redis "
        << serverVersion(redis) << ". Each phase empties the prefix, waits 1.5 s, reads INFO memory `used_memory` less "
        << "`mem_clients_normal`, writes, waits 1.5 s and reads it again.\n\n"
        << "| layout | users | keys | commands | written in | bytes added | **per user-month** | ratio to " << floorLabel << " |\n"
        << "|---|---:|---:|---:|---:|---:|---:|---:|\n";
    std::vector<SummaryRow> rows;
    const auto report = [&](const QString &label, qint64 users, const PhaseResult &result, const QString &summaryFigure) {
        const double perUser = static_cast<double>(result.bytes) / static_cast<double>(users);
        out << "| " << label << " | " << users << " | " << result.keys << " | " << result.commands << " | " << fixed(result.seconds) << " s | "
            << result.bytes << " | **" << fixed(perUser, 2) << "** | " << ratioText(perUser, floorBytes) << " |\n";
        out.flush();
        if (!summaryFigure.isEmpty())
            rows.push_back({summaryFigure, fixed(perUser, 2), floorLabel, fixed(floorBytes, 3), ratioText(perUser, floorBytes)});
        return perUser;
    };

    // The block layout, dense uids 1 .. users: signed days, make-up marks, block sets.
    const std::vector<qint64> dense = denseUids(s.users);
    const double blocks = report(QStringLiteral("blocks, dense uids 1 .. %1").arg(s.users), s.users,
                                 measure(redis, server, prefix, [&] { return writeBlocks(redis, keys, s, dense, months); }),
                                 QStringLiteral("Redis bytes per user-month, everything check-in keeps, blocks, dense %1 users").arg(s.users));

    if (s.bigUsers > 0) {
        const std::vector<qint64> big = denseUids(s.bigUsers);
        report(QStringLiteral("blocks, dense uids 1 .. %1").arg(s.bigUsers), s.bigUsers,
               measure(redis, server, prefix, [&] { return writeBlocks(redis, keys, s, big, months); }),
               QStringLiteral("Redis bytes per user-month, everything check-in keeps, blocks, dense %1 users").arg(s.bigUsers));
    }

    if (s.sparseUsers > 0) {
        // Snowflake-like or random ids: 63-bit, above any dense bound.
        std::vector<qint64> sparse(static_cast<size_t>(s.sparseUsers));
        std::uniform_int_distribution<qint64> pick(qint64(1) << 40, std::numeric_limits<qint64>::max());
        for (qint64 &uid : sparse)
            uid = pick(random);
        report(QStringLiteral("sparse uids (random 63-bit), %1").arg(s.sparseUsers), s.sparseUsers,
               measure(redis, server, prefix, [&] { return writeBlocks(redis, keys, s, sparse, months); }),
               QStringLiteral("Redis bytes per user-month, everything check-in keeps, sparse %1 users").arg(s.sparseUsers));
    }

    // The old layout, the same users and days: bitmaps, then a sample of the day sets.
    const double oldBitmaps = report(QStringLiteral("old: per-user sign and make-up bitmaps"), s.users,
                                     measure(redis, server, prefix, [&] { return writeOldBitmaps(redis, keys, s, dense, months); }), {});
    qint64 members = 0;
    const PhaseResult sets = measure(redis, server, prefix, [&] { return writeOldDaySets(redis, keys, s, dense, months, members); });
    const double perMember = static_cast<double>(sets.bytes) / static_cast<double>(std::max<qint64>(members, 1));
    const double oldSets = perMember * s.days;
    const double oldTotal = oldBitmaps + oldSets;
    out << "| old: per-day uid sets, " << s.daySetDays << " days written (" << members << " members, " << fixed(perMember) << " bytes each), x "
        << s.days << " days | " << s.users << " | " << sets.keys << " | " << sets.commands << " | " << fixed(sets.seconds) << " s | "
        << sets.bytes << " | **" << fixed(oldSets, 2) << "** | " << ratioText(oldSets, floorBytes) << " |\n"
        << "| **old: everything** (bitmaps + day sets) | " << s.users << " | | | | | **" << fixed(oldTotal, 2) << "** | **"
        << ratioText(oldTotal, floorBytes) << "** |\n\n"
        << "The block layout costs " << ratioText(blocks, oldTotal) << " x the old one for the same " << s.users << " users ("
        << fixed(blocks, 2) << " against " << fixed(oldTotal, 2) << " bytes per user-month).\n";
    rows.push_back({QStringLiteral("Redis bytes per user-month, everything check-in keeps, old layout (bitmaps + day sets), dense %1 users").arg(s.users),
                    fixed(oldTotal, 2), floorLabel, fixed(floorBytes, 3), ratioText(oldTotal, floorBytes)});
    rows.push_back({QStringLiteral("Redis bytes per user-month, blocks / old layout, dense %1 users").arg(s.users), fixed(blocks, 2),
                    QStringLiteral("old layout, same run"), fixed(oldTotal, 2), ratioText(blocks, oldTotal)});
    out.flush();
    appendSummaryRows(s.bench.summaryFile, rows);
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-memory"), run);
}
