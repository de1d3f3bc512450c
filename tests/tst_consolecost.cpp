// What a console left open costs Redis (issue 26, point 3), on a real Redis and SQLite: the
// Queues overview and the Recovery view count only the dead workers' backup lists (the live ones
// say their depth with their heartbeat, from what their drains moved: BackupTally; Recovery reads
// of the live ones only that they beat); the ledger
// check counts backup lists only where they decide whether a campaign is drained, and then
// exactly, whatever a worker said; the worker set is read in bounded pages.
#include "checkin/checkinservice.h"
#include "checkin/keptmonthstats.h"
#include "console/checkinstats/monthstatsservice.h"
#include "console/recovery/recoveryservice.h"
#include "envelope/campaignfigures.h"
#include "envelope/campaignservice.h"
#include "envelope/grabservice.h"
#include "operations/queueoverview.h"
#include "operations/workerheartbeat.h"
#include "queue/backuptally.h"
#include "queue/queuepipeline.h"
#include "queue/reliablequeue.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "redis/setscan.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QTest>

namespace tst_consolecost {

using namespace lantern;

namespace {
constexpr qint64 Now = 1795000000000;
constexpr int Shards = 4;

/** One launched campaign of 100 envelopes on a fresh prefix and SQLite file, and its workers. */
struct Company {
    explicit Company(const RedisUrl &url) : redis(url), sql(reset(test::sqliteUrl())), keys(test::uniquePrefix(), Shards)
    {
        CampaignDraft draft;
        draft.name = QStringLiteral("live");
        draft.totalCents = 10000;
        draft.count = 100;
        draft.seed = 3;
        CampaignService service(redis, sql, keys);
        id = service.create(draft, Now).id;
        service.launch(id);
    }
    static DbUrl reset(const DbUrl &url)
    {
        test::resetTables(url);
        return url;
    }
    QString worker(int n) const { return QStringLiteral("w-%1").arg(n, 4, 10, QLatin1Char('0')); }
    /** A live worker that says (or does not say) what it holds. */
    void live(const QString &worker, std::optional<qint64> held)
    {
        WorkerPayoutFigures said;
        said.held = held;
        WorkerHeartbeat(keys, worker, 600).beat(redis, Now, said);
    }
    /** A worker that beat once, claimed and died: known, no heartbeat. */
    void dead(const QString &worker) { redis.command({"SADD", keys.workerSet(), worker.toUtf8()}); }
    /** A grab's payout task, moved from the queue into `worker`'s backup list (its claim). */
    void holds(const QString &worker, qint64 uid)
    {
        QCOMPARE(GrabService(redis, keys).grab(id, uid, Now).status, QStringLiteral("ok"));
        redis.command({"LMOVE", keys.campaignTasks(pool()), keys.campaignBackup(pool(), worker), "RIGHT", "LEFT"});
    }
    QByteArray pool() const { return QByteArray::number(id); }
    Config config() const
    {
        Config config;
        config.redis = redis.url();
        config.db = sql.url();
        config.keyPrefix = QString::fromUtf8(keys.prefix());
        config.shards = Shards;
        return config;
    }

    RedisClient redis;
    SqlConnection sql;
    const KeySchema keys;
    qint64 id = 0;
};
} // namespace

class TestConsoleCost : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_url = test::redisUrl(); }
    void overviewCountsOnlyWhatNobodySays();
    void recoveryReadsOnlyTheLiveWorkersBeats();
    void tallyFollowsThePipeline();
    void drainedStaysExactWhateverAWorkerSaid();
    void backupListsNotCountedWhenTasksAreQueued();
    void recoveryWaitsForALiveWorkersTask();
    void workerSetReadInPages();
    void statisticsReadTheKeptFigures();

private:
    RedisUrl m_url;
};

void TestConsoleCost::overviewCountsOnlyWhatNobodySays()
{
    Company c(m_url);
    constexpr int Workers = 150;
    constexpr int Dead = 10;
    for (int n = 0; n < Workers - Dead; ++n)
        c.live(c.worker(n), n == 0 ? std::nullopt : std::optional<qint64>(7));  // w-0000 does not say
    for (int n = Workers - Dead; n < Workers; ++n) {
        c.dead(c.worker(n));
        c.holds(c.worker(n), n);
    }
    c.holds(c.worker(0), 1);
    c.holds(c.worker(0), 2);
    c.holds(c.worker(1), 3);  // said 7 at its last beat: the figure shown is what it said

    const quint64 before = c.redis.commandsSent();
    const QueueOverview overview = QueueOverview::read(c.redis, c.keys, Now);
    const quint64 sent = c.redis.commandsSent() - before;
    QCOMPARE(overview.workers.size(), Workers);
    const qsizetype lists = Shards + 1;
    // Two commands per worker, the queues' figures, the pools and the set's pages; one LLEN per
    // list of the 11 workers that do not say (the dead and w-0000), none for the 139 others.
    const quint64 bound = 2 * Workers + 3 * Shards + 6 + 11 * lists + 10;
    QVERIFY2(sent <= bound, qPrintable(QStringLiteral("%1 commands, bound %2").arg(sent).arg(bound)));

    const WorkerStatus &silent = overview.workers[0];
    QVERIFY(silent.alive && silent.depthCounted);
    QCOMPARE(silent.backupDepth, 2);
    const WorkerStatus &saying = overview.workers[1];
    QVERIFY(saying.alive && !saying.depthCounted);
    QCOMPARE(saying.backupDepth, 7);
    QVERIFY(saying.held.isEmpty());
    const WorkerStatus &gone = overview.workers[Workers - 1];
    QVERIFY(!gone.alive && gone.depthCounted);
    QCOMPARE(gone.backupDepth, 1);
    QCOMPARE(gone.held.size(), 1);
    QCOMPARE(gone.held[0].queue, QStringLiteral("payout:%1").arg(c.id));
    QCOMPARE(gone.held[0].key, c.keys.campaignBackup(c.pool(), gone.id));
}

void TestConsoleCost::tallyFollowsThePipeline()
{
    Company c(m_url);
    for (qint64 uid = 1; uid <= 5; ++uid)
        QCOMPARE(GrabService(c.redis, c.keys).grab(c.id, uid, Now).status, QStringLiteral("ok"));
    const ReliableQueue queue(c.keys.campaignTasks(c.pool()), c.keys.campaignBackup(c.pool(), QStringLiteral("w")), c.keys.campaignDeadLetter(c.pool()));
    BackupTally tally;
    QueuePipeline claim;
    const int claimed = claim.claim(queue, 3);
    claim.run(c.redis, &tally);
    QCOMPARE(tally.total(), 3);
    const QByteArrayList entries = claim.entries(claimed);

    QueuePipeline settle;
    settle.acknowledge(queue, {entries[0]});
    settle.deadLetter(queue, entries[1], {QStringLiteral("test"), 1, Now});
    settle.acknowledge(queue, {QByteArrayLiteral("not there")});  // removes nothing: counts nothing
    settle.run(c.redis, &tally);
    QCOMPARE(tally.total(), 1);
    QCOMPARE(c.redis.command({"LLEN", queue.backupKey()}).toInteger(), 1);

    // Another process took the last one: the tally believes 1 until the list is read whole.
    c.redis.command({"DEL", queue.backupKey()});
    QueuePipeline read;
    read.readBackup(queue);
    read.claim(queue, 1);
    read.run(c.redis, &tally);
    QCOMPARE(tally.total(), 1);  // the read said 0, the claim after it took 1
    QCOMPARE(c.redis.command({"LLEN", queue.backupKey()}).toInteger(), 1);
}

void TestConsoleCost::drainedStaysExactWhateverAWorkerSaid()
{
    Company c(m_url);
    c.live(QStringLiteral("said-zero"), 0);
    c.holds(QStringLiteral("said-zero"), 1);  // claimed after its beat: it said 0, it holds 1
    const RedisFigures figures = CampaignFigures(c.redis, c.sql, c.keys).redis({c.id}).constFirst();
    QCOMPARE(figures.inFlight, 1);
    QVERIFY(!figures.drained());
    c.redis.command({"DEL", c.keys.campaignBackup(c.pool(), QStringLiteral("said-zero"))});
    QVERIFY(CampaignFigures(c.redis, c.sql, c.keys).redis({c.id}).constFirst().drained());
}

void TestConsoleCost::backupListsNotCountedWhenTasksAreQueued()
{
    Company c(m_url);
    for (int n = 0; n < 300; ++n)
        c.live(c.worker(n), 0);
    QCOMPARE(GrabService(c.redis, c.keys).grab(c.id, 1, Now).status, QStringLiteral("ok"));  // queued
    const quint64 before = c.redis.commandsSent();
    const RedisFigures figures = CampaignFigures(c.redis, c.sql, c.keys).redis({c.id}).constFirst();
    QVERIFY(!figures.drained());
    QCOMPARE(figures.inFlight, 1);
    // The pools' names, then seven figures of the one pool: no LLEN per worker, no worker set.
    QCOMPARE(c.redis.commandsSent() - before, quint64(1 + 7));
}

void TestConsoleCost::recoveryReadsOnlyTheLiveWorkersBeats()
{
    // Recovery's read (LiveWorkers::Liveness): one command per worker, none of the live ones'
    // figures, and the dead ones' lists counted as the Queues overview counts them.
    Company c(m_url);
    constexpr int Workers = 150;
    constexpr int Dead = 10;
    for (int n = 0; n < Workers - Dead; ++n)
        c.live(c.worker(n), n == 0 ? std::nullopt : std::optional<qint64>(7));
    for (int n = Workers - Dead; n < Workers; ++n) {
        c.dead(c.worker(n));
        c.holds(c.worker(n), n);
    }
    c.holds(c.worker(0), 1);

    const quint64 before = c.redis.commandsSent();
    const QueueOverview overview = QueueOverview::read(c.redis, c.keys, Now, QueueOverview::LiveWorkers::Liveness);
    const quint64 sent = c.redis.commandsSent() - before;
    const quint64 bound = Workers + 3 * Shards + 6 + Dead * (Shards + 1) + 10;
    QVERIFY2(sent <= bound, qPrintable(QStringLiteral("%1 commands, bound %2").arg(sent).arg(bound)));
    QCOMPARE(overview.workers.size(), Workers);
    for (const WorkerStatus &worker : overview.workers) {
        QVERIFY(!worker.payouts);
        if (worker.alive) {
            QVERIFY(!worker.depthCounted);
            QCOMPARE(worker.backupDepth, 0);
            QVERIFY(worker.held.isEmpty());
        } else {
            QVERIFY(worker.depthCounted);
            QCOMPARE(worker.backupDepth, 1);
        }
    }
    QCOMPARE(overview.workers.size() - std::count_if(overview.workers.cbegin(), overview.workers.cend(), [](const WorkerStatus &w) { return w.alive; }),
             qsizetype(Dead));
}

void TestConsoleCost::recoveryWaitsForALiveWorkersTask()
{
    // A dead worker's task (paid meanwhile, so nothing queued) puts the campaign under watch; the
    // only other task is held by a live worker that said 0: the check must wait, not pass.
    Company c(m_url);
    c.dead(QStringLiteral("gone"));
    c.holds(QStringLiteral("gone"), 1);
    c.live(QStringLiteral("busy"), 0);
    c.holds(QStringLiteral("busy"), 2);
    RecoveryService service(c.config());
    std::optional<RecoverySnapshot> loaded;
    connect(&service, &RecoveryService::loaded, this, [&](quint64, const RecoverySnapshot &snapshot) { loaded = snapshot; });
    connect(&service, &RecoveryService::loadFailed, this, [](quint64, const QString &message, const QString &) { QFAIL(qPrintable(message)); });
    service.load(1);
    QVERIFY(loaded);
    QCOMPARE(loaded->workers.size(), 1);
    QCOMPARE(loaded->workers[0].backupDepth, 1);
    QCOMPARE(loaded->ledger.size(), 1);
    QCOMPARE(loaded->ledger[0].heldByDead, 1);
    QCOMPARE(loaded->ledger[0].state, LedgerCheck::State::Waiting);

    // The dead worker's list taken back and its task gone; the live one still holds its task.
    c.redis.command({"DEL", c.keys.campaignBackup(c.pool(), QStringLiteral("gone"))});
    c.redis.command({"DEL", c.keys.campaignTasks(c.pool())});
    service.load(2);
    QCOMPARE(loaded->ledger.size(), 1);
    QCOMPARE(loaded->ledger[0].heldByDead, 0);
    QCOMPARE(loaded->ledger[0].inFlight, 1);
    QCOMPARE(loaded->ledger[0].state, LedgerCheck::State::Waiting);
}

void TestConsoleCost::workerSetReadInPages()
{
    // Up to wholeUpTo members: SCARD with a first page, then one SMEMBERS; above it, pages of
    // about `count`; a set within one page: one round trip.
    Company c(m_url);
    QByteArrayList add{"SADD", c.keys.workerSet()};
    for (int n = 0; n < 1000; ++n)
        add << c.worker(n).toUtf8();
    c.redis.command(add);
    for (const qint64 wholeUpTo : {qint64(1000), qint64(999)}) {
        const quint64 before = c.redis.roundTrips();
        QByteArrayList members = scanSet(c.redis, c.keys.workerSet(), 100, wholeUpTo);
        const quint64 trips = c.redis.roundTrips() - before;
        if (wholeUpTo == 1000)
            QCOMPARE(trips, 2ULL);
        else
            QVERIFY2(trips >= 6, "pages of about 100, not one SMEMBERS");
        QCOMPARE(members.size(), 1000);
        std::sort(members.begin(), members.end());
        QCOMPARE(members.first(), c.worker(0).toUtf8());
        QCOMPARE(members.last(), c.worker(999).toUtf8());
        QCOMPARE(std::adjacent_find(members.cbegin(), members.cend()), members.cend());
    }
    const QByteArray small = c.keys.prefix() + "small-set";
    c.redis.command({"SADD", small, "a", "b", "c"});
    const quint64 before = c.redis.roundTrips();
    QCOMPARE(scanSet(c.redis, small).size(), 3);
    QCOMPARE(c.redis.roundTrips() - before, 1ULL);
}

void TestConsoleCost::statisticsReadTheKeptFigures()
{
    Company c(m_url);
    const QDate today(2026, 11, 7);
    CheckinService checkins(c.redis, c.keys, CheckinRules{});
    for (qint64 uid = 1; uid <= 30; ++uid)
        checkins.checkin(uid, today.addDays(-(uid % 3)), today, Now);
    const MonthStats live = MonthStatsReader(c.redis, c.keys).read(today, today);

    // One worker's turn per interval: a second worker in the same interval reads nothing.
    KeptMonthStats first;
    KeptMonthStats second;
    QVERIFY(first.keepIfDue(c.redis, c.keys, QStringLiteral("a"), today, Now));
    QVERIFY(!second.keepIfDue(c.redis, c.keys, QStringLiteral("b"), today, Now + 1));
    QVERIFY(!first.keepIfDue(c.redis, c.keys, QStringLiteral("a"), today, Now + 2));  // its own interval not over

    // The view reads the one key, with the time of the worker's read; a day later, the blocks again.
    Config config = c.config();
    config.todayOverride = today;
    MonthStatsService service(config);
    std::optional<MonthStats> shown;
    connect(&service, &MonthStatsService::loaded, this, [&](quint64, const MonthStats &stats) { shown = stats; });
    service.load(1, today);
    QVERIFY(shown);
    QCOMPARE(shown->asOfMs, std::optional<qint64>(Now));
    QCOMPARE(shown->activeUsers, live.activeUsers);
    QCOMPARE(shown->everyDayUsers, live.everyDayUsers);
    QCOMPARE(shown->days.size(), live.days.size());
    for (qsizetype d = 0; d < live.days.size(); ++d) {
        QCOMPARE(shown->days[d].date, live.days[d].date);
        QCOMPARE(shown->days[d].checkedIn, live.days[d].checkedIn);
        QCOMPARE(shown->days[d].makeups, live.days[d].makeups);
    }
    QVERIFY(KeptMonthStats::read(c.redis, c.keys, today, today.addDays(1)) == std::nullopt);  // kept on another day
    QCOMPARE(KeptMonthStats::read(c.redis, c.keys, today, today)->activeUsers, live.activeUsers);
}

LANTERN_TEST_SUITE(TestConsoleCost);

} // namespace tst_consolecost

#include "tst_consolecost.moc"
