// lantern-bench-memory: Redis bytes per user-month of check-in data. It writes one month of
// check-in bitmaps for N users (D random days each, SETBIT in day order on the keys
// KeySchema::signBits gives, as checkin.lua leaves them) and measures INFO memory's used_memory
// before and after, next to the one-bit-per-user-day floor (31 bits, about 4 bytes); then the
// same for a sample of days of the per-day uid sets checkin.lua also fills. It measures; it
// asserts nothing.
#include "benchserver.h"
#include "benchsettings.h"
#include "rounds.h"
#include "summaryrows.h"
#include "uidsample.h"

#include "core/config.h"
#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTextStream>
#include <QThread>

#include <bit>
#include <cmath>
#include <numeric>
#include <random>

using namespace lantern;
using namespace lantern::bench;

namespace {

struct MemorySettings {
    BenchSettings bench;
    qint64 users = 1'000'000;
    int days = 20;
    QDate month{2024, 3, 1};
    int shards = KeySchema::DefaultShards;
    int daySetDays = 3;
    int batch = 1000;
};

MemorySettings parseSettings(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "Redis bytes per user-month of check-in data: one month of check-in bitmaps for --users users, --days random days each "
            "(SETBIT in day order on KeySchema::signBits keys, as checkin.lua leaves them), INFO memory before and after; then a "
            "sample of the per-day uid sets. Point it at a private Redis with nothing else writing: it removes every key under "
            "--prefix (use one as long as the production prefix, e.g. lb: for lt:)."));
    addBenchOptions(parser);
    parser.addOptions({
            {QStringLiteral("users"), QStringLiteral("Users: uids 1000000000000 + [0, n)."), QStringLiteral("n"), QStringLiteral("1000000")},
            {QStringLiteral("days"), QStringLiteral("Days each user signs in the month, drawn at random."), QStringLiteral("n"),
             QStringLiteral("20")},
            {QStringLiteral("month"), QStringLiteral("The month."), QStringLiteral("yyyy-mm"), QStringLiteral("2024-03")},
            {QStringLiteral("shards"), QStringLiteral("Check-in shards (uid mod S tags the keys)."), QStringLiteral("n"), QStringLiteral("16")},
            {QStringLiteral("day-set-days"), QStringLiteral("Days of the month whose day sets are written too (0: none)."), QStringLiteral("n"),
             QStringLiteral("3")},
            {QStringLiteral("batch"), QStringLiteral("Commands per pipeline."), QStringLiteral("n"), QStringLiteral("1000")},
    });
    processArguments(parser, app);
    MemorySettings settings;
    settings.bench = benchSettings(parser);
    settings.users = integerOption(parser, QStringLiteral("users"), 1, 100'000'000);
    settings.month = parseMonth(parser.value(QStringLiteral("month")));
    settings.days = static_cast<int>(integerOption(parser, QStringLiteral("days"), 1, settings.month.daysInMonth()));
    settings.shards = static_cast<int>(integerOption(parser, QStringLiteral("shards"), 1, 16384));
    settings.daySetDays = static_cast<int>(integerOption(parser, QStringLiteral("day-set-days"), 0, settings.month.daysInMonth()));
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

// Redis 7 on a 64-bit build: the sizes MEMORY USAGE adds up (object.c, dict.h, sds.h).
constexpr int DictEntryBytes = 24;  // key, value and next pointers (MEMORY USAGE counts 24; jemalloc gives 32)
constexpr int RobjBytes = 16;       // the value's object header

/** An sds string's header: sdshdr5 below 32 bytes, sdshdr8 below 256 (sds.c sdsReqType). */
qint64 sdsHeader(qint64 length)
{
    return length < 32 ? 1 : length < 256 ? 3 : 5;
}

/** jemalloc's size class for a request of `bytes` (small classes: 8, 16, then steps of 16 up to
    128, 32 up to 256, 64 up to 512). */
qint64 jemallocSize(qint64 bytes)
{
    if (bytes <= 8)
        return 8;
    const qint64 step = bytes <= 128 ? 16 : bytes <= 256 ? 32 : bytes <= 512 ? 64 : 128;
    return (bytes + step - 1) / step * step;
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

/** Sends commands in pipelines of `batch`; throws on the first error reply. */
class Pipeliner final {
public:
    Pipeliner(RedisClient &redis, int batch) : m_redis(redis), m_batch(batch) { m_commands.reserve(batch); }

    void add(QByteArrayList command)
    {
        m_commands.append(std::move(command));
        if (m_commands.size() >= m_batch)
            flush();
    }

    void flush()
    {
        if (m_commands.isEmpty())
            return;
        for (const RedisValue &reply : m_redis.pipeline(m_commands)) {
            if (reply.isError())
                throw LanternError(QStringLiteral("Redis refused a command: %1").arg(QString::fromUtf8(reply.toBytes())));
        }
        m_sent += m_commands.size();
        m_commands.clear();
    }

    qint64 sent() const { return m_sent; }

private:
    RedisClient &m_redis;
    int m_batch;
    QList<QByteArrayList> m_commands;
    qint64 m_sent = 0;
};

/** Waits until the server has settled: lazy frees done, the idle client buffers shrunk. */
void settle(RedisClient &redis)
{
    QThread::msleep(1500);
    redis.command({QByteArrayLiteral("PING")});
}

int run(const QCoreApplication &app)
{
    const MemorySettings s = parseSettings(app);
    const QByteArray prefix = s.bench.prefix.toUtf8();
    const KeySchema keys(s.bench.prefix, s.shards);
    RedisClient redis(s.bench.redis);
    BenchServer server(redis);
    const KeysRemovedOnExit cleanup(server, prefix);
    server.removeKeys(prefix);
    QTextStream out(stdout);

    // Each user's days: a 31-bit mask with s.days bits among the month's days (bit d-1 = day d).
    const int monthDays = s.month.daysInMonth();
    std::mt19937_64 random(s.bench.seed);
    std::vector<quint32> masks(static_cast<size_t>(s.users));
    std::vector<int> pool(static_cast<size_t>(monthDays));
    for (quint32 &mask : masks) {
        std::iota(pool.begin(), pool.end(), 1);
        for (int i = 0; i < s.days; ++i) {
            const auto j = std::uniform_int_distribution<size_t>(static_cast<size_t>(i), pool.size() - 1)(random);
            std::swap(pool[static_cast<size_t>(i)], pool[j]);
            mask |= 1U << (pool[static_cast<size_t>(i)] - 1);
        }
    }
    const auto uidOf = [](size_t index) { return UidBase + static_cast<qint64>(index); };

    // The bitmaps: each user's SETBITs in day order, as a month of check-ins leaves them (a bitmap
    // grows when a later day needs another byte).
    settle(redis);
    const qint64 keysBefore = redis.command({QByteArrayLiteral("DBSIZE")}).toInteger();
    const qint64 before = dataMemory(redis);
    QElapsedTimer timer;
    timer.start();
    Pipeliner bitmaps(redis, s.batch);
    for (size_t i = 0; i < masks.size(); ++i) {
        const QByteArray key = keys.signBits(uidOf(i), s.month);
        for (quint32 bits = masks[i]; bits != 0; bits &= bits - 1)
            bitmaps.add({QByteArrayLiteral("SETBIT"), key, QByteArray::number(std::countr_zero(bits)), QByteArrayLiteral("1")});
    }
    bitmaps.flush();
    const double writeSeconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    settle(redis);
    const qint64 after = dataMemory(redis);
    const qint64 keysAdded = redis.command({QByteArrayLiteral("DBSIZE")}).toInteger() - keysBefore;
    const double perUser = static_cast<double>(after - before) / static_cast<double>(s.users);
    const double floorBytes = monthDays / 8.0;

    // A sample of the bitmaps: their length and what MEMORY USAGE says one costs (the dictionary
    // entry, the key's string, the value's object and string, as allocated).
    constexpr int Sample = 1000;
    double strlenSum = 0;
    double usageSum = 0;
    double keyAllocSum = 0;
    double keyLengthSum = 0;
    std::uniform_int_distribution<size_t> pick(0, masks.size() - 1);
    for (int i = 0; i < Sample; ++i) {
        const QByteArray key = keys.signBits(uidOf(pick(random)), s.month);
        const std::vector<RedisValue> replies = redis.pipeline({{QByteArrayLiteral("STRLEN"), key},
                                                                {QByteArrayLiteral("MEMORY"), QByteArrayLiteral("USAGE"), key,
                                                                 QByteArrayLiteral("SAMPLES"), QByteArrayLiteral("0")}});
        strlenSum += static_cast<double>(replies.at(0).toInteger());
        usageSum += static_cast<double>(replies.at(1).toInteger());
        keyLengthSum += static_cast<double>(key.size());
        keyAllocSum += static_cast<double>(jemallocSize(sdsHeader(key.size()) + key.size() + 1));
    }
    const double usage = usageSum / Sample;
    const double keyAlloc = keyAllocSum / Sample;
    const double valueAlloc = usage - DictEntryBytes - keyAlloc - RobjBytes;
    const qint64 keysNow = keysBefore + keysAdded;
    const double buckets = 8.0 * static_cast<double>(std::bit_ceil(static_cast<quint64>(keysNow))) / static_cast<double>(keysNow);
    const auto fixed = [](double value, int decimals = 1) { return QString::number(std::abs(value) < 0.05 ? 0.0 : value, 'f', decimals); };

    out << "Redis memory of one month of check-in bitmaps: " << s.users << " users, " << s.days << " of " << monthDays << " days each ("
        << s.month.toString(QStringLiteral("yyyy-MM")) << "), " << s.shards << " check-in shards.\n\n"
        << "- keys: `" << keys.signBits(uidOf(0), s.month) << "` ... (KeySchema::signBits; prefix `" << s.bench.prefix << "`, "
        << s.bench.prefix.size() << " bytes";
    if (s.bench.prefix.size() == 3)
        out << ", as long as the default `lt:`";
    out << "; uids " << UidBase << " + [0, " << s.users << "), 13 digits)\n"
        << "- written: " << bitmaps.sent() << " SETBIT (each user's days in order, as a month of checkin.lua leaves the bitmap), "
        << s.batch << " per pipeline, in " << fixed(writeSeconds) << " s (" << rate(static_cast<double>(bitmaps.sent()) / writeSeconds)
        << " commands/s)\n"
        << "- measured: INFO memory `used_memory` less `mem_clients_normal` (the bench's own buffers), before and after, each after "
           "1.5 s of quiet; STRLEN and `MEMORY USAGE key SAMPLES 0` on "
        << Sample << " bitmaps at random\n\n"
        << "| | bytes |\n|---|---:|\n"
        << "| used_memory before | " << before << " |\n"
        << "| used_memory after | " << after << " |\n"
        << "| added, for " << keysAdded << " keys | " << (after - before) << " |\n"
        << "| **per user-month** | **" << fixed(perUser) << "** |\n"
        << "| one bit per user-day (" << monthDays << " bits) | " << fixed(floorBytes, 3) << " |\n"
        << "| **ratio** | **" << ratioText(perUser, floorBytes) << "** |\n\n"
        << "Where one bitmap's bytes go (Redis " << serverVersion(redis)
        << ", 64-bit, jemalloc; sizes as allocated, means over the sample):\n\n"
        << "| part | bytes |\n|---|---:|\n"
        << "| the check-in bits (STRLEN) | " << fixed(strlenSum / Sample, 2) << " |\n"
        << "| the value's string around them (sds header, NUL, room to grow, allocator rounding) | " << fixed(valueAlloc - strlenSum / Sample) << " |\n"
        << "| the value's object (robj) | " << RobjBytes << " |\n"
        << "| the key's name, " << fixed(keyLengthSum / Sample) << " characters, as an sds string | " << fixed(keyAlloc) << " |\n"
        << "| the main dictionary's entry (dictEntry, " << DictEntryBytes << " bytes in a " << jemallocSize(DictEntryBytes)
        << "-byte allocation) | " << jemallocSize(DictEntryBytes) << " |\n"
        << "| its share of the bucket array (8 bytes x " << std::bit_ceil(static_cast<quint64>(keysNow)) << " buckets / " << keysNow
        << " keys) | " << fixed(buckets) << " |\n"
        << "| not attributed (measured less the parts) | "
        << fixed(perUser - usage - (jemallocSize(DictEntryBytes) - DictEntryBytes) - buckets) << " |\n"
        << "| **per-key overhead: all but the bits** | **" << fixed(perUser - strlenSum / Sample) << "** ("
        << fixed(100.0 * (perUser - strlenSum / Sample) / perUser, 0) << " %) |\n";

    std::vector<SummaryRow> rows{{QStringLiteral("Redis bytes per user-month, check-in bitmaps (%1 users x %2 days)").arg(s.users).arg(s.days),
                                  fixed(perUser), QStringLiteral("one bit per user-day (%1 bits)").arg(monthDays), fixed(floorBytes, 3),
                                  ratioText(perUser, floorBytes)}};

    if (s.daySetDays > 0) {
        // The per-day sets of the uids that signed (checkin.lua: SADD, EXPIRE), for the first days.
        settle(redis);
        const qint64 setsBefore = dataMemory(redis);
        Pipeliner sets(redis, s.batch);
        qint64 members = 0;
        for (int day = 1; day <= s.daySetDays; ++day) {
            const QDate date(s.month.year(), s.month.month(), day);
            for (size_t i = 0; i < masks.size(); ++i) {
                if ((masks[i] & (1U << (day - 1))) == 0)
                    continue;
                const qint64 uid = uidOf(i);
                sets.add({QByteArrayLiteral("SADD"), keys.daySet(keys.shardOf(uid), date), QByteArray::number(uid)});
                ++members;
            }
            for (int shard = 0; shard < s.shards; ++shard)
                sets.add({QByteArrayLiteral("EXPIRE"), keys.daySet(shard, date), QByteArray::number(CheckinRules().daySetTtlDays * 86'400)});
        }
        sets.flush();
        settle(redis);
        const double perMember = static_cast<double>(dataMemory(redis) - setsBefore) / static_cast<double>(std::max<qint64>(members, 1));
        const double setsPerUserMonth = perMember * s.days;
        out << "\nThe per-day uid sets checkin.lua fills as well (SADD into `" << keys.daySet(0, s.month) << "` ..., kept "
            << CheckinRules().daySetTtlDays << " days for reconcile), measured on the first " << s.daySetDays << " days: " << members
            << " members in " << s.daySetDays * s.shards << " sets, **" << fixed(perMember) << " bytes per member** (user-day), so "
            << fixed(setsPerUserMonth) << " bytes per user-month at " << s.days << " days: " << ratioText(setsPerUserMonth, perUser)
            << " times the bitmaps, while they live.\n";
        rows.push_back({QStringLiteral("Redis bytes per user-month, per-day uid sets (%1 days sampled, x %2 days)").arg(s.daySetDays).arg(s.days),
                        fixed(setsPerUserMonth), QStringLiteral("one bit per user-day (%1 bits)").arg(monthDays), fixed(floorBytes, 3),
                        ratioText(setsPerUserMonth, floorBytes)});
    }
    out.flush();
    appendSummaryRows(s.bench.summaryFile, rows);
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-memory"), run);
}
