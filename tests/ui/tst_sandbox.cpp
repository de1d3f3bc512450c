// The console's sandbox: a private redis-server child, a fresh SQLite file, seeded demo history
// drained into SQL (so balances are real), and an in-process worker that keeps persisting.
// Starts its own redis-server; needs no harness servers.
#include "checkin/checkinservice.h"
#include "checkin/checkinstore.h"
#include "console/sandbox/sandbox.h"
#include "console/sandbox/sandboxredis.h"
#include "console/sandbox/sandboxseeder.h"
#include "envelope/campaignservice.h"
#include "queue/deadletters.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testsuite.h"

#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace tst_sandbox {

using namespace lantern;

namespace {
constexpr int StartTimeoutMs = 60000;
const QDate Today(2025, 3, 20);
} // namespace

class TestSandbox final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void crowdRateIsRememberedBetweenRuns();
    void seedsRealHistoryAndStopsCleanly();
    void missingServerIsReportedPlainly();
};

void TestSandbox::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);  // the crowd's rate is remembered in the settings
    QSettings().remove(QStringLiteral("sandbox/crowdRate"));
}

// Issue 14, point 15: the crowd's rate chosen in one run is where the next sandbox starts.
void TestSandbox::crowdRateIsRememberedBetweenRuns()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    QCOMPARE(Sandbox(Config{}, directory.path()).crowdRate(), int(SandboxWorker::DefaultCrowdRate));
    Sandbox(Config{}, directory.path()).setCrowdRate(42);
    QCOMPARE(Sandbox(Config{}, directory.path()).crowdRate(), 42);
    Sandbox(Config{}, directory.path()).setCrowdRate(SandboxWorker::MaxCrowdRate + 1);
    QCOMPARE(Sandbox(Config{}, directory.path()).crowdRate(), int(SandboxWorker::MaxCrowdRate));
    Sandbox(Config{}, directory.path()).setCrowdRate(SandboxWorker::DefaultCrowdRate);
}

void TestSandbox::seedsRealHistoryAndStopsCleanly()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    Config base;
    base.todayOverride = Today;
    auto sandbox = std::make_unique<Sandbox>(base, directory.path());
    QSignalSpy ready(sandbox.get(), &Sandbox::ready);
    QSignalSpy failed(sandbox.get(), &Sandbox::failed);
    sandbox->start();
    QTRY_VERIFY_WITH_TIMEOUT(!ready.isEmpty() || !failed.isEmpty(), StartTimeoutMs);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.isEmpty() ? QString() : failed.first().at(0).toString() + u' ' + failed.first().at(1).toString()));

    const Config &config = sandbox->config();
    QCOMPARE(config.db.path, directory.path() + QStringLiteral("/sandbox.db"));
    QCOMPARE(config.redis.host, QStringLiteral("127.0.0.1"));
    QCOMPARE(sandbox->summary().uids, SandboxSeeder::demoUids());
    QVERIFY(sandbox->summary().checkins > 300);
    QVERIFY(sandbox->summary().makeups > 5);
    QCOMPARE(sandbox->summary().persisted, sandbox->summary().checkins + sandbox->summary().makeups);

    // Redis and SQL agree: every signed day of the three months has its log row, and the
    // balance is the sum of the rewards of the user's normal check-ins.
    RedisClient redis(config.redis);
    SqlConnection sql(config.db);
    const KeySchema keys(config.keyPrefix, config.shards);
    CheckinService service(redis, keys, config.checkin);
    CheckinStore store(sql);
    for (const qint64 uid : SandboxSeeder::demoUids()) {
        int signedDays = 0;
        for (int back = 0; back < 3; ++back)
            signedDays += static_cast<int>(service.calendar(uid, Today.addMonths(-back), Today).signedDays.size());
        QSqlQuery rows = sql.exec(QStringLiteral("SELECT COUNT(*), COALESCE(SUM(points), 0) FROM checkin_log WHERE uid = ?"), {uid});
        QVERIFY(rows.next());
        QCOMPARE(rows.value(0).toInt(), signedDays);
        QCOMPARE(store.pointsBalance(uid), rows.value(1).toLongLong());
    }
    const CalendarMonth regular = service.calendar(10001, Today, Today);
    QVERIFY(!regular.makeupDays.isEmpty());
    QVERIFY(regular.signedDays.contains(Today.day()));

    // The in-process worker persists what arrives later, as `lanternd work` would.
    const qint64 walkIn = 777001;
    service.checkin(walkIn, Today, Today, QDateTime::currentMSecsSinceEpoch());
    QTRY_VERIFY_WITH_TIMEOUT(store.hasLog(walkIn, Today), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(store.pointsBalance(walkIn), qint64(10), 10000);

    // The campaign demo: one closed and balanced, one live that a crowd keeps grabbing while the
    // worker persists and pays, a draft, and a dead worker holding twelve of the live one's tasks.
    const CampaignDemo &demo = sandbox->summary().campaigns;
    QVERIFY(demo.finishedId > 0 && demo.liveId > 0 && demo.draftId > 0);
    QCOMPARE(demo.crashedTasks, qint64(12));
    QCOMPARE(redis.command({"LLEN", keys.campaignBackup(demo.liveId, demo.crashedWorker)}).toInteger(), 12);
    QCOMPARE(redis.command({"EXISTS", keys.workerHeartbeat(demo.crashedWorker)}).toInteger(), 0);
    // Dead letters for the Queues view: three refused payouts and one unreadable entry, each with
    // its note, in the live campaign's list.
    QCOMPARE(demo.deadLetters, qint64(4));
    const DeadLetterPage deadLetters = DeadLetters(redis, keys).page(QStringLiteral("payout:%1").arg(demo.liveId), 0, 10);
    QCOMPARE(deadLetters.depth, 4);
    int readable = 0;
    for (qsizetype i = 0; i < deadLetters.entries.size(); ++i) {
        QVERIFY(deadLetters.notes.at(i).isKnown());
        QVERIFY(!deadLetters.notes.at(i).reason.isEmpty());
        readable += DeadLetters::isReadable(deadLetters.list, deadLetters.entries.at(i)) ? 1 : 0;
    }
    QCOMPARE(readable, 3);
    const auto sqlCount = [&sql](const QString &query, qint64 id) {
        QSqlQuery row = sql.exec(query, {id});
        return row.next() ? row.value(0).toLongLong() : -1;
    };
    QCOMPARE(sqlCount(QStringLiteral("SELECT COALESCE(SUM(amount_cents), 0) FROM payout WHERE campaign_id = ? AND status = 'paid'"), demo.finishedId),
             qint64(20000));
    QCOMPARE(sqlCount(QStringLiteral("SELECT COUNT(*) FROM campaign WHERE id = ? AND status = 'closed'"), demo.finishedId), qint64(1));
    const qint64 grabbedAtStart = redis.command({"HGET", keys.campaignMeta(demo.liveId), "grabbed_count"}).toInteger();
    QTRY_VERIFY_WITH_TIMEOUT(redis.command({"HGET", keys.campaignMeta(demo.liveId), "grabbed_count"}).toInteger() > grabbedAtStart, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(sqlCount(QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ? AND status = 'paid'"), demo.liveId) > 0,
                             10000);

    // The crowd joins a campaign the operator launches, at the rate set (issue 14, point 15):
    // a launch can be rehearsed end to end in the sandbox.
    sandbox->setCrowdRate(40);
    const auto grabbed = [&redis, &keys](qint64 id) {
        const RedisValue count = redis.command({"HGET", keys.campaignMeta(id), "grabbed_count"});
        return count.isNil() ? 0 : count.toInteger();  // a draft has no pool in Redis yet
    };
    QCOMPARE(grabbed(demo.draftId), 0);
    CampaignService(redis, sql, keys).launch(demo.draftId);
    QTRY_VERIFY_WITH_TIMEOUT(grabbed(demo.draftId) >= 40, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(sqlCount(QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ? AND status = 'paid'"), demo.draftId) > 0,
                             10000);

    // Stopping takes the server down with it.
    SandboxRedis *server = sandbox->findChild<SandboxRedis *>();
    QVERIFY(server);
    const qint64 pid = server->processId();
    QVERIFY(pid > 0);
    sandbox.reset();
    QVERIFY(!QFileInfo::exists(QStringLiteral("/proc/%1").arg(pid)));
}

void TestSandbox::missingServerIsReportedPlainly()
{
    qputenv("LANTERN_REDIS_SERVER", "/nonexistent/redis-server");
    QTemporaryDir directory;
    SandboxRedis server(directory.path());
    QSignalSpy failed(&server, &SandboxRedis::failed);
    server.start();
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 10000);
    QVERIFY(failed.first().at(0).toString().contains(QStringLiteral("could not be started")));
    QVERIFY(!server.isReady());
    qunsetenv("LANTERN_REDIS_SERVER");
}

LANTERN_TEST_SUITE(TestSandbox);

} // namespace tst_sandbox

#include "tst_sandbox.moc"
