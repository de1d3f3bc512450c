// lanternd against a real Redis Cluster (scripts/services), given its seed list or one node's
// URL: the check-in and campaign contracts hold, workers drain, verify is ok; a dead first seed
// does not stop a command, no seed answering is an outage (exit 3), a bad URL is refused (exit 2);
// lanternd serve answers check-ins and grabs over every master and counts the redirects it
// followed; migrate-redis moves the old check-in layout on every master; what does not run on a
// cluster yet says so and writes nothing.
#include "clitest.h"
#include "privateserver.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "serveprocess.h"
#include "testcluster.h"
#include "testservers.h"
#include "testsuite.h"
#include "token/usertoken.h"

#include <QDateTime>
#include <QJsonArray>
#include <QTest>

namespace tst_cli_cluster {

using namespace lantern::test::cli;

namespace {

QStringList cliArgs(std::initializer_list<const char *> list)
{
    QStringList result;
    for (const char *item : list)
        result << QString::fromUtf8(item);
    return result;
}

/** The cluster URL with the seed list's first seed replaced by a port nothing listens on. */
QString withDeadFirstSeed(const QString &seedList)
{
    const QString seeds = seedList.mid(QStringLiteral("redis://").size());
    return QStringLiteral("redis://127.0.0.1:%1,").arg(lantern::test::pickPrivatePort()) + seeds;
}

} // namespace

class TestCliCluster final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase() { dropFreshDatabases(); }
    void checkinContract();
    void campaignContract_data();
    void campaignContract();
    void oneNodesUrlIsEnough();
    void deadFirstSeed();
    void noSeedAnswersIsAnOutage();
    void badUrlsAreRefused_data();
    void badUrlsAreRefused();
    void badInputWritesNothingOnACluster();
    void serveOnACluster_data();
    void serveOnACluster();
    void campaignRepairOnACluster();
    void grabWaitsForTheReplica();
    void migrateRedisOnACluster();
    void serveCountsRedirects();

private:
    lantern::test::TestCluster m_cluster;
};

void TestCliCluster::initTestCase()
{
    m_cluster.waitUntilSettled();
}

void TestCliCluster::checkinContract()
{
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd(m_cluster.urlText(), sql.url, lantern::test::uniquePrefix(), QStringLiteral("2026-11-23"));
    for (int uid = 1; uid <= 20; ++uid) {  // every shard of 16, so every master
        const Result result = lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QString::number(uid)});
        LANTERND_VERIFY_OK(result);
        QCOMPARE(result.json().value(QLatin1String("already")).toBool(), false);
    }
    LANTERND_COMPARE_JSON(lanternd.run(cliArgs({"checkin", "--uid", "3"})),
                          (QJsonObject{{QStringLiteral("uid"), 3}, {QStringLiteral("date"), QStringLiteral("2026-11-23")},
                                       {QStringLiteral("kind"), QStringLiteral("normal")}, {QStringLiteral("already"), true},
                                       {QStringLiteral("streak"), 1}, {QStringLiteral("month_count"), 1}, {QStringLiteral("points"), 0}}));
    LANTERND_VERIFY_OK(lanternd.run(cliArgs({"makeup", "--uid", "3", "--date", "2026-11-22", "--reason", "outage", "--operator", "alice"})));
    LANTERND_VERIFY_OK(lanternd.run(cliArgs({"work", "--once"})));
    const Result calendar = lanternd.run(cliArgs({"calendar", "--uid", "3", "--month", "2026-11"}));
    LANTERND_VERIFY_OK(calendar);
    QCOMPARE(calendar.json().value(QLatin1String("signed")).toArray(), (QJsonArray{22, 23}));
    QCOMPARE(calendar.json().value(QLatin1String("streak")).toInt(), 2);
    QCOMPARE(calendar.json().value(QLatin1String("points_balance")).toInt(), 10);
    QCOMPARE(snapshotSql(sql.db), (SqlSnapshot{21, 20, 1, 200}));  // 20 check-ins + a make-up, 10 points each, one audit row

    const Result reconcile = lanternd.run(cliArgs({"reconcile", "--date", "2026-11-23"}));
    LANTERND_VERIFY_OK(reconcile);
    QCOMPARE(reconcile.json().value(QLatin1String("redis_count")).toInt(), 20);
    QCOMPARE(reconcile.json().value(QLatin1String("missing")).toInt(), 0);
}

void TestCliCluster::campaignContract_data()
{
    QTest::addColumn<int>("pools");
    QTest::newRow("one pool") << 1;
    QTest::newRow("three sub-pools") << 3;
}

void TestCliCluster::campaignContract()
{
    QFETCH(int, pools);
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd(m_cluster.urlText(), sql.url, lantern::test::uniquePrefix(), QStringLiteral("2026-11-23"));
    const Result created = lanternd.run(cliArgs({"campaign", "create", "--name", "gala", "--total-cents", "2000", "--count", "20", "--seed", "9"})
                                        << QStringLiteral("--pools") << QString::number(pools));
    LANTERND_VERIFY_OK(created);
    QCOMPARE(created.json().value(QLatin1String("pools")).toInt(1), pools);
    const QString id = QString::number(created.json().value(QLatin1String("id")).toInteger());
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("campaign"), QStringLiteral("launch"), QStringLiteral("--id"), id}));

    int ok = 0;
    int soldOut = 0;
    qint64 cents = 0;
    for (int uid = 1; uid <= 25; ++uid) {
        const Result grab = lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), id, QStringLiteral("--uid"), QString::number(uid)});
        LANTERND_VERIFY_OK(grab);
        const QString status = grab.json().value(QLatin1String("status")).toString();
        if (status == QLatin1String("ok")) {
            ++ok;
            cents += grab.json().value(QLatin1String("amount_cents")).toInteger();
        } else {
            QCOMPARE(status, QStringLiteral("sold_out"));
            ++soldOut;
        }
    }
    QCOMPARE(ok, 20);
    QCOMPARE(soldOut, 5);
    QCOMPARE(cents, 2000);
    const Result again = lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), id, QStringLiteral("--uid"), QStringLiteral("1")});
    QCOMPARE(again.json().value(QLatin1String("status")).toString(), QStringLiteral("already"));

    LANTERND_VERIFY_OK(lanternd.run(cliArgs({"work", "--once"})));
    const Result show = lanternd.run({QStringLiteral("campaign"), QStringLiteral("show"), QStringLiteral("--id"), id});
    LANTERND_VERIFY_OK(show);
    QCOMPARE(show.json().value(QLatin1String("grabbed_count")).toInteger(), 20);
    QCOMPARE(show.json().value(QLatin1String("remaining_count")).toInteger(), 0);
    QCOMPARE(show.json().value(QLatin1String("paid_count")).toInteger(), 20);
    QCOMPARE(show.json().value(QLatin1String("paid_cents")).toInteger(), 2000);
    QCOMPARE(show.json().value(QLatin1String("pools")).toArray().size(), pools > 1 ? pools : 0);
    LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("verify"), QStringLiteral("--campaign"), id}),
                          (QJsonObject{{QStringLiteral("ok"), true}, {QStringLiteral("violations"), QJsonArray{}}}));
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("campaign"), QStringLiteral("close"), QStringLiteral("--id"), id}));
    const Result queues = lanternd.run(cliArgs({"queues"}));
    LANTERND_VERIFY_OK(queues);
    QCOMPARE(queues.json().value(QLatin1String("dead_letter")).toInt(), 0);
    LANTERND_COMPARE_JSON(lanternd.run(cliArgs({"verify"})), (QJsonObject{{QStringLiteral("ok"), true}, {QStringLiteral("violations"), QJsonArray{}}}));
}

void TestCliCluster::oneNodesUrlIsEnough()
{
    // --redis redis://host:port naming any node, a replica too: the cluster is found from there.
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    for (const int port : {m_cluster.ports().at(1), m_cluster.ports().at(4)}) {
        const Lanternd lanternd(QStringLiteral("redis://127.0.0.1:%1").arg(port), sql.url, lantern::test::uniquePrefix(), QStringLiteral("2026-11-23"));
        for (int uid = 1; uid <= 16; ++uid)
            LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QString::number(uid)}));
    }
}

void TestCliCluster::deadFirstSeed()
{
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd(withDeadFirstSeed(m_cluster.urlText()), sql.url, lantern::test::uniquePrefix(), QStringLiteral("2026-11-23"));
    for (int uid = 1; uid <= 16; ++uid)
        LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QString::number(uid)}));
}

void TestCliCluster::noSeedAnswersIsAnOutage()
{
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const QString url = QStringLiteral("redis://127.0.0.1:%1,127.0.0.1:%2").arg(lantern::test::pickPrivatePort()).arg(lantern::test::pickPrivatePort());
    const Lanternd lanternd(url, sql.url, lantern::test::uniquePrefix(), QStringLiteral("2026-11-23"));
    const Result result = lanternd.run(cliArgs({"checkin", "--uid", "1"}));
    QVERIFY2(result.exitCode == 3, result.describe().constData());
    QVERIFY2(result.err.contains("no seed of the Redis Cluster"), result.describe().constData());
    QVERIFY(result.out.isEmpty());
}

void TestCliCluster::badUrlsAreRefused_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("stderrHas");
    const QString seeds = m_cluster.urlText();
    const QString first = QStringLiteral("redis://127.0.0.1:%1").arg(m_cluster.ports().first());
    QTest::newRow("an empty seed") << QStringLiteral("redis://127.0.0.1:1,,127.0.0.1:2") << QStringLiteral("seed 2 of the list is empty");
    QTest::newRow("a bad port in a seed") << QStringLiteral("redis://127.0.0.1:1,127.0.0.1:70000") << QStringLiteral("invalid Redis URL 'redis://127.0.0.1:70000'");
    QTest::newRow("a seed list with a database") << seeds + QStringLiteral("/2") << QStringLiteral("only database 0");
    QTest::newRow("one node's URL with a database") << first + QStringLiteral("/1") << QStringLiteral("only database 0");
    const lantern::RedisUrl single = lantern::test::redisUrl();
    QTest::newRow("a seed list of a server that is not a cluster")
            << QStringLiteral("redis://%1:%2,%1:%2").arg(single.host).arg(single.port) << QStringLiteral("is not a cluster node");
}

void TestCliCluster::badUrlsAreRefused()
{
    QFETCH(QString, url);
    QFETCH(QString, stderrHas);
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd(url, sql.url, lantern::test::uniquePrefix(), QStringLiteral("2026-11-23"));
    const Result result = lanternd.run(cliArgs({"checkin", "--uid", "1"}));
    QVERIFY2(result.exitCode == 2, result.describe().constData());
    QVERIFY2(result.err.contains(stderrHas.toUtf8()), result.describe().constData());
    QVERIFY(result.out.isEmpty());
    // Refused before anything was opened: the SQLite file holds not even the schema.
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM sqlite_master")), 0);
}

void TestCliCluster::badInputWritesNothingOnACluster()
{
    // The same refusals as on one server (exit 2, a message, nothing written), with the keys of
    // every master compared before and after, and a live campaign they could have touched.
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const QString prefix = lantern::test::uniquePrefix();
    const Lanternd lanternd(m_cluster.urlText(), sql.url, prefix, QStringLiteral("2026-11-23"));
    LANTERND_LAUNCH_CAMPAIGN(id, lanternd, cliArgs({"--name", "gala", "--total-cents", "500", "--count", "5"}));
    LANTERND_VERIFY_OK(lanternd.run(cliArgs({"checkin", "--uid", "5"})));

    lantern::RedisClient redis(m_cluster.url());
    const RedisSnapshot before = snapshotRedis(redis, prefix.toUtf8());
    QVERIFY(before.keys.size() > 3);
    const SqlSnapshot sqlBefore = snapshotSql(sql.db);
    const QList<QStringList> refusals{
            {QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("-3")},
            {QStringLiteral("makeup"), QStringLiteral("--uid"), QStringLiteral("5"), QStringLiteral("--date"), QStringLiteral("2026-11-31"),
             QStringLiteral("--reason"), QStringLiteral("x"), QStringLiteral("--operator"), QStringLiteral("alice")},
            {QStringLiteral("grab"), QStringLiteral("--campaign"), id, QStringLiteral("--uid"), QStringLiteral("abc")},
            {QStringLiteral("campaign"), QStringLiteral("create"), QStringLiteral("--name"), QStringLiteral("bad"), QStringLiteral("--total-cents"),
             QStringLiteral("3"), QStringLiteral("--count"), QStringLiteral("5")},
            {QStringLiteral("calendar"), QStringLiteral("--uid"), QStringLiteral("5"), QStringLiteral("--month"), QStringLiteral("2026-13")}};
    for (const QStringList &arguments : refusals) {
        const Result result = lanternd.run(arguments);
        QVERIFY2(result.exitCode == 2, result.describe().constData());
        QVERIFY2(!result.err.isEmpty() && result.out.isEmpty(), result.describe().constData());
    }
    const RedisSnapshot after = snapshotRedis(redis, prefix.toUtf8());
    QVERIFY2(after.keys == before.keys, before.describeChange(after).constData());
    QCOMPARE(snapshotSql(sql.db), sqlBefore);
}

void TestCliCluster::serveOnACluster_data()
{
    QTest::addColumn<bool>("seedList");
    QTest::addColumn<int>("pools");
    QTest::addColumn<bool>("grabWait");
    QTest::newRow("the seed list") << true << 1 << false;
    QTest::newRow("one node's URL") << false << 1 << false;
    QTest::newRow("3 sub-pools, grab-wait 1/2000") << true << 3 << true;
}

void TestCliCluster::serveOnACluster()
{
    // The event loops' pipes route each script to the master of its slot: check-ins of users on
    // every shard (so every master), and grabs on one campaign, answered as on one server.
    QFETCH(bool, seedList);
    QFETCH(int, pools);
    QFETCH(bool, grabWait);
    const QString url = seedList ? m_cluster.urlText() : QStringLiteral("redis://127.0.0.1:%1").arg(m_cluster.ports().first());
    const QString secret = QStringLiteral("cluster-serve-secret");
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    Lanternd lanternd(url, sql.url, lantern::test::uniquePrefix(), QStringLiteral("2026-11-23"));
    lanternd.defaults.insert(QStringLiteral("token-secret"), secret);
    if (grabWait)
        lanternd.defaults.insert(QStringLiteral("grab-wait"), QStringLiteral("1/2000"));
    const auto bearer = [&](qint64 uid) {
        return lantern::UserTokens(QStringLiteral("lantern"), secret.toUtf8()).mintBearer(uid, QDateTime::currentSecsSinceEpoch() + 3600);
    };
    const Result created = lanternd.run(cliArgs({"campaign", "create", "--name", "gala", "--total-cents", "2000", "--count", "20", "--seed", "5"})
                                        << QStringLiteral("--pools") << QString::number(pools));
    LANTERND_VERIFY_OK(created);
    const QString id = QString::number(created.json().value(QLatin1String("id")).toInteger());
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("campaign"), QStringLiteral("launch"), QStringLiteral("--id"), id}));

    ServeClient server(lanternd);
    QVERIFY2(server.waitListening(), server.stderrText().constData());
    for (int uid = 1; uid <= 20; ++uid) {
        const HttpReply reply = server.request("POST", QStringLiteral("/v1/checkin"), bearer(uid));
        QVERIFY2(reply.status == 200, reply.describe().constData());
        QCOMPARE(reply.json().value(QLatin1String("already")).toBool(), false);
        QCOMPARE(reply.json().value(QLatin1String("streak")).toInt(), 1);
    }
    const HttpReply again = server.request("POST", QStringLiteral("/v1/checkin"), bearer(7));
    QVERIFY2(again.status == 200, again.describe().constData());
    QCOMPARE(again.json().value(QLatin1String("already")).toBool(), true);

    const QString grabPath = QStringLiteral("/v1/campaigns/%1/grab").arg(id);
    qint64 cents = 0;
    int ok = 0;
    for (int uid = 1; uid <= 25; ++uid) {
        const HttpReply reply = server.request("POST", grabPath, bearer(uid));
        QVERIFY2(reply.status == 200, reply.describe().constData());
        const QString status = reply.json().value(QLatin1String("status")).toString();
        if (status == QLatin1String("ok")) {
            ++ok;
            cents += reply.json().value(QLatin1String("amount_cents")).toInteger();
            // With grab-wait, the pipe sent WAIT to the master that ran the script: its replica had it.
            QCOMPARE(reply.json().value(QLatin1String("replicas")).toInt(-1), grabWait ? 1 : -1);
        } else {
            QCOMPARE(status, QStringLiteral("sold_out"));
        }
    }
    QCOMPARE(ok, 20);
    QCOMPARE(cents, 2000);
    const HttpReply shown = server.request("GET", QStringLiteral("/v1/campaigns/%1").arg(id), bearer(3));
    QCOMPARE(shown.json().value(QLatin1String("grabbed_count")).toInt(), 20);  // every pool's, summed
    QCOMPARE(shown.json().value(QLatin1String("remaining_count")).toInt(), 0);
    QCOMPARE(server.request("POST", grabPath, bearer(3)).json().value(QLatin1String("status")).toString(), QStringLiteral("already"));
    const HttpReply calendar = server.request("GET", QStringLiteral("/v1/calendar?month=2026-11"), bearer(7));
    QVERIFY2(calendar.status == 200, calendar.describe().constData());
    QCOMPARE(calendar.json().value(QLatin1String("signed")).toArray(), QJsonArray{23});
    QCOMPARE(server.stop().first, 0);

    // What the API admitted is what the worker persists and pays.
    LANTERND_VERIFY_OK(lanternd.run(cliArgs({"work", "--once"})));
    const Result reconcile = lanternd.run(cliArgs({"reconcile", "--date", "2026-11-23"}));
    LANTERND_VERIFY_OK(reconcile);
    QCOMPARE(reconcile.json().value(QLatin1String("redis_count")).toInt(), 20);
    QCOMPARE(reconcile.json().value(QLatin1String("missing")).toInt(), 0);
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("verify"), QStringLiteral("--campaign"), id}));
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COALESCE(SUM(amount_cents), 0) FROM payout WHERE campaign_id = ? AND status = 'paid'"),
                       {id.toLongLong()}),
             2000);
}

void TestCliCluster::campaignRepairOnACluster()
{
    // Its snapshot is one MULTI in the campaign's slot; the worker registry, in another slot, is
    // read before and after it.
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd(m_cluster.urlText(), sql.url, lantern::test::uniquePrefix(), QStringLiteral("2026-11-23"));
    LANTERND_LAUNCH_CAMPAIGN(id, lanternd, cliArgs({"--name", "gala", "--total-cents", "500", "--count", "5"}));
    for (const char *uid : {"1", "2"})
        LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), id, QStringLiteral("--uid"), QLatin1String(uid)}));
    LANTERND_VERIFY_OK(lanternd.run(cliArgs({"work", "--once"})));
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), id, QStringLiteral("--uid"), QStringLiteral("3")}));
    const Result repair = lanternd.run({QStringLiteral("campaign"), QStringLiteral("repair"), QStringLiteral("--id"), id});
    LANTERND_VERIFY_OK(repair);
    QCOMPARE(repair.json().value(QLatin1String("grabbed_count")).toInteger(), 3);  // two in the ledger, one on its way
    const Result again = lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), id, QStringLiteral("--uid"), QStringLiteral("3")});
    QCOMPARE(again.json().value(QLatin1String("status")).toString(), QStringLiteral("already"));
    const Result next = lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), id, QStringLiteral("--uid"), QStringLiteral("4")});
    QCOMPARE(next.json().value(QLatin1String("status")).toString(), QStringLiteral("ok"));
    LANTERND_VERIFY_OK(lanternd.run(cliArgs({"work", "--once"})));
    LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("verify"), QStringLiteral("--campaign"), id}),
                          (QJsonObject{{QStringLiteral("ok"), true}, {QStringLiteral("violations"), QJsonArray{}}}));
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = 'campaign.repair'")), 1);

    // A campaign of three sub-pools, one on each master: every pool rebuilt, each under its own lock.
    LANTERND_LAUNCH_CAMPAIGN(pooledId, lanternd, cliArgs({"--name", "gala", "--total-cents", "900", "--count", "9", "--pools", "3"}));
    for (int uid = 1; uid <= 5; ++uid)
        LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), pooledId, QStringLiteral("--uid"), QString::number(uid)}));
    const Result rebuilt = lanternd.run({QStringLiteral("campaign"), QStringLiteral("repair"), QStringLiteral("--id"), pooledId});
    LANTERND_VERIFY_OK(rebuilt);
    QCOMPARE(rebuilt.json().value(QLatin1String("grabbed_count")).toInteger(), 5);
    QCOMPARE(rebuilt.json().value(QLatin1String("pool_after")).toInteger(), 4);
    for (int uid = 6; uid <= 10; ++uid) {
        const Result grab = lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), pooledId, QStringLiteral("--uid"), QString::number(uid)});
        QCOMPARE(grab.json().value(QLatin1String("status")).toString(), uid <= 9 ? QStringLiteral("ok") : QStringLiteral("sold_out"));
    }
    LANTERND_VERIFY_OK(lanternd.run(cliArgs({"work", "--once"})));
    LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("verify"), QStringLiteral("--campaign"), pooledId}),
                          (QJsonObject{{QStringLiteral("ok"), true}, {QStringLiteral("violations"), QJsonArray{}}}));
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = 'campaign.repair'")), 2);
}

void TestCliCluster::grabWaitsForTheReplica()
{
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd(m_cluster.urlText(), sql.url, lantern::test::uniquePrefix(), QStringLiteral("2026-11-23"));
    LANTERND_LAUNCH_CAMPAIGN(id, lanternd, cliArgs({"--name", "gala", "--total-cents", "500", "--count", "5"}));
    for (const char *bad : {"0/50", "1", "1/0", "17/50", "1/10001", "one/50", "1/50/2"}) {
        const Result refused = lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), id, QStringLiteral("--uid"), QStringLiteral("1"),
                                             QStringLiteral("--grab-wait"), QLatin1String(bad)});
        QVERIFY2(refused.exitCode == 2, refused.describe().constData());
        QVERIFY2(refused.err.contains("invalid"), refused.describe().constData());
    }
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM grab")), 0);
    const Result first = lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), id, QStringLiteral("--uid"), QStringLiteral("1"),
                                       QStringLiteral("--grab-wait"), QStringLiteral("1/2000")});
    LANTERND_VERIFY_OK(first);
    QCOMPARE(first.json().value(QLatin1String("status")).toString(), QStringLiteral("ok"));
    QCOMPARE(first.json().value(QLatin1String("replicas")).toInt(-1), 1);
    const Result plain = lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), id, QStringLiteral("--uid"), QStringLiteral("2")});
    QVERIFY(!plain.json().contains(QLatin1String("replicas")));  // off by default: the contract's reply as it was
}

void TestCliCluster::migrateRedisOnACluster()
{
    // The old layout of 20 users (16 shards, so every master): migrate-redis SCANs every master
    // and moves each user-month in its slot; a second run finds nothing. An old key whose shard
    // tag is not the uid's shard today cannot move in one slot: exit 2, nothing written.
    const QString prefix = lantern::test::uniquePrefix();
    const lantern::KeySchema keys(prefix);
    lantern::RedisClient redis(m_cluster.url());
    const QDate month(2026, 3, 1);
    for (qint64 uid = 1; uid <= 20; ++uid) {
        for (const int day : {1, 2})
            redis.command({"SETBIT", keys.signBits(uid, month), QByteArray::number(day - 1), "1"});
        redis.command({"SADD", keys.daySet(keys.shardOf(uid), month), QByteArray::number(uid)});
        redis.command({"SADD", keys.daySet(keys.shardOf(uid), month.addDays(1)), QByteArray::number(uid)});
    }
    redis.command({"SETBIT", keys.makeupBits(7, month), "1", "1"});
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd(m_cluster.urlText(), sql.url, prefix, QStringLiteral("2026-03-05"));

    LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("migrate-redis"), QStringLiteral("--scan-count"), QStringLiteral("10")}),
                          (QJsonObject{{QStringLiteral("dry_run"), false},
                                       {QStringLiteral("user_months"), 20},
                                       {QStringLiteral("migrated"), 20},
                                       {QStringLiteral("day_sets"), 32},  // 16 shards x 2 days
                                       {QStringLiteral("day_sets_removed"), 32}}));
    for (int uid = 1; uid <= 20; ++uid) {
        const Result calendar = lanternd.run({QStringLiteral("calendar"), QStringLiteral("--uid"), QString::number(uid),
                                              QStringLiteral("--month"), QStringLiteral("2026-03")});
        LANTERND_VERIFY_OK(calendar);
        QCOMPARE(calendar.json().value(QStringLiteral("signed")).toArray(), (QJsonArray{1, 2}));
        QCOMPARE(calendar.json().value(QStringLiteral("makeup")).toArray(), uid == 7 ? QJsonArray{2} : QJsonArray{});
    }
    LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("migrate-redis")}), (QJsonObject{{QStringLiteral("dry_run"), false},
                                                                                        {QStringLiteral("user_months"), 0},
                                                                                        {QStringLiteral("migrated"), 0},
                                                                                        {QStringLiteral("day_sets"), 0},
                                                                                        {QStringLiteral("day_sets_removed"), 0}}));

    const QByteArray stray = lantern::KeySchema(prefix, 5).signBits(7, month);  // {ck:2}; uid 7 is in {ck:7} now
    redis.command({"SETBIT", stray, "0", "1"});
    const RedisSnapshot before = snapshotRedis(redis, prefix.toUtf8());
    const Result refused = lanternd.run({QStringLiteral("migrate-redis")});
    QVERIFY2(refused.exitCode == 2, refused.describe().constData());
    QVERIFY2(refused.err.contains(stray) && refused.out.isEmpty(), refused.describe().constData());
    const RedisSnapshot after = snapshotRedis(redis, prefix.toUtf8());
    QVERIFY2(after.keys == before.keys, before.describeChange(after).constData());
}

void TestCliCluster::serveCountsRedirects()
{
    // A grab after the campaign's slot moved to another master meets -MOVED; /metrics counts it.
    const QString secret = QStringLiteral("cluster-serve-secret");
    const QString prefix = lantern::test::uniquePrefix();
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    Lanternd lanternd(m_cluster.urlText(), sql.url, prefix, QStringLiteral("2026-11-23"));
    lanternd.defaults.insert(QStringLiteral("token-secret"), secret);
    const auto bearer = [&](qint64 uid) {
        return lantern::UserTokens(QStringLiteral("lantern"), secret.toUtf8()).mintBearer(uid, QDateTime::currentSecsSinceEpoch() + 3600);
    };
    const Result created = lanternd.run(cliArgs({"campaign", "create", "--name", "gala", "--total-cents", "1000", "--count", "10"}));
    LANTERND_VERIFY_OK(created);
    const qint64 id = created.json().value(QLatin1String("id")).toInteger();
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("campaign"), QStringLiteral("launch"), QStringLiteral("--id"), QString::number(id)}));
    const int slot = m_cluster.keySlot(lantern::KeySchema(prefix).campaignMeta(id));
    const int home = m_cluster.masterOf(slot);
    int away = 0;
    for (const int master : m_cluster.masters())
        away = master != home ? master : away;

    ServeClient server(lanternd);
    QVERIFY2(server.waitListening(), server.stderrText().constData());
    const QString grabPath = QStringLiteral("/v1/campaigns/%1/grab").arg(id);
    const auto counter = [&](const QByteArray &kind) {
        const HttpReply metrics = server.request("GET", QStringLiteral("/metrics"));
        const QByteArray series = "lantern_redis_cluster_replies_total{kind=\"" + kind + "\"} ";
        for (const QByteArray &line : metrics.body.split('\n')) {
            if (line.startsWith(series))
                return line.mid(series.size()).toLongLong();
        }
        return qint64(-1);
    };
    QCOMPARE(server.request("POST", grabPath, bearer(1)).json().value(QLatin1String("status")).toString(), QStringLiteral("ok"));
    QCOMPARE(counter("moved"), qint64(0));
    m_cluster.moveSlot(slot, away);
    QCOMPARE(server.request("POST", grabPath, bearer(2)).json().value(QLatin1String("status")).toString(), QStringLiteral("ok"));
    const qint64 moved = counter("moved");
    m_cluster.moveSlot(slot, home);
    QVERIFY2(moved >= 1, qPrintable(QString::number(moved)));
    QCOMPARE(counter("ask"), qint64(0));
    QCOMPARE(server.stop().first, 0);
}

LANTERN_TEST_SUITE(TestCliCluster);

} // namespace tst_cli_cluster

#include "tst_cli_cluster.moc"
