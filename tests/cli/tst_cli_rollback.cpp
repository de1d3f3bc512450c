// Money after an OS crash under `appendfsync everysec` (issue 15): Redis restarts from an AOF cut
// back to an earlier size, so it forgets grabs that the workers had already persisted and paid.
// Users then grab again (some get a second envelope, some get an envelope another user holds in
// SQL) before a long-running `lanternd work` notices the new server, repairs the campaign from
// SQL and carries on. Afterwards: nobody paid twice, no envelope to two users, everyone told "ok"
// after the repair paid exactly the envelope they were told, and the ledger balances at close.
// Its own redis-server (PrivateRedis), because the test crashes it.
#include "clitest.h"
#include "privateredis.h"

#include "envelope/campaignverifier.h"
#include "envelope/grabservice.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "redis/redisdurability.h"
#include "sql/sqlconnection.h"
#include "testsuite.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QTest>

#include <csignal>
#include <sys/types.h>

namespace tst_cli_rollback {

using namespace lantern;
using namespace lantern::test;
using namespace lantern::test::cli;

namespace {

constexpr qint64 Envelopes = 400;
constexpr qint64 Total = 4'000'000;
constexpr int PollTimeoutMs = 60000;
const QString Prefix = QStringLiteral("rb:");

/** The incr file of a Redis 7 multi-part AOF: where the writes since the last rewrite go. */
QString incrAof(const PrivateRedis &server)
{
    const QStringList files = QDir(server.appendDir()).entryList({QStringLiteral("*.incr.aof")}, QDir::Files, QDir::Name);
    return files.isEmpty() ? QString() : QDir(server.appendDir()).filePath(files.constLast());
}

qint64 paidPayouts(const DbUrl &db)
{
    return sqlNumber(db, QStringLiteral("SELECT COUNT(*) FROM payout WHERE status = 'paid'"));
}

} // namespace

class TestCliRollback : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanupTestCase() { dropFreshDatabases(); }
    void everysecCrashPaysNobodyTwice_data();
    void everysecCrashPaysNobodyTwice();
    void durabilityOfEachMode_data();
    void durabilityOfEachMode();
    void workWarnsWhenGrabsCanBeLost_data();
    void workWarnsWhenGrabsCanBeLost();
    void commandsWaitWhileRepairing();
};

void TestCliRollback::commandsWaitWhileRepairing()
{
    PrivateRedis server;
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd(server.urlText(), sql.url, Prefix);
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("campaign"), QStringLiteral("create"), QStringLiteral("--name"), QStringLiteral("t"),
                                     QStringLiteral("--total-cents"), QStringLiteral("100"), QStringLiteral("--count"), QStringLiteral("10")}));
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("campaign"), QStringLiteral("launch"), QStringLiteral("--id"), QStringLiteral("1")}));
    server.command({"SET", KeySchema(Prefix).campaignRepairLock(1), "another-process", "PX", "60000"});

    const Result grab = lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), QStringLiteral("1"), QStringLiteral("--uid"), QStringLiteral("5")});
    QVERIFY2(grab.exitCode == 3 && grab.err.contains("is being repaired"), grab.describe().constData());
    const Result pause = lanternd.run({QStringLiteral("campaign"), QStringLiteral("pause"), QStringLiteral("--id"), QStringLiteral("1")});
    QVERIFY2(pause.exitCode == 3 && pause.err.contains("is being repaired"), pause.describe().constData());
    const Result repair = lanternd.run({QStringLiteral("campaign"), QStringLiteral("repair"), QStringLiteral("--id"), QStringLiteral("1")});
    QVERIFY2(repair.exitCode == 4 && repair.err.contains("another process"), repair.describe().constData());
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action <> 'campaign.create' AND action <> 'campaign.launch'")), 0LL);
    QCOMPARE(server.command({"LLEN", KeySchema(Prefix).campaignPool(1)}), QByteArray("10"));

    server.command({"DEL", KeySchema(Prefix).campaignRepairLock(1)});
    const Result repaired = lanternd.run({QStringLiteral("campaign"), QStringLiteral("repair"), QStringLiteral("--id"), QStringLiteral("1"),
                                          QStringLiteral("--operator"), QStringLiteral("alice")});
    LANTERND_VERIFY_OK(repaired);
    QCOMPARE(repaired.json().value(QLatin1String("pool_after")).toInteger(), 10LL);
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = 'campaign.repair' AND actor = 'alice'")), 1LL);
    const Result after = lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), QStringLiteral("1"), QStringLiteral("--uid"), QStringLiteral("5")});
    LANTERND_VERIFY_OK(after);
    QCOMPARE(after.json().value(QLatin1String("status")).toString(), QStringLiteral("ok"));
}

void TestCliRollback::durabilityOfEachMode_data()
{
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<int>("loss");
    // The harness's servers run with save "": nothing on disk at all.
    QTest::newRow("no AOF, no snapshots") << QStringList{} << int(RedisDurability::Loss::Everything);
    QTest::newRow("no AOF, snapshots") << QStringList{QStringLiteral("--save"), QStringLiteral("3600 1")} << int(RedisDurability::Loss::SinceSave);
    QTest::newRow("everysec") << QStringList{QStringLiteral("--appendonly"), QStringLiteral("yes"), QStringLiteral("--appendfsync"), QStringLiteral("everysec")}
                              << int(RedisDurability::Loss::OneSecond);
    QTest::newRow("no fsync") << QStringList{QStringLiteral("--appendonly"), QStringLiteral("yes"), QStringLiteral("--appendfsync"), QStringLiteral("no")}
                              << int(RedisDurability::Loss::OsFlush);
    QTest::newRow("always") << QStringList{QStringLiteral("--appendonly"), QStringLiteral("yes"), QStringLiteral("--appendfsync"), QStringLiteral("always")}
                            << int(RedisDurability::Loss::None);
    QTest::newRow("CONFIG renamed away") << QStringList{QStringLiteral("--rename-command"), QStringLiteral("CONFIG"), QString()}
                                         << int(RedisDurability::Loss::Unknown);
}

void TestCliRollback::durabilityOfEachMode()
{
    QFETCH(QStringList, options);
    QFETCH(int, loss);
    PrivateRedis server(options);
    RedisClient redis(server.url());
    const RedisDurability durability = RedisDurability::read(redis);
    QCOMPARE(int(durability.loss), loss);
    QCOMPARE(durability.warning().isEmpty(), durability.loss == RedisDurability::Loss::None);
    QCOMPARE(durability.canLoseAcknowledgedWrites(), durability.loss != RedisDurability::Loss::None);
}

void TestCliRollback::workWarnsWhenGrabsCanBeLost_data()
{
    QTest::addColumn<QString>("fsync");
    QTest::addColumn<bool>("warns");
    QTest::newRow("everysec") << QStringLiteral("everysec") << true;
    QTest::newRow("always") << QStringLiteral("always") << false;
}

void TestCliRollback::workWarnsWhenGrabsCanBeLost()
{
    QFETCH(QString, fsync);
    QFETCH(bool, warns);
    PrivateRedis server({QStringLiteral("--appendonly"), QStringLiteral("yes"), QStringLiteral("--appendfsync"), fsync});
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd(server.urlText(), sql.url, Prefix);
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("campaign"), QStringLiteral("create"), QStringLiteral("--name"), QStringLiteral("t"),
                                     QStringLiteral("--total-cents"), QStringLiteral("100"), QStringLiteral("--count"), QStringLiteral("10")}));
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("campaign"), QStringLiteral("launch"), QStringLiteral("--id"), QStringLiteral("1")}));

    WorkerProcess worker(lanternd, QStringLiteral("w1"));
    QVERIFY(worker.started());
    // The warning comes before the first pass, and the first pass beats.
    QTRY_VERIFY_WITH_TIMEOUT(server.command({"EXISTS", KeySchema(Prefix).workerHeartbeat(QStringLiteral("w1"))}) == "1" || !worker.running(),
                             PollTimeoutMs);
    QVERIFY2(worker.stop(PollTimeoutMs), worker.err().constData());
    QCOMPARE(worker.err().contains("lanternd work: warning: Redis writes its AOF to disk once a second"), warns);
}

void TestCliRollback::everysecCrashPaysNobodyTwice_data()
{
    QTest::addColumn<QString>("dialect");
    for (const QString &dialect : dialects())
        QTest::newRow(qPrintable(dialect)) << dialect;
}

void TestCliRollback::everysecCrashPaysNobodyTwice()
{
    QFETCH(QString, dialect);
    PrivateRedis server({QStringLiteral("--appendonly"), QStringLiteral("yes"), QStringLiteral("--appendfsync"), QStringLiteral("everysec")});
    const SqlTarget sql = freshSql(dialect);
    const Lanternd lanternd(server.urlText(), sql.url, Prefix);
    const KeySchema keys(Prefix);
    LANTERND_LAUNCH_CAMPAIGN(idText, lanternd, (QStringList{QStringLiteral("--name"), QStringLiteral("festival"),
                                                            QStringLiteral("--total-cents"), QString::number(Total), QStringLiteral("--count"),
                                                            QString::number(Envelopes), QStringLiteral("--seed"), QStringLiteral("7")}));
    const qint64 id = idText.toLongLong();

    WorkerProcess worker(lanternd, QStringLiteral("w1"));
    QVERIFY(worker.started());
    const auto workerStderr = [&worker]() -> const QByteArray & { return worker.err(); };
    const auto grabAll = [&](const QList<qint64> &uids) {
        RedisClient redis(server.url());
        GrabService grabs(redis, keys);
        QHash<qint64, GrabOutcome> outcomes;
        for (const qint64 uid : uids)
            outcomes.insert(uid, grabs.grab(id, uid, 1795000000000 + uid));
        return outcomes;
    };
    const auto range = [](qint64 from, qint64 to) {
        QList<qint64> uids;
        for (qint64 uid = from; uid <= to; ++uid)
            uids << uid;
        return uids;
    };

    // 1. Users 1..100 grab; the AOF's size now is where the crash will cut it back to. Under
    //    everysec Redis may answer before it writes the AOF (it postpones the write while a slow
    //    fsync runs), so the size is read once its buffer is out.
    grabAll(range(1, 100));
    server.waitUntilAofWritten();
    const QString aof = incrAof(server);
    QVERIFY2(!aof.isEmpty(), qPrintable(QDir(server.appendDir()).entryList().join(QLatin1Char(' '))));
    const qint64 cutAt = QFileInfo(aof).size();
    // 2. Users 101..200 grab; the worker persists and pays all 200.
    grabAll(range(101, 200));
    QTRY_VERIFY2_WITH_TIMEOUT(paidPayouts(sql.db) == 200 || !worker.running(), workerStderr().constData(), PollTimeoutMs);

    // 3. The OS crash: everything after the cut is lost, including the worker's acknowledgements.
    //    The worker is frozen meanwhile, so grabs land before it can notice.
    QVERIFY2(test::signalChild(worker.pid(), SIGSTOP) == 0, workerStderr().constData());  // not ended
    server.stop(PrivateRedis::Stop::Kill);
    QVERIFY(QFile::resize(aof, cutAt));
    server.start();
    server.finishLoading();
    QCOMPARE(server.command({"HGET", keys.campaignMeta(id), "grabbed_count"}), QByteArray("100"));

    // 4. Before the repair: users who hold an envelope in SQL get another, and new users get
    //    envelopes SQL gave to users 101..200. All are told "ok"; none of it may be paid.
    QList<qint64> before = range(1001, 1030);
    for (qint64 uid = 200; uid > 150; --uid)
        before << uid;
    const QHash<qint64, GrabOutcome> unrepaired = grabAll(before);
    for (const GrabOutcome &outcome : unrepaired)
        QCOMPARE(outcome.status, QStringLiteral("ok"));

    // 5. The worker wakes, sees another Redis (its run_id), repairs the campaign and drains.
    QCOMPARE(test::signalChild(worker.pid(), SIGCONT), 0);
    QTRY_VERIFY2_WITH_TIMEOUT(workerStderr().contains("rebuilt its Redis state from SQL") || !worker.running(),
                              workerStderr().constData(), PollTimeoutMs);
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = 'campaign.repair' AND actor = 'worker:w1'")), 1LL);
    QTRY_VERIFY2_WITH_TIMEOUT(server.command({"LLEN", keys.campaignTasks(id)}) == "0" && server.command({"LLEN", keys.campaignBackup(id, QStringLiteral("w1"))}) == "0",
                              workerStderr().constData(), PollTimeoutMs);

    // 6. After the repair: users 101..200 get their own envelope back; everyone else who is told
    //    "ok" gets a new one.
    const QHash<qint64, GrabOutcome> held = grabAll(range(101, 200));
    for (auto it = held.cbegin(); it != held.cend(); ++it) {
        QCOMPARE(it->status, QStringLiteral("already"));
        QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT seq FROM grab WHERE campaign_id = ? AND uid = ?"), {id, it.key()}), it->seq);
    }
    const QHash<qint64, GrabOutcome> after = grabAll(range(1001, 1030) + range(2001, 2100));
    QList<qint64> toldOk;
    for (auto it = after.cbegin(); it != after.cend(); ++it) {
        if (it->status == QLatin1String("ok"))
            toldOk << it.key();
    }
    QCOMPARE(toldOk.size(), 130);
    QTRY_VERIFY2_WITH_TIMEOUT(paidPayouts(sql.db) == 330 || !worker.running(), workerStderr().constData(), PollTimeoutMs);
    for (const qint64 uid : std::as_const(toldOk)) {
        QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ? AND uid = ? AND seq = ? AND status = 'paid'"),
                           {id, uid, after.value(uid).seq}),
                 1LL);
    }

    QVERIFY2(worker.stop(PollTimeoutMs), workerStderr().constData());

    // Nobody paid twice, no envelope to two users, the refusals counted, and the ledger balances.
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM (SELECT uid FROM payout WHERE status = 'paid' GROUP BY uid HAVING COUNT(*) > 1) d")), 0LL);
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM (SELECT seq FROM payout GROUP BY seq HAVING COUNT(*) > 1) d")), 0LL);
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM payout WHERE status = 'paid'")), 330LL);
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM grab_refused")), qint64(unrepaired.size()));
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("campaign"), QStringLiteral("close"), QStringLiteral("--id"), QString::number(id)}));
    // The invariants without the provider's side: the simulated provider keeps its ledger in the
    // Redis that rolled back, which a real provider would not.
    RedisClient redis(server.url());
    SqlConnection connection(sql.db);
    CampaignVerifier verifier(redis, connection, keys);
    QStringList violations;
    for (const Violation &violation : verifier.verify(id))
        violations << QStringLiteral("%1: %2").arg(violation.invariant).arg(violation.detail);
    QVERIFY2(violations.isEmpty(), qPrintable(violations.join(QLatin1Char('\n'))));
    QCOMPARE(verifier.refusedGrabs(id), qint64(unrepaired.size()));
    const qint64 paidCents = sqlNumber(sql.db, QStringLiteral("SELECT SUM(amount_cents) FROM payout WHERE status = 'paid'"));
    const qint64 refunded = sqlNumber(sql.db, QStringLiteral("SELECT refunded_cents FROM campaign WHERE id = ?"), {id});
    QCOMPARE(paidCents + refunded, Total);
}

LANTERN_TEST_SUITE(TestCliRollback);

} // namespace tst_cli_rollback

#include "tst_cli_rollback.moc"
