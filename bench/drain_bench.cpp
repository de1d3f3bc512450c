// lantern-bench-drain: how fast one worker's EnvelopeDrain moves queued payout tasks into MariaDB
// (and pays them through the simulated provider answering at once), next to plain 500-row
// multi-row INSERTs of the same rows into the same tables from the same process, and where the
// drain's time goes. It measures; it asserts nothing.
#include "benchcampaign.h"
#include "benchserver.h"
#include "benchsettings.h"
#include "clientload.h"
#include "rounds.h"
#include "servercpu.h"
#include "sqlbaseline.h"
#include "summaryrows.h"
#include "uidsample.h"

#include "core/errors.h"
#include "envelope/campaignservice.h"
#include "envelope/campaignverifier.h"
#include "envelope/envelopedrain.h"
#include "envelope/payouttask.h"
#include "payout/simulatedpayoutgateway.h"
#include "queue/backuptally.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/dburl.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTextStream>

#include <algorithm>
#include <memory>
#include <numeric>
#include <utility>

#include <sys/resource.h>

using namespace lantern;
using namespace lantern::bench;

namespace {

const QString WorkerId = QStringLiteral("bench-drain");
constexpr qint64 GrabKeyspace = 1'000'000'000;

struct DrainSettings {
    BenchSettings bench;
    DbUrl db;
    qint64 grabs = 100'000;
    int batch = 500;
    int inFlight = DefaultPayoutsInFlight;
    int rowsPerStatement = 500;
    bool tally = false;  // count the backup lists as a worker's shift does (BackupTally, issue 26)
};

DrainSettings parseSettings(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "Payout tasks per second through one EnvelopeDrain worker into MariaDB/MySQL, next to plain multi-row "
            "INSERTs of the same rows into the same tables. It launches a campaign, grabs every envelope through "
            "GrabService, then drains the same saved tasks in every round. Point it at a private database: it "
            "refuses to start unless `grab` and `payout` are empty, and empties them (TRUNCATE) before each phase."));
    addBenchOptions(parser);
    parser.addOptions({
            {QStringLiteral("db"), QStringLiteral("MySQL / MariaDB URL (mysql://user:password@host:port/dbname)."), QStringLiteral("url")},
            {QStringLiteral("grabs"), QStringLiteral("Grabs queued, then drained in each phase."), QStringLiteral("n"), QStringLiteral("100000")},
            {QStringLiteral("batch"), QStringLiteral("Tasks the worker claims per pass (lanternd work --batch)."), QStringLiteral("n"),
             QStringLiteral("500")},
            {QStringLiteral("in-flight"), QStringLiteral("Payouts in flight at once (lanternd work --in-flight)."), QStringLiteral("n"),
             QString::number(DefaultPayoutsInFlight)},
            {QStringLiteral("rows-per-insert"), QStringLiteral("Rows per statement of the raw INSERT baseline."), QStringLiteral("n"),
             QStringLiteral("500")},
            {QStringLiteral("tally"), QStringLiteral("Count what the drain holds in its backup list, as lanternd work's shift does (BackupTally).")},
    });
    processArguments(parser, app);
    DrainSettings settings;
    settings.bench = benchSettings(parser);
    if (parser.value(QStringLiteral("db")).isEmpty())
        throw InvalidInputError(QStringLiteral("--db is required"));
    settings.db = DbUrl::parse(parser.value(QStringLiteral("db")));
    if (settings.db.dialect != DbUrl::Dialect::MySql)
        throw InvalidInputError(QStringLiteral("--db must be a mysql:// URL: the bench measures the MariaDB/MySQL path"));
    settings.grabs = integerOption(parser, QStringLiteral("grabs"), 1, MaxEnvelopeCount);
    settings.batch = static_cast<int>(integerOption(parser, QStringLiteral("batch"), 2, 10'000));
    settings.inFlight = static_cast<int>(integerOption(parser, QStringLiteral("in-flight"), 1, 1024));
    settings.rowsPerStatement = static_cast<int>(integerOption(parser, QStringLiteral("rows-per-insert"), 1, 10'000));
    settings.tally = parser.isSet(QStringLiteral("tally"));
    return settings;
}

/** Empties the tables the phases fill and removes the bench's campaign from SQL, however the run
    ends. (The bench checked at the start that `grab` and `payout` held nothing else.) */
class SqlRowsRemovedOnExit final {
public:
    SqlRowsRemovedOnExit(SqlConnection &sql, qint64 campaignId) : m_sql(sql), m_campaignId(campaignId) {}
    ~SqlRowsRemovedOnExit()
    {
        try {
            execText(m_sql, QStringLiteral("TRUNCATE TABLE grab"));
            execText(m_sql, QStringLiteral("TRUNCATE TABLE payout"));
            m_sql.exec(QStringLiteral("DELETE FROM ledger_tally WHERE campaign_id = ?"), {m_campaignId});
            m_sql.exec(QStringLiteral("DELETE FROM envelope WHERE campaign_id = ?"), {m_campaignId});
            m_sql.exec(QStringLiteral("DELETE FROM campaign WHERE id = ?"), {m_campaignId});
        } catch (const LanternError &) {
            // Best effort: the error that ended the run is the one to report.
        }
    }
    Q_DISABLE_COPY_MOVE(SqlRowsRemovedOnExit)

private:
    SqlConnection &m_sql;
    qint64 m_campaignId;
};

qint64 countRows(SqlConnection &sql, const QString &table)
{
    QSqlQuery query = execText(sql, QStringLiteral("SELECT COUNT(*) FROM ") + table);
    return query.next() ? query.value(0).toLongLong() : 0;
}

/** The saved queue's tasks, oldest first (the order a worker claims them). */
QList<PayoutTask> readTasks(RedisClient &redis, const QByteArray &key)
{
    QList<PayoutTask> tasks;
    constexpr qint64 Page = 10'000;
    for (qint64 start = 0;; start += Page) {
        const RedisValue page = redis.command({QByteArrayLiteral("LRANGE"), key, QByteArray::number(start), QByteArray::number(start + Page - 1)});
        for (const RedisValue &entry : page.elements) {
            const auto task = PayoutTask::fromJson(entry.toBytes());
            if (!task)
                throw LanternError(QStringLiteral("grab.lua queued a task the drain cannot read: %1").arg(QString::fromUtf8(entry.toBytes())));
            tasks << *task;
        }
        if (static_cast<qint64>(page.elements.size()) < Page)
            break;
    }
    std::reverse(tasks.begin(), tasks.end());
    return tasks;
}

QString perBatch(double value, double rows, int batch)
{
    return QString::number(value / rows * batch, 'f', 1);
}

/** CPU seconds (user + system) of this process, every thread. */
double ownCpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval &t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double redisCpuSeconds(RedisClient &redis)
{
    const QMap<QString, double> cpu = serverCpu(redis);
    return std::accumulate(cpu.cbegin(), cpu.cend(), 0.0);
}

/** Milliseconds of CPU per batch of rows, "–" when unknown (negative). */
QString cpuPerBatch(double seconds, double rows, int batch)
{
    return seconds < 0 ? QStringLiteral("–") : QString::number(1e3 * seconds / rows * batch, 'f', 2);
}

/** A drain row's time split, as "2.1 s (12 %, 4.2 ms each)". */
QString share(double seconds, double total, double count)
{
    return QStringLiteral("%1 s (%2 %, %3 ms each)")
            .arg(QString::number(seconds, 'f', 2), QString::number(100 * seconds / total, 'f', 0),
                 QString::number(count > 0 ? 1e3 * seconds / count : 0, 'f', 2));
}

/** One run: the saved tasks, the worker's connections, and the phases that start from them. */
class DrainBench final {
public:
    explicit DrainBench(const DrainSettings &settings);
    Q_DISABLE_COPY_MOVE(DrainBench)

    void run();

private:
    void printSetup(double grabsPerSecond);
    /** Every phase starts from the same saved queue and empty tables. */
    void reset();
    /** Resets, runs `phase`, checks every row landed, prints the phase's row; returns rows/s. */
    /** Runs `phase` from a reset, prints its row; its rate in rows/s. `writesGrabs`: the phase
        leaves every grab row (checked), else none. */
    double measure(const QString &label, const std::function<void()> &phase, bool writesGrabs = true);
    /** drainAll(); keeps the time split for the second table. */
    void drain(int round);
    /** `lanternd verify`'s checks of the campaign after a drain, the provider's ledger included
        (outside the timed phase); throws on a violation. */
    void verifyDrained();

    const DrainSettings &m_settings;
    QTextStream m_out{stdout};
    const KeySchema m_keys;
    RedisClient m_redis;
    BenchServer m_server{m_redis};
    const KeysRemovedOnExit m_keysCleanup{m_server, m_keys.prefix()};
    std::unique_ptr<SqlConnection> m_sql;
    qint64 m_campaignId = 0;
    std::unique_ptr<SqlRowsRemovedOnExit> m_sqlCleanup;
    QByteArray m_queue;
    QByteArray m_saved;
    QList<PayoutTask> m_tasks;

    const QTemporaryDir m_errorDir;  // the drain's error log, should a task fail
    RedisClient m_workerRedis;
    SimulatedPayoutGateway m_provider;
    bool m_drained = false;  // the phase just measured was a drain: verify it
    int m_verified = 0;      // drain phases verified clean
    QStringList m_splits;
    std::vector<double> m_batchStepRates;
};

DrainBench::DrainBench(const DrainSettings &settings)
    : m_settings(settings),
      m_keys(settings.bench.prefix),
      m_redis(settings.bench.redis),
      m_workerRedis(settings.bench.redis),
      m_provider(m_workerRedis, m_keys.prefix(), SimulationKnobs{}, settings.bench.seed)
{
    m_server.removeKeys(m_keys.prefix());
    m_sql = openMigrated(settings.db);
    if (countRows(*m_sql, QStringLiteral("grab")) + countRows(*m_sql, QStringLiteral("payout")) > 0)
        throw InvalidInputError(QStringLiteral("%1 already holds grab or payout rows; the bench empties those tables, so give it a private "
                                               "database (scripts/bench starts one)")
                                        .arg(settings.db.redacted()));
}

void DrainBench::run()
{
    // The tasks: a campaign launched and grabbed empty through the library, as a storm leaves it.
    const qint64 grabs = m_settings.grabs;
    CampaignService campaigns(m_redis, *m_sql, m_keys);
    m_campaignId = launchBenchCampaign(campaigns, QStringLiteral("lantern-bench-drain"), grabs, m_settings.bench.seed).id;
    m_sqlCleanup = std::make_unique<SqlRowsRemovedOnExit>(*m_sql, m_campaignId);
    const PhaseFigures grabbing = runClientLoad(m_settings.bench.redis, m_settings.bench.clients,
                                                sampleUids(grabs, GrabKeyspace, m_settings.bench.seed), grabClients(m_keys, m_campaignId));
    m_queue = m_keys.campaignTasks(m_campaignId);
    m_saved = m_queue + ":saved";  // same hash tag
    if (m_server.listLength(m_queue) != grabs)
        throw LanternError(QStringLiteral("%1 grabs queued %2 tasks").arg(grabs).arg(m_server.listLength(m_queue)));
    m_server.copyKey(m_queue, m_saved);
    m_tasks = readTasks(m_redis, m_saved);
    printSetup(grabbing.perSecond);

    const int rows = m_settings.rowsPerStatement;
    const std::vector<double> medians = runAlternatingRounds(
            m_settings.bench.rounds,
            {[&](int round) { return measure(QStringLiteral("%1: drain (EnvelopeDrain)").arg(round), [&] { drain(round); }); },
             [&](int round) {
                 return measure(QStringLiteral("%1: raw INSERT grab, %2 rows/statement").arg(round).arg(rows),
                                [&] { insertRawRows(*m_sql, m_tasks, rows, false); });
             },
             [&](int round) {
                 return measure(QStringLiteral("%1: raw INSERT grab + payout, %2 rows/statement").arg(round).arg(rows),
                                [&] { insertRawRows(*m_sql, m_tasks, rows, true); });
             },
             [&](int round) {
                 return measure(QStringLiteral("%1: the drain's launched check alone, %2 rows/statement").arg(round).arg(rows), [&] {
                     if (selectLaunchedRows(*m_sql, m_tasks, rows) != m_tasks.size())
                         throw LanternError(QStringLiteral("the launched check did not find every envelope"));
                 }, false);
             }});

    m_out << "\nWhere the drain's time goes (EnvelopeDrain's own clocks: the SQL transactions, its queue round trips, and the "
             "event loop while payouts were in flight, which includes the provider's Redis pipelines; the rest is parsing and "
             "bookkeeping):\n\n"
          << "| round | drain s | SQL transactions | queue round trips | payouts in flight (event loop) | the rest | batch steps alone, "
             "rows/s |\n|---:|---:|---:|---:|---:|---:|---:|\n"
          << m_splits.join(QLatin1Char('\n')) << '\n';
    m_out << "\n`lanternd verify`'s checks (CampaignVerifier, every paid payout against the simulated provider's ledger) after each "
             "drain phase: "
          << m_verified << " of " << m_settings.bench.rounds << " ok.\n";
    const double batchSteps = median(m_batchStepRates);
    printSummary(m_out, m_settings.bench.rounds, QStringLiteral("rows/s"),
                 {{QStringLiteral("drain (EnvelopeDrain, simulated provider answering at once)"), medians[0]},
                  {QStringLiteral("raw INSERT grab, %1 rows/statement").arg(rows), medians[1]},
                  {QStringLiteral("raw INSERT grab + payout, %1 rows/statement").arg(rows), medians[2]},
                  {QStringLiteral("drain's batch steps alone (SQL transaction + queue round trip; estimate)"), batchSteps},
                  {QStringLiteral("the drain's launched check alone (one SELECT ... LOCK IN SHARE MODE per %1 rows)").arg(rows), medians[3]}},
                 {{QStringLiteral("ratio drain / raw INSERT grab + payout"), medians[0], medians[2]},
                  {QStringLiteral("the launched check's time / raw INSERT grab + payout's time"), medians[2], medians[3]},
                  {QStringLiteral("ratio drain / raw INSERT grab"), medians[0], medians[1]},
                  {QStringLiteral("ratio drain's batch steps alone / raw INSERT grab + payout"), batchSteps, medians[2]}});
    appendSummaryRows(m_settings.bench.summaryFile,
                      {{QStringLiteral("rows/s drained into MariaDB and paid (EnvelopeDrain, %1 in flight, simulated provider answering at once)")
                                .arg(m_settings.inFlight),
                        rate(medians[0]), QStringLiteral("raw INSERT grab + payout, %1 rows/statement").arg(rows), rate(medians[2]),
                        ratioText(medians[0], medians[2])},
                       {QStringLiteral("rows/s drained into MariaDB and paid (the same run)"), rate(medians[0]),
                        QStringLiteral("raw INSERT grab, %1 rows/statement").arg(rows), rate(medians[1]), ratioText(medians[0], medians[1])}});
}

void DrainBench::printSetup(double grabsPerSecond)
{
    const DrainSettings &s = m_settings;
    m_out << "Worker drain into MariaDB vs raw multi-row INSERT: " << s.grabs << " grabs per phase, " << s.bench.rounds
          << (s.bench.rounds == 1 ? " round" : " rounds") << ".\n\n"
          << "- tasks: campaign " << m_campaignId << " (" << s.grabs << " envelopes) created and launched through CampaignService on `"
          << s.db.redacted() << "`, then grabbed empty by " << s.bench.clients << " GrabService clients (" << rate(grabsPerSecond)
          << " grabs/s): " << s.grabs << " payout tasks as grab.lua queues them, saved once and put back before each phase\n"
          << "- before each phase: `grab` and `payout` truncated, the worker's backup list, the dead letters and the simulated "
             "provider's ledger removed\n"
          << "- drain: one EnvelopeDrain worker (own RedisClient, the bench's SqlConnection), drainAll() claiming " << s.batch
          << " tasks per batch, " << s.inFlight
          << " payouts in flight, each paid through SimulatedPayoutGateway (no failures, no delay: the calls started in one turn of the "
             "event loop share one pipeline; its ledger in the same Redis, on the worker's connection)\n"
          << "- raw INSERT: the same rows, `INSERT INTO grab (campaign_id, seq, uid, amount_cents, grabbed_at_ms) VALUES (...),...` "
             "with "
          << s.rowsPerStatement << " rows per statement, values in the SQL text, QSqlQuery::exec on the same connection, autocommit; "
          << "*+ payout* also writes each grab's `payout` row (as pending), as the drain writes one per grab (with its result)\n\n"
          << "| round: phase | rows/s | seconds | SQL requests / " << s.batch << " rows | commits / " << s.batch
          << " rows | Redis round trips / " << s.batch << " rows | CPU ms / " << s.batch << " rows: MariaDB | Redis | bench |\n"
          << "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    m_out.flush();
}

void DrainBench::reset()
{
    execText(*m_sql, QStringLiteral("TRUNCATE TABLE grab"));
    execText(*m_sql, QStringLiteral("TRUNCATE TABLE payout"));
    // The running tally goes with the rows (TRUNCATE runs no trigger): verify compares them.
    m_sql->exec(QStringLiteral("DELETE FROM ledger_tally WHERE campaign_id = ?"), {m_campaignId});
    m_redis.command({QByteArrayLiteral("DEL"), m_keys.campaignBackup(m_campaignId, WorkerId), m_keys.campaignDeadLetter(m_campaignId),
                     m_provider.ledgerKey(), m_provider.callsKey()});
    m_server.copyKey(m_saved, m_queue);
}

double DrainBench::measure(const QString &label, const std::function<void()> &phase, bool writesGrabs)
{
    reset();
    const ServerCounters before = ServerCounters::read(*m_sql);
    const quint64 roundTrips = m_workerRedis.roundTrips();
    const double redisCpu = redisCpuSeconds(m_redis);
    const double ownCpu = ownCpuSeconds();
    QElapsedTimer timer;
    timer.start();
    phase();
    const double seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    const double ownSpent = ownCpuSeconds() - ownCpu;
    const double redisSpent = redisCpuSeconds(m_redis) - redisCpu;
    const ServerCounters done = ServerCounters::read(*m_sql) - before;
    const quint64 trips = m_workerRedis.roundTrips() - roundTrips;
    if (std::exchange(m_drained, false))
        verifyDrained();
    const qint64 persisted = countRows(*m_sql, QStringLiteral("grab"));
    if (persisted != (writesGrabs ? m_settings.grabs : 0))
        throw LanternError(QStringLiteral("%1 left %2 grab rows, expected %3").arg(label).arg(persisted).arg(writesGrabs ? m_settings.grabs : 0));
    const auto rows = static_cast<double>(m_settings.grabs);
    // Minus two: the first reading's SELECT @@pid_file and the second's SHOW GLOBAL STATUS (it counts itself).
    const int batch = m_settings.batch;
    m_out << "| " << label << " | " << rate(rows / seconds) << " | " << QString::number(seconds, 'f', 2) << " | "
          << perBatch(static_cast<double>(done.statements - 2), rows, batch) << " | " << perBatch(static_cast<double>(done.commits), rows, batch)
          << " | " << perBatch(static_cast<double>(trips), rows, batch) << " | " << cpuPerBatch(done.cpuSeconds, rows, batch) << " | "
          << cpuPerBatch(redisSpent, rows, batch) << " | " << cpuPerBatch(ownSpent, rows, batch) << " |\n";
    m_out.flush();
    return rows / seconds;
}

void DrainBench::drain(int round)
{
    EnvelopeDrainOptions options;
    options.batchSize = m_settings.batch;
    options.inFlight = m_settings.inFlight;
    options.errorLogPath = m_errorDir.filePath(QStringLiteral("errors.log"));
    BackupTally tally;
    if (m_settings.tally)
        options.tally = &tally;
    QElapsedTimer timer;
    timer.start();
    EnvelopeDrain drain(m_workerRedis, *m_sql, m_keys, WorkerId, m_provider, options);
    const EnvelopeDrainStats stats = drain.drainAll();
    const double total = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    m_drained = true;
    if (stats.persisted != m_settings.grabs || stats.paid != m_settings.grabs)
        throw LanternError(QStringLiteral("the drain persisted %1 and paid %2; expected %3 each").arg(stats.persisted).arg(stats.paid).arg(m_settings.grabs));
    const EnvelopeDrainTimings &t = drain.timings();
    // Round trips made while a transaction ran (the next batch claimed meanwhile) are inside its time.
    const double redisAlone = t.redisSeconds - t.overlappedSeconds;
    const double rest = total - t.sqlSeconds - redisAlone - t.waitSeconds;
    const double batchSeconds = t.sqlSeconds + redisAlone;
    m_batchStepRates.push_back(static_cast<double>(m_settings.grabs) / batchSeconds);
    m_splits << QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 |")
                        .arg(round)
                        .arg(QString::number(total, 'f', 2), share(t.sqlSeconds, total, static_cast<double>(t.batches)),
                             share(t.redisSeconds, total, static_cast<double>(t.redisTrips))
                                     + QStringLiteral(", %1 s of it under the transactions").arg(QString::number(t.overlappedSeconds, 'f', 2)),
                             QStringLiteral("%1 s (%2 %)").arg(QString::number(t.waitSeconds, 'f', 2), QString::number(100 * t.waitSeconds / total, 'f', 0)),
                             QStringLiteral("%1 s (%2 %)").arg(QString::number(rest, 'f', 2), QString::number(100 * rest / total, 'f', 0)),
                             rate(static_cast<double>(m_settings.grabs) / batchSeconds));
}

void DrainBench::verifyDrained()
{
    CampaignVerifier verifier(m_redis, *m_sql, m_keys, [this](const QString &key) { return m_provider.paidAmount(key); });
    const QList<Violation> violations = verifier.verify(m_campaignId);
    if (!violations.isEmpty())
        throw LanternError(QStringLiteral("verify after the drain: invariant %1: %2").arg(violations.first().invariant).arg(violations.first().detail));
    ++m_verified;
}

int run(const QCoreApplication &app)
{
    const DrainSettings settings = parseSettings(app);
    DrainBench(settings).run();
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-drain"), run);
}
