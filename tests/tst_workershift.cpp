// WorkerShift, the one list of what a worker does (lanternd work and the console's sandbox worker
// both run it), and WorkerRecovery (lanternd recover and the console's Recovery view): a new Redis
// run_id repairs a campaign once, with one audit row; an SQL outage backs off 100 ms -> 5 s and
// the heartbeat goes on; only outages are retried; retire() leaves nothing behind (unless the
// shift holds entries recovery must find); the sandbox's worker runs the same shift; the console's
// recovery settles interrupted lends. Real Redis and SQL from the harness; no sleeps.
#include "audit/auditlog.h"
#include "checkin/checkinservice.h"
#include "checkin/checkinstore.h"
#include "console/recovery/recoveryservice.h"
#include "console/sandbox/sandboxworker.h"
#include "envelope/campaignpools.h"
#include "envelope/campaignservice.h"
#include "envelope/grabservice.h"
#include "envelope/poollending.h"
#include "operations/workerrecovery.h"
#include "operations/workershift.h"
#include "payout/simulatedpayoutgateway.h"
#include "privateredis.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QDateTime>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

namespace tst_workershift {

using namespace lantern;

namespace {

qint64 scalar(SqlConnection &sql, const QString &query, const QVariantList &values = {})
{
    QSqlQuery result = sql.exec(query, values);
    return result.next() ? result.value(0).toLongLong() : -1;
}

qint64 auditRows(SqlConnection &sql, const QString &action, const QString &actor)
{
    return scalar(sql, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = ? AND actor = ?"), {action, actor});
}

/** A fresh SQLite file with the schema. */
DbUrl migratedSqlite()
{
    const DbUrl db = test::sqliteUrl();
    SqlConnection sql(db);
    Migrator(sql).migrate();
    return db;
}

/** A MySQL URL of the harness's server with a port nothing listens on. */
DbUrl unreachable(DbUrl url)
{
    QTcpServer server;
    server.listen(QHostAddress::LocalHost);
    url.port = int(server.serverPort());
    server.close();
    return url;
}

/** A campaign created and launched; `pools` sub-pools. */
qint64 launchCampaign(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, qint64 count, int pools = 1)
{
    CampaignDraft draft;
    draft.name = QStringLiteral("shift");
    draft.totalCents = count * 100;
    draft.count = count;
    draft.seed = 7;
    draft.pools = pools;
    CampaignService service(redis, sql, keys);
    const qint64 id = service.create(draft, QDateTime::currentMSecsSinceEpoch()).id;
    service.launch(id);
    return id;
}

/** A campaign of `count` envelopes launched, and the first `winners` users' grabs of it. */
qint64 launchAndGrab(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, qint64 count, qint64 winners)
{
    const qint64 id = launchCampaign(redis, sql, keys, count);
    GrabService grabs(redis, keys);
    for (qint64 uid = 1; uid <= winners; ++uid) {
        if (grabs.grab(id, uid, 1).status != QLatin1String("ok"))
            return 0;
    }
    return id;
}

/** One step; whether it went through (not an outage, not waiting one out). */
bool wentThrough(WorkerShift &shift)
{
    return shift.step().outage.isEmpty() && !shift.waitingOutOutage();
}

} // namespace

/** Steps the shift, as often as QTRY polls, until a step goes through (after a Redis restart the
    first command may still meet the old connection). */
#define STEP_THROUGH(shift) QTRY_VERIFY_WITH_TIMEOUT(wentThrough(shift), 20000)

class TestWorkerShift : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void runIdChangeRepairsOnceWithOneAuditRow_data();
    void runIdChangeRepairsOnceWithOneAuditRow();
    void outageBacksOffAndKeepsBeating();
    void onlyOutagesAreRetried();
    void retireLeavesNoHeartbeatAndNoMember();
    void sandboxRunsTheSameShift();
    void consoleRecoverySettlesLending();
};

void TestWorkerShift::runIdChangeRepairsOnceWithOneAuditRow_data()
{
    QTest::addColumn<DbUrl>("db");
    for (const auto &[dialect, url] : test::sqlDialects())
        QTest::newRow(qPrintable(dialect)) << url;
}

void TestWorkerShift::runIdChangeRepairsOnceWithOneAuditRow()
{
    QFETCH(DbUrl, db);
    test::resetTables(db);
    // A Redis of its own, without persistence: a restart loses everything and has a new run_id.
    test::PrivateRedis server;
    RedisClient redis(server.url());
    SqlConnection sql(db);
    const KeySchema keys(test::uniquePrefix());
    const qint64 id = launchAndGrab(redis, sql, keys, 10, 4);
    QVERIFY(id > 0);
    GrabService grabs(redis, keys);

    SimulatedPayoutGateway gateway(redis, keys.prefix(), SimulationKnobs{}, 1);
    WorkerShiftOptions options;
    options.workerId = QStringLiteral("w-run");
    QStringList reported;
    WorkerShift shift(redis, [db] { return std::make_unique<SqlConnection>(db); }, keys, gateway, options);
    shift.setReporter([&reported](const QString &line) { reported << line; });
    shift.drainAll();  // the first check finds nothing to repair: Redis holds every grab
    const QString actor = QStringLiteral("worker:w-run");
    QCOMPARE(auditRows(sql, QStringLiteral("campaign.repair"), actor), 0LL);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ? AND status = 'paid'"), {id}), 4LL);

    server.stop(test::PrivateRedis::Stop::Kill);
    server.start();
    QCOMPARE(RedisClient(server.url()).command({"EXISTS", keys.campaignMeta(id)}).toInteger(), 0LL);  // all gone
    STEP_THROUGH(shift);
    QCOMPARE(auditRows(sql, QStringLiteral("campaign.repair"), actor), 1LL);
    QCOMPARE(shift.stats().payouts.repaired, 1LL);
    QCOMPARE(reported.size(), 1);
    QVERIFY(reported.first().contains(QString::number(id)));
    // Rebuilt from the ledger: the four winners hold their envelopes again, six are left.
    QCOMPARE(redis.command({"HLEN", keys.campaignDraws(id)}).toInteger(), 4LL);
    QCOMPARE(redis.command({"LLEN", keys.campaignPool(id)}).toInteger(), 6LL);
    QCOMPARE(grabs.grab(id, 1, 1).status, QStringLiteral("already"));

    // The same server is checked once: more steps repair nothing more.
    for (int i = 0; i < 3; ++i)
        STEP_THROUGH(shift);
    QCOMPARE(auditRows(sql, QStringLiteral("campaign.repair"), actor), 1LL);
    shift.retire();
}

void TestWorkerShift::outageBacksOffAndKeepsBeating()
{
    // A real SQL outage: the shift's MariaDB connection is killed and the server it reconnects to
    // does not answer (a port nothing listens on) until the test lets it through again.
    const DbUrl db = test::mysqlUrl();
    test::resetTables(db);
    RedisClient redis(test::redisUrl());
    SqlConnection admin(db);
    const KeySchema keys(test::uniquePrefix());
    SimulatedPayoutGateway gateway(redis, keys.prefix(), SimulationKnobs{}, 1);
    WorkerShiftOptions options;
    options.workerId = QStringLiteral("w-out");
    options.heartbeatTtlS = 1;  // a worker that stops beating for a second is taken for dead
    DbUrl target = db;
    qint64 connectionId = 0;
    WorkerShift shift(redis,
                      [&target, &connectionId] {
                          auto connection = std::make_unique<SqlConnection>(target);
                          connectionId = scalar(*connection, QStringLiteral("SELECT CONNECTION_ID()"));
                          return connection;
                      },
                      keys, gateway, options);
    STEP_THROUGH(shift);
    const QByteArray heartbeat = keys.workerHeartbeat(options.workerId);
    QCOMPARE(redis.command({"EXISTS", heartbeat}).toInteger(), 1LL);

    CheckinService checkins(redis, keys, CheckinRules{});
    const QDate day(2026, 11, 3);
    const auto outage = [&](qint64 uid) {
        admin.exec(QStringLiteral("KILL ?"), {connectionId});
        target = unreachable(db);
        checkins.checkin(uid, day, day, QDateTime::currentMSecsSinceEpoch());  // work that needs SQL
    };
    outage(1);
    const qint64 outageStartMs = QDateTime::currentMSecsSinceEpoch();
    QList<int> backoffs;
    qint64 heartbeatMissing = 0;
    // Step as the worker does until the back-off has doubled up to its cap and stayed there.
    QStringList lines;
    const auto stepUntilCapped = [&] {
        const ShiftStep step = shift.step();
        if (!step.outage.isEmpty()) {
            backoffs << step.pauseMs;
            lines << step.outage;
        }
        heartbeatMissing += redis.command({"EXISTS", heartbeat}).toInteger() == 0 ? 1 : 0;
        return backoffs.size() >= 8;
    };
    QTRY_VERIFY_WITH_TIMEOUT(stepUntilCapped(), 30000);
    QCOMPARE(backoffs, (QList<int>{100, 200, 400, 800, 1600, 3200, 5000, 5000}));
    QVERIFY2(lines.first().endsWith(QStringLiteral("; retrying in 100 ms")), qPrintable(lines.first()));
    QVERIFY(shift.waitingOutOutage());
    // It kept beating all along: never without its key, and its last beat is from the outage's end.
    QCOMPARE(heartbeatMissing, 0LL);
    QVERIFY(redis.command({"GET", heartbeat}).toInteger() >= outageStartMs + 10000);

    // SQL comes back: the next try opens a new connection and persists what waited.
    target = db;
    STEP_THROUGH(shift);
    QVERIFY(CheckinStore(admin).hasLog(1, day));
    QCOMPARE(shift.stats().checkins.persisted, 1LL);

    // The back-off starts over at 100 ms; a shift retired in an outage holds a claimed entry, so
    // it stays known for recovery, which takes the entry back once it is found dead.
    outage(2);
    QTRY_VERIFY_WITH_TIMEOUT(shift.step().pauseMs == 100, 5000);
    shift.retire();
    QCOMPARE(redis.command({"EXISTS", heartbeat}).toInteger(), 0LL);
    QCOMPARE(redis.command({"SISMEMBER", keys.workerSet(), options.workerId.toUtf8()}).toInteger(), 1LL);
    const WorkerRecoveryReport recovered = WorkerRecovery(redis, admin, keys).recover(std::nullopt, QStringLiteral("oncall"), {}, 1);
    QCOMPARE(recovered.queues.reclaimed, 1LL);
    QCOMPARE(recovered.queues.requeued, 1LL);
    QCOMPARE(auditRows(admin, QStringLiteral("queue.recover"), QStringLiteral("oncall")), 1LL);
}

void TestWorkerShift::onlyOutagesAreRetried()
{
    const DbUrl db = migratedSqlite();
    RedisClient redis(test::redisUrl());
    const KeySchema keys(test::uniquePrefix());
    SimulatedPayoutGateway gateway(redis, keys.prefix(), SimulationKnobs{}, 1);
    WorkerShiftOptions options;
    options.workerId = QStringLiteral("w-fault");
    WorkerShift shift(redis, [db] { return std::make_unique<SqlConnection>(db); }, keys, gateway, options);
    STEP_THROUGH(shift);
    // A fault no retry can mend (the campaign set is not a set): the step says so, at once.
    redis.command({"SET", keys.campaignSet(), "not a set"});
    QVERIFY_THROWS_EXCEPTION(RedisReplyError, shift.step());
    QVERIFY(!shift.waitingOutOutage());
    redis.command({"DEL", keys.campaignSet()});
    STEP_THROUGH(shift);
    shift.retire();
}

void TestWorkerShift::retireLeavesNoHeartbeatAndNoMember()
{
    const DbUrl db = migratedSqlite();
    RedisClient redis(test::redisUrl());
    SqlConnection sql(db);
    const KeySchema keys(test::uniquePrefix());
    const qint64 id = launchAndGrab(redis, sql, keys, 20, 20);
    QVERIFY(id > 0);
    SimulatedPayoutGateway gateway(redis, keys.prefix(), SimulationKnobs{0, 20}, 1);  // slow: payouts stay in flight
    WorkerShiftOptions options;
    options.workerId = QStringLiteral("w-retire");
    WorkerShift shift(redis, [db] { return std::make_unique<SqlConnection>(db); }, keys, gateway, options);
    QVERIFY(shift.step().work > 0);
    const QByteArray payouts = keys.workerPayouts(options.workerId);
    QCOMPARE(redis.command({"SISMEMBER", keys.workerSet(), options.workerId.toUtf8()}).toInteger(), 1LL);
    QCOMPARE(redis.command({"HEXISTS", payouts, "in_flight"}).toInteger(), 1LL);
    QCOMPARE(redis.command({"HEXISTS", payouts, "held"}).toInteger(), 1LL);  // its backup depth, for the consoles (issue 26)

    QCOMPARE(shift.finish(), QString());  // the payouts in flight end and are recorded
    shift.retire();
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ? AND status = 'paid'"), {id}), 20LL);
    QCOMPARE(redis.command({"EXISTS", keys.workerHeartbeat(options.workerId)}).toInteger(), 0LL);
    QCOMPARE(redis.command({"EXISTS", payouts}).toInteger(), 0LL);
    QCOMPARE(redis.command({"SISMEMBER", keys.workerSet(), options.workerId.toUtf8()}).toInteger(), 0LL);
    QCOMPARE(redis.command({"LLEN", keys.campaignBackup(id, options.workerId)}).toInteger(), 0LL);
}

void TestWorkerShift::sandboxRunsTheSameShift()
{
    // The sandbox's worker on the harness's Redis (a prefix of its own) and an SQLite file in a
    // folder of its own, as the console makes it. Before its first step its live campaign loses
    // its Redis state: the shift's first check (a worker starting cannot know what happened
    // before it) repairs it from the ledger and audits the repair, as lanternd work does.
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    Config config;
    config.redis = test::redisUrl();
    config.db = DbUrl::parse(QStringLiteral("sqlite://") + folder.path() + QStringLiteral("/sandbox.db"));
    config.keyPrefix = test::uniquePrefix();
    config.todayOverride = QDate(2025, 3, 20);
    const KeySchema keys(config.keyPrefix, config.shards);
    RedisClient redis(config.redis);
    qint64 liveId = 0;
    QString workerId;
    {
        SandboxWorker worker(config);
        workerId = worker.workerId();
        QSignalSpy seeded(&worker, &SandboxWorker::seeded);
        QSignalSpy failed(&worker, &SandboxWorker::failed);
        worker.start();  // on this thread: its timer steps the shift when this thread's loop runs
        QCOMPARE(failed.size(), 0);
        QCOMPARE(seeded.size(), 1);
        liveId = seeded.first().at(0).value<SeedSummary>().campaigns.liveId;
        QCOMPARE(redis.command({"DEL", keys.campaignMeta(liveId)}).toInteger(), 1LL);

        SqlConnection sql(config.db);
        const QString actor = QStringLiteral("worker:") + workerId;
        QTRY_COMPARE_WITH_TIMEOUT(auditRows(sql, QStringLiteral("campaign.repair"), actor), 1LL, 20000);
        QCOMPARE(redis.command({"HGET", keys.campaignMeta(liveId), "status"}).toBytes(), QByteArray("live"));
        // Its heartbeat carries the payout figures lanternd work's does, in-flight calls included.
        QTRY_COMPARE_WITH_TIMEOUT(redis.command({"HEXISTS", keys.workerPayouts(workerId), "in_flight"}).toInteger(), 1LL, 20000);
        // The crowd stops; the worker drains what it grabbed and holds nothing any more.
        worker.setCrowdRate(0);
        const auto holding = [&] {
            return redis.command({"LLEN", keys.campaignTasks(liveId)}).toInteger() + redis.command({"LLEN", keys.campaignBackup(liveId, workerId)}).toInteger();
        };
        QTRY_COMPARE_WITH_TIMEOUT(holding(), 0LL, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(redis.command({"HGET", keys.workerPayouts(workerId), "in_flight"}).toInteger(), 0LL, 20000);
        QCOMPARE(failed.size(), 0);
    }
    // Gone with the console: no heartbeat, not a member any more (its shift held nothing).
    QCOMPARE(redis.command({"EXISTS", keys.workerHeartbeat(workerId)}).toInteger(), 0LL);
    QCOMPARE(redis.command({"SISMEMBER", keys.workerSet(), workerId.toUtf8()}).toInteger(), 0LL);
}

void TestWorkerShift::consoleRecoverySettlesLending()
{
    const DbUrl db = migratedSqlite();
    RedisClient redis(test::redisUrl());
    SqlConnection sql(db);
    Config config;
    config.redis = test::redisUrl();
    config.db = db;
    config.keyPrefix = test::uniquePrefix();
    const KeySchema keys(config.keyPrefix, config.shards);
    const qint64 id = launchCampaign(redis, sql, keys, 6, 2);  // three envelopes a pool
    const CampaignPools pools = CampaignPools::read(redis, keys, id);
    QList<qint64> home0;
    for (qint64 uid = 1; home0.size() < 5; ++uid) {
        if (pools.homeOf(uid) == 0)
            home0 << uid;
    }
    GrabService grabs(redis, keys);
    for (int i = 0; i < 4; ++i)
        QCOMPARE(grabs.grab(id, home0[i], 1).status, QStringLiteral("ok"));  // pool 0 is dry: the fourth borrowed
    // A grab killed after its lend, long enough ago to be taken for interrupted.
    const qint64 longAgo = QDateTime::currentMSecsSinceEpoch() - 60'000;
    QCOMPARE(redis.command(poollending::lendCommand(keys, pools.name(1), pools.name(0), home0[4], longAgo)).elements.at(0).toBytes(), QByteArray("lent"));
    QCOMPARE(PoolLending(redis, keys).lentCount(pools), 1LL);
    // A dead worker for the operator to compensate.
    redis.command({"SADD", keys.workerSet(), "w-dead"});

    RecoveryService service(config);
    QSignalSpy finished(&service, &RecoveryService::jobFinished);
    QSignalSpy failed(&service, &RecoveryService::jobFailed);
    service.compensate(1, {QStringLiteral("w-dead")}, QStringLiteral("oncall"));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 20000);
    QVERIFY(failed.isEmpty());
    QCOMPARE(PoolLending(redis, keys).lentCount(pools), 0LL);
    QCOMPARE(grabs.grab(id, home0[4], 1).status, QStringLiteral("already"));  // the interrupted grab was finished for its user
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = 'queue.recover' AND actor = 'oncall' AND target = 'w-dead'")), 1LL);
}

LANTERN_TEST_SUITE(TestWorkerShift);

} // namespace tst_workershift

#include "tst_workershift.moc"
