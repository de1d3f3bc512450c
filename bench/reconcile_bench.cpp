// lantern-bench-reconcile: the reconcile of one day of N users (every one signed that day and
// persisted, so nothing is missing: the daily run), Reconciler streaming the blocks next to what
// the old reconcile did on the old layout in the same run (SSCAN of the shards' day sets, the
// day's uids from SQL in one set). Time and the process's peak memory growth of each, and the
// round size. It measures; it asserts nothing.
#include "benchserver.h"
#include "benchsettings.h"
#include "checkinseed.h"
#include "rounds.h"
#include "summaryrows.h"

#include "checkin/checkinentry.h"
#include "checkin/checkinstore.h"
#include "checkin/monthscan.h"
#include "checkin/reconciler.h"
#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "settings/config.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QTextStream>

#include <malloc.h>
#include <random>

using namespace lantern;
using namespace lantern::bench;

namespace {

/** This process's resident memory, in KiB: VmRSS, or VmHWM (the peak since the last reset). */
qint64 statusKib(const QByteArray &field)
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith(QByteArray(field + ':')))
            return line.mid(field.size() + 1).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

/** Gives the heap's free memory back (so the phase before does not lend this one its pages),
    then resets VmHWM to the current RSS (Linux: clear_refs 5). */
void resetPeak()
{
    malloc_trim(0);
    QFile clear(QStringLiteral("/proc/self/clear_refs"));
    if (clear.open(QIODevice::WriteOnly))
        clear.write("5");
}

struct Measured {
    double seconds = 0;
    qint64 peakKib = 0;  // peak RSS growth over the phase
    qint64 redisCount = 0;
    qint64 missing = 0;
};

Measured measure(const std::function<std::pair<qint64, qint64>()> &run)
{
    resetPeak();
    const qint64 before = statusKib("VmRSS");
    QElapsedTimer timer;
    timer.start();
    const auto [redisCount, missing] = run();
    Measured result;
    result.seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    result.peakKib = statusKib("VmHWM") - before;
    result.redisCount = redisCount;
    result.missing = missing;
    return result;
}

/** The old reconcile's comparison, as it was: every uid of the shards' day sets (SSCAN), the
    day's uids from SQL as one set, those of the first not in the second. */
std::pair<qint64, qint64> oldReconcile(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, QDate day)
{
    QList<qint64> uids;
    for (int shard = 0; shard < keys.shards(); ++shard) {
        QByteArray cursor = "0";
        do {
            const RedisValue reply = redis.command({QByteArrayLiteral("SSCAN"), keys.daySet(shard, day), cursor, QByteArrayLiteral("COUNT"),
                                                    QByteArrayLiteral("1000")});
            cursor = reply.elements.at(0).toBytes();
            for (const RedisValue &member : reply.elements.at(1).elements)
                uids << member.toInteger();
        } while (cursor != "0");
    }
    const QSet<qint64> inSql = CheckinStore(sql).uidsOn(day);
    qint64 missing = 0;
    for (const qint64 uid : std::as_const(uids))
        missing += !inSql.contains(uid);
    return {uids.size(), missing};
}

int run(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "The reconcile of one day of N users: Reconciler over the blocks next to the old SSCAN-and-set reconcile, same run. "
            "Point it at a private Redis and MariaDB: it removes every key under --prefix and the day's checkin_log rows."));
    addBenchOptions(parser);
    parser.addOptions({
            {QStringLiteral("db"), QStringLiteral("MySQL / MariaDB URL."), QStringLiteral("url")},
            {QStringLiteral("users"), QStringLiteral("Dense users 1 .. n, all signed on --date."), QStringLiteral("n"), QStringLiteral("1000000")},
            {QStringLiteral("date"), QStringLiteral("The day."), QStringLiteral("yyyy-mm-dd"), QStringLiteral("2024-03-15")},
            {QStringLiteral("shards"), QStringLiteral("Check-in shards."), QStringLiteral("n"), QStringLiteral("16")},
    });
    processArguments(parser, app);
    const BenchSettings bench = benchSettings(parser);
    if (parser.value(QStringLiteral("db")).isEmpty())
        throw InvalidInputError(QStringLiteral("--db is required"));
    const DbUrl db = DbUrl::parse(parser.value(QStringLiteral("db")));
    const qint64 users = integerOption(parser, QStringLiteral("users"), 1, 100'000'000);
    const QDate day = parseDate(parser.value(QStringLiteral("date")), QStringLiteral("--date"));
    const QDate month(day.year(), day.month(), 1);
    const int shards = static_cast<int>(integerOption(parser, QStringLiteral("shards"), 1, 16384));
    const KeySchema keys(bench.prefix, shards);
    const QByteArray prefix = bench.prefix.toUtf8();

    RedisClient redis(bench.redis);
    BenchServer server(redis);
    const KeysRemovedOnExit cleanup(server, prefix);
    server.removeKeys(prefix);
    const std::unique_ptr<SqlConnection> sql = openMigrated(db);
    sql->exec(QStringLiteral("DELETE FROM checkin_log WHERE day = ?"), {day.toString(Qt::ISODate)});
    QTextStream out(stdout);

    // Every user signed `day` and a few other days before it; 1 % of them by a make-up.
    QElapsedTimer seeding;
    seeding.start();
    std::mt19937_64 random(bench.seed);
    std::vector<qint64> uids(static_cast<size_t>(users));
    std::vector<UserMonth> months(static_cast<size_t>(users));
    for (size_t i = 0; i < uids.size(); ++i) {
        uids[i] = qint64(i) + 1;
        months[i].days = (quint32(random()) & ((1u << (day.day() - 1)) - 1)) | (1u << (day.day() - 1));
        if (random() % 100 == 0)
            months[i].makeups = 1u << (day.day() - 1);
    }
    seedBlocks(redis, keys, month, uids, months, 1000);
    {
        Pipeliner sets(redis, 1000);  // the old layout's day sets, for the old reconcile
        for (const qint64 uid : uids)
            sets.add({QByteArrayLiteral("SADD"), keys.daySet(keys.shardOf(uid), day), QByteArray::number(uid)});
        sets.flush();
    }
    CheckinStore store(*sql);
    constexpr size_t RowsPerTransaction = 10'000;
    for (size_t start = 0; start < uids.size(); start += RowsPerTransaction) {
        QList<CheckinEntry> entries;
        for (size_t i = start; i < std::min(uids.size(), start + RowsPerTransaction); ++i) {
            CheckinEntry entry;
            entry.uid = uids[i];
            entry.date = day;
            entry.kind = months[i].makeups != 0 ? QStringLiteral("makeup") : QStringLiteral("normal");
            entry.operatorName = months[i].makeups != 0 ? QStringLiteral("bench") : QString();
            entry.reason = months[i].makeups != 0 ? QStringLiteral("bench") : QString();
            entry.atMs = 1'710'000'000'000;
            entries << entry;
        }
        store.persist(entries);
    }
    const double seedSeconds = static_cast<double>(seeding.nsecsElapsed()) / 1e9;

    out << "- " << users << " dense users (uids 1 .. " << users << "), every one signed on " << day.toString(Qt::ISODate) << " and persisted ("
        << "checkin_log in MariaDB `" << db.redacted() << "`), " << shards << " check-in shards; seeded in " << QString::number(seedSeconds, 'f', 1)
        << " s (blocks, the old day sets, the SQL rows)\n"
        << "- blocks: `Reconciler::reconcile`, rounds of " << MonthScan::ChunkUsers << " words of every shard (one GETRANGE pipeline, "
        << MonthScan::ChunkUsers * 4 * shards / 1024 << " KiB) and one SQL range query each\n"
        << "- old: SSCAN COUNT 1000 of the " << shards << " day sets into one list, `SELECT uid FROM checkin_log WHERE day = ?` into one "
        << "set, compared (what the old `Reconciler` did before back-filling)\n"
        << "- memory: growth of this process's peak resident set (VmHWM, reset before each phase, after malloc_trim) over its resident set before it\n"
        << "- " << bench.rounds << " rounds, alternating which goes first; medians\n\n"
        << "| round | reconcile | seconds | users/s | peak memory growth KiB | redis_count | missing |\n|---:|---|---:|---:|---:|---:|---:|\n";
    out.flush();

    const CheckinRules rules;
    std::vector<qint64> peaks(2, 0);
    const auto phase = [&](const QString &name, int which, const std::function<std::pair<qint64, qint64>()> &work) -> RoundPhase {
        return [&, name, which, work](int round) {
            const Measured m = measure(work);
            peaks[size_t(which)] = std::max(peaks[size_t(which)], m.peakKib);
            out << "| " << round << " | " << name << " | " << QString::number(m.seconds, 'f', 2) << " | " << rate(double(m.redisCount) / m.seconds)
                << " | " << m.peakKib << " | " << m.redisCount << " | " << m.missing << " |\n";
            out.flush();
            return double(m.redisCount) / m.seconds;
        };
    };
    const QString blocksName = QStringLiteral("blocks (Reconciler)");
    const QString oldName = QStringLiteral("old (day sets + one SQL set)");
    const std::vector<double> medians = runAlternatingRounds(
            bench.rounds, {phase(blocksName, 0,
                                 [&] {
                                     const ReconcileReport report = Reconciler(redis, *sql, keys, rules).reconcile(day, 1'710'000'000'000);
                                     return std::pair<qint64, qint64>{report.redisCount, report.missing};
                                 }),
                           phase(oldName, 1, [&] { return oldReconcile(redis, *sql, keys, day); })});
    out << '\n';
    printSummary(out, bench.rounds, QStringLiteral("users/s"), {{blocksName, medians[0]}, {oldName, medians[1]}},
                 {{QStringLiteral("blocks / old"), medians[0], medians[1]}});
    out << "\nPeak memory growth, largest of the rounds: blocks " << peaks[0] << " KiB, old " << peaks[1] << " KiB.\n";
    out.flush();
    appendSummaryRows(bench.summaryFile,
                      {{QStringLiteral("reconcile of one day, %1 users, users/s (blocks, streamed)").arg(users), rate(medians[0]),
                        QStringLiteral("the old SSCAN + SQL set reconcile, same run"), rate(medians[1]), ratioText(medians[0], medians[1])},
                       {QStringLiteral("reconcile of one day, %1 users, peak memory growth KiB (blocks)").arg(users), QString::number(peaks[0]),
                        QStringLiteral("the old reconcile, same run"), QString::number(peaks[1]),
                        ratioText(double(peaks[0]), double(std::max<qint64>(peaks[1], 1)))}});
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-reconcile"), run);
}
