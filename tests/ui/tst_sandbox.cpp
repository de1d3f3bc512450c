// The console's sandbox: a private redis-server child, a fresh SQLite file, seeded demo history
// drained into SQL (so balances are real), and an in-process worker that keeps persisting.
// Starts its own redis-server; needs no harness servers.
#include "checkin/checkinservice.h"
#include "checkin/checkinstore.h"
#include "console/sandbox/sandbox.h"
#include "console/sandbox/sandboxdirectory.h"
#include "console/sandbox/sandboxredis.h"
#include "console/sandbox/sandboxseeder.h"
#include "envelope/campaignservice.h"
#include "operations/deadletters.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testsuite.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSysInfo>
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
    void sandboxesSideBySideNeverTouchEachOther();
    void foldersOfEndedSandboxesAreSwept();
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
    QVERIFY(sandbox->directory().startsWith(directory.path() + QStringLiteral("/run-")));
    QCOMPARE(config.db.path, sandbox->directory() + QStringLiteral("/sandbox.db"));
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
    const QString own = sandbox->directory();
    sandbox.reset();
    QVERIFY(!QFileInfo::exists(QStringLiteral("/proc/%1").arg(pid)));
    QVERIFY(!QFileInfo::exists(own));  // its folder went with it
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

namespace {
std::unique_ptr<Sandbox> startedSandbox(const QString &root)
{
    Config base;
    base.todayOverride = Today;
    auto sandbox = std::make_unique<Sandbox>(base, root);
    QSignalSpy ready(sandbox.get(), &Sandbox::ready);
    QSignalSpy failed(sandbox.get(), &Sandbox::failed);
    sandbox->start();
    if (!QTest::qWaitFor([&] { return !ready.isEmpty() || !failed.isEmpty(); }, StartTimeoutMs) || !failed.isEmpty())
        return nullptr;
    return sandbox;
}

qint64 auditRows(SqlConnection &sql)
{
    QSqlQuery rows = sql.exec(QStringLiteral("SELECT COUNT(*) FROM audit_log"), {});
    return rows.next() ? rows.value(0).toLongLong() : -1;
}
} // namespace

// Issue 24, point 1: a second sandbox (a screenshot run, another console) started while one runs
// gets its own folder, database, server and worker; the first one's data stays as it was.
void TestSandbox::sandboxesSideBySideNeverTouchEachOther()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const std::unique_ptr<Sandbox> first = startedSandbox(root.path());
    QVERIFY(first);
    SqlConnection firstSql(first->config().db);
    RedisClient firstRedis(first->config().redis);
    const KeySchema keys(first->config().keyPrefix, first->config().shards);
    // The first console acts: a campaign of its own, audited, in its own database and Redis.
    CampaignService campaigns(firstRedis, firstSql, keys);
    CampaignDraft spec;
    spec.name = QStringLiteral("only in the first sandbox");
    spec.totalCents = 1000;
    spec.count = 10;
    const qint64 ownCampaign = campaigns.create(spec, QDateTime::currentMSecsSinceEpoch()).id;
    const qint64 firstAudit = auditRows(firstSql);
    QVERIFY(firstAudit > 0);
    const QFileInfo firstFile(first->config().db.path);
    const QDateTime firstCreated = firstFile.birthTime().isValid() ? firstFile.birthTime() : firstFile.metadataChangeTime();

    const std::unique_ptr<Sandbox> second = startedSandbox(root.path());
    QVERIFY(second);
    QVERIFY(second->directory() != first->directory());
    QVERIFY(second->config().db.path != first->config().db.path);
    QVERIFY(second->config().redis.port != first->config().redis.port);

    // The first one's file is the same file, with everything it held.
    QVERIFY(QFileInfo::exists(first->config().db.path));
    SqlConnection reopened(first->config().db);
    QCOMPARE(auditRows(reopened), firstAudit);
    QSqlQuery campaign = reopened.exec(QStringLiteral("SELECT name FROM campaign WHERE id = ?"), {ownCampaign});
    QVERIFY(campaign.next());
    QCOMPARE(campaign.value(0).toString(), spec.name);
    const QFileInfo still(first->config().db.path);
    QCOMPARE(still.birthTime().isValid() ? still.birthTime() : still.metadataChangeTime(), firstCreated);
    // ... and the second sandbox has its own seeded data, without the first one's campaign.
    SqlConnection secondSql(second->config().db);
    QSqlQuery absent = secondSql.exec(QStringLiteral("SELECT COUNT(*) FROM campaign WHERE name = ?"), {spec.name});
    QVERIFY(absent.next());
    QCOMPARE(absent.value(0).toInt(), 0);
    QCOMPARE(firstRedis.command({"PING"}).toBytes(), QByteArray("PONG"));

    // Each worker beats into its own Redis only.
    RedisClient secondRedis(second->config().redis);
    QCOMPARE(secondRedis.command({"SCARD", keys.workerSet()}).toInteger(), firstRedis.command({"SCARD", keys.workerSet()}).toInteger());
}

// A console that was killed leaves its folder: the next sandbox removes it, never a live one's.
void TestSandbox::foldersOfEndedSandboxesAreSwept()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    // A folder whose lock names a process that no longer exists, as a killed console leaves it.
    const QString dead = root.path() + QStringLiteral("/run-deadbeef");
    QVERIFY(QDir().mkpath(dead));
    {
        QFile lock(dead + QStringLiteral(".lock"));
        QVERIFY(lock.open(QIODevice::WriteOnly));
        lock.write("999999999\nlantern\n" + QSysInfo::machineHostName().toUtf8() + '\n');
    }
    QString error;
    const auto live = SandboxDirectory::claim(root.path(), &error);
    QVERIFY2(live, qPrintable(error));
    QCOMPARE(live->sweptCount(), 1);
    QVERIFY(!QFileInfo::exists(dead));

    // A live sandbox's folder is never taken.
    QFile marker(live->path() + QStringLiteral("/sandbox.db"));
    QVERIFY(marker.open(QIODevice::WriteOnly));
    marker.close();
    const auto other = SandboxDirectory::claim(root.path(), &error);
    QVERIFY2(other, qPrintable(error));
    QCOMPARE(other->sweptCount(), 0);
    QVERIFY(other->path() != live->path());
    QVERIFY(QFileInfo::exists(marker.fileName()));
}

LANTERN_TEST_SUITE(TestSandbox);

} // namespace tst_sandbox

#include "tst_sandbox.moc"
