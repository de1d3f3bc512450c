// MariaDB stopped for a while during a drain (issue 3): a long-running `lanternd work` backs off
// and stays alive, grabs and check-ins keep landing in Redis meanwhile, nothing in its backup
// list is lost, and once the server is back the backlog drains: every grab persisted and paid
// exactly once (SQL and the provider's own ledger agree), every check-in row present.
// The test runs its own MariaDB, because it stops and restarts it.
#include "clitest.h"
#include "privatemariadb.h"
#include "privateredis.h"

#include "checkin/checkinservice.h"
#include "envelope/grabservice.h"
#include "envelope/payouttask.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testsuite.h"

#include <QDateTime>
#include <QMap>
#include <QProcess>
#include <QScopeGuard>
#include <QSqlQuery>
#include <QTest>

namespace tst_cli_outage {

using namespace lantern;
using namespace lantern::test;
using namespace lantern::test::cli;

namespace {

constexpr qint64 Envelopes = 200;
constexpr qint64 Total = 2'000'000;
constexpr qint64 GrabsBefore = 150;       // through the library, before the outage
constexpr qint64 CliGrabsDuring = 10;     // through `lanternd grab`, while MariaDB is down
constexpr qint64 CheckinsBefore = 100;
constexpr qint64 CheckinsDuring = 40;     // through the library, while MariaDB is down
constexpr qint64 CliCheckinsDuring = 3;   // through `lanternd checkin`, while MariaDB is down
const QDate Today(2024, 5, 10);

/** uid -> (seq, amount) of every grab that won an envelope. */
using Winners = QMap<qint64, std::pair<qint64, qint64>>;

QByteArrayList listEntries(RedisClient &redis, const QByteArray &key)
{
    QByteArrayList entries;
    for (const RedisValue &value : redis.command({"LRANGE", key, "0", "-1"}).elements)
        entries << value.toBytes();
    return entries;
}

qint64 checkinListsDepth(RedisClient &redis, const KeySchema &keys, const QString &worker)
{
    qint64 depth = 0;
    for (int shard = 0; shard < keys.shards(); ++shard) {
        depth += redis.command({"LLEN", keys.checkinQueue(shard)}).toInteger();
        depth += redis.command({"LLEN", keys.checkinBackup(shard, worker)}).toInteger();
    }
    return depth;
}

qint64 checkinDeadLetters(RedisClient &redis, const KeySchema &keys)
{
    qint64 depth = 0;
    for (int shard = 0; shard < keys.shards(); ++shard)
        depth += redis.command({"LLEN", keys.checkinDeadLetter(shard)}).toInteger();
    return depth;
}

} // namespace

class TestCliOutage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void workerOutlivesMariaDbOutage();
    void workerStopsCleanlyRightAfterARedisRestart();
};

void TestCliOutage::workerOutlivesMariaDbOutage()
{
    PrivateMariaDb server;
    const DbUrl db = server.createDatabase(QStringLiteral("lantern_outage"));
    const QString prefix = QStringLiteral("outage%1:").arg(QCoreApplication::applicationPid());
    const Lanternd lanternd(redisUrlText(), PrivateMariaDb::urlText(db), prefix, Today.toString(Qt::ISODate));
    const QString workerId = QStringLiteral("outage-worker");
    RedisClient redis(redisUrlOf());
    const KeySchema keys(prefix);
    // Declared before the worker, so it runs once the worker is gone, pass or fail.
    const auto cleanup = qScopeGuard([&redis, &prefix] {
        try {
            deleteKeys(redis, prefix.toUtf8());
        } catch (const std::exception &error) {
            qWarning("could not delete the test's keys: %s", error.what());
        }
    });

    LANTERND_LAUNCH_CAMPAIGN(id, lanternd, (QStringList{QStringLiteral("--name"), QStringLiteral("outage"),
                                                        QStringLiteral("--total-cents"), QString::number(Total), QStringLiteral("--count"),
                                                        QString::number(Envelopes)}));
    const qint64 campaign = id.toLongLong();

    // The backlog: grabs and check-ins queued in Redis before any worker runs.
    GrabService grabs(redis, keys);
    CheckinService checkins(redis, keys, CheckinRules{});
    Winners winners;
    QMap<qint64, int> checkinPoints;  // uid -> points granted
    for (qint64 uid = 1; uid <= GrabsBefore; ++uid) {
        const GrabOutcome outcome = grabs.grab(campaign, uid, QDateTime::currentMSecsSinceEpoch());
        QCOMPARE(outcome.status, QStringLiteral("ok"));
        winners.insert(uid, {outcome.seq, outcome.amountCents});
    }
    for (qint64 uid = 1; uid <= CheckinsBefore; ++uid) {
        const CheckinOutcome outcome = checkins.checkin(uid, Today, Today, QDateTime::currentMSecsSinceEpoch());
        QVERIFY(!outcome.already);
        checkinPoints.insert(uid, outcome.points);
    }

    // A long-running worker with a slow provider that fails a tenth of its calls, small batches
    // (so a batch is always in flight), one payout at a time (so the outage comes while payouts
    // are still to make, however fast the machine) and a 2 s heartbeat.
    QProcess worker;
    QProcessEnvironment environment = sandboxEnvironment();
    environment.insert(QStringLiteral("LANTERN_PAYOUT_DELAY_MS"), QStringLiteral("5"));
    environment.insert(QStringLiteral("LANTERN_PAYOUT_FAIL_RATE"), QStringLiteral("0.1"));
    environment.insert(QStringLiteral("LANTERN_HEARTBEAT_TTL_S"), QStringLiteral("2"));
    worker.setProcessEnvironment(environment);
    worker.start(QStringLiteral(LANTERND_PATH),
                 lanternd.withDefaults({QStringLiteral("work"), QStringLiteral("--id"), workerId, QStringLiteral("--batch"), QStringLiteral("20"),
                                        QStringLiteral("--in-flight"), QStringLiteral("1")}));
    QVERIFY(worker.waitForStarted());
    QByteArray workerErr;
    const auto workerStderr = [&]() -> const QByteArray & {
        workerErr += worker.readAllStandardError();
        return workerErr;
    };

    // Part of the backlog persisted: every check-in and some payouts, not all of them.
    const QString paidQuery = QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ? AND status = 'paid'");
    const QString checkinQuery = QStringLiteral("SELECT COUNT(*) FROM checkin_log WHERE day = ?");
    QTRY_VERIFY2_WITH_TIMEOUT(sqlNumber(db, checkinQuery, {Today.toString(Qt::ISODate)}) == CheckinsBefore
                                      && sqlNumber(db, paidQuery, {campaign}) >= 30,
                              workerStderr().constData(), 20000);
    QVERIFY(sqlNumber(db, paidQuery, {campaign}) < GrabsBefore);

    // MariaDB goes away mid-drain.
    server.stop();
    // The worker notices at its next statement and backs off. From then on it touches nothing
    // until SQL is back: the batch it was persisting stays in its backup list, exactly as it is.
    const QByteArray backupKey = keys.campaignBackup(campaign, workerId);
    QTRY_VERIFY2_WITH_TIMEOUT(workerStderr().contains("retrying in 100 ms"), workerStderr().constData(), 10000);
    const QByteArrayList inFlight = listEntries(redis, backupKey);
    QVERIFY2(!inFlight.isEmpty(), "the outage hit between batches: nothing was in flight");
    for (const QByteArray &entry : inFlight)
        QVERIFY2(PayoutTask::fromJson(entry).has_value(), entry.constData());

    // The hot paths need Redis only: grabs and check-ins go on, from the CLI too.
    for (qint64 uid = GrabsBefore + 1; uid <= Envelopes - CliGrabsDuring; ++uid) {
        const GrabOutcome outcome = grabs.grab(campaign, uid, QDateTime::currentMSecsSinceEpoch());
        QCOMPARE(outcome.status, QStringLiteral("ok"));
        winners.insert(uid, {outcome.seq, outcome.amountCents});
    }
    for (qint64 uid = Envelopes - CliGrabsDuring + 1; uid <= Envelopes + 3; ++uid) {
        const Result grabbed = lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), id, QStringLiteral("--uid"), QString::number(uid)});
        LANTERND_VERIFY_OK(grabbed);
        const QJsonObject reply = grabbed.json();
        if (uid > Envelopes) {
            QCOMPARE(reply.value(QLatin1String("status")).toString(), QStringLiteral("sold_out"));
            continue;
        }
        QCOMPARE(reply.value(QLatin1String("status")).toString(), QStringLiteral("ok"));
        winners.insert(uid, {reply.value(QLatin1String("envelope")).toInteger(), reply.value(QLatin1String("amount_cents")).toInteger()});
    }
    QCOMPARE(qint64(winners.size()), Envelopes);
    const qint64 firstOutageCheckin = CheckinsBefore + 1;
    for (qint64 uid = firstOutageCheckin; uid < firstOutageCheckin + CheckinsDuring; ++uid) {
        const CheckinOutcome outcome = checkins.checkin(uid, Today, Today, QDateTime::currentMSecsSinceEpoch());
        QVERIFY(!outcome.already);
        checkinPoints.insert(uid, outcome.points);
    }
    for (qint64 uid = firstOutageCheckin + CheckinsDuring; uid < firstOutageCheckin + CheckinsDuring + CliCheckinsDuring; ++uid) {
        const Result signedIn = lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QString::number(uid)});
        LANTERND_VERIFY_OK(signedIn);
        QCOMPARE(signedIn.json().value(QLatin1String("already")).toBool(), false);
        checkinPoints.insert(uid, signedIn.json().value(QLatin1String("points")).toInt());
    }

    // It keeps backing off, doubling its wait: 100 + 200 + 400 + 800 + 1600 ms so far, longer
    // than the heartbeat's 2 s TTL. Alive, and its backup list untouched.
    QTRY_VERIFY2_WITH_TIMEOUT(workerStderr().contains("retrying in 3200 ms"), workerStderr().constData(), 15000);
    QCOMPARE(worker.state(), QProcess::Running);
    QVERIFY2(workerStderr().contains(QStringLiteral("127.0.0.1:%1").arg(server.port()).toUtf8()), workerStderr().constData());
    QCOMPARE(listEntries(redis, backupKey), inFlight);
    // Every check-in made during the outage waits in a queue; the earlier ones were all persisted.
    QCOMPARE(checkinListsDepth(redis, keys, workerId), CheckinsDuring + CliCheckinsDuring);
    // A worker waiting for SQL is alive: recovery must not take it for dead.
    QCOMPARE(redis.command({"EXISTS", keys.workerHeartbeat(workerId)}).toInteger(), 1LL);

    // MariaDB comes back on the same data directory and port; the backlog drains.
    server.start();
    const auto drained = [&] {
        return redis.command({"LLEN", keys.campaignTasks(campaign)}).toInteger() == 0 && redis.command({"LLEN", backupKey}).toInteger() == 0
                && checkinListsDepth(redis, keys, workerId) == 0 && sqlNumber(db, paidQuery, {campaign}) == Envelopes
                && sqlNumber(db, checkinQuery, {Today.toString(Qt::ISODate)}) == qint64(checkinPoints.size());
    };
    QTRY_VERIFY2_WITH_TIMEOUT(drained(), workerStderr().constData(), 20000);
    QCOMPARE(worker.state(), QProcess::Running);

    // Every grab: exactly its row, one paid payout of its amount.
    SqlConnection sql(db);
    Winners persisted;
    qint64 grabRows = 0;
    QSqlQuery rows = sql.exec(QStringLiteral("SELECT uid, seq, amount_cents FROM grab WHERE campaign_id = ?"), {campaign});
    for (; rows.next(); ++grabRows)
        persisted.insert(rows.value(0).toLongLong(), {rows.value(1).toLongLong(), rows.value(2).toLongLong()});
    QCOMPARE(grabRows, Envelopes);
    QCOMPARE(persisted, winners);
    QCOMPARE(sqlNumber(db, QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ?"), {campaign}), Envelopes);
    QCOMPARE(sqlNumber(db, QStringLiteral("SELECT COUNT(*) FROM grab g JOIN payout p ON p.campaign_id = g.campaign_id AND p.seq = g.seq "
                                          "AND p.uid = g.uid AND p.amount_cents = g.amount_cents WHERE g.campaign_id = ? AND p.status = 'paid'"),
                       {campaign}),
             Envelopes);
    QCOMPARE(sqlNumber(db, QStringLiteral("SELECT SUM(amount_cents) FROM payout WHERE campaign_id = ? AND status = 'paid'"), {campaign}), Total);
    QCOMPARE(redis.command({"LLEN", keys.campaignDeadLetter(campaign)}).toInteger(), 0LL);

    // The provider paid each envelope once, the amount SQL recorded, whatever the outage did.
    SimulatedPayoutGateway provider(redis, keys.prefix(), {}, 0);
    QCOMPARE(provider.ledgerSize(), Envelopes);
    QCOMPARE(provider.ledgerTotalCents(), Total);
    QSqlQuery payouts = sql.exec(QStringLiteral("SELECT idempotency_key, amount_cents FROM payout WHERE campaign_id = ?"), {campaign});
    while (payouts.next())
        QCOMPARE(provider.paidAmount(payouts.value(0).toString()), std::optional<qint64>(payouts.value(1).toLongLong()));
    for (const QByteArray &entry : inFlight)
        QVERIFY(provider.paidAmount(PayoutTask::fromJson(entry)->idempotencyKey()).has_value());

    const Result verified = lanternd.run({QStringLiteral("verify"), QStringLiteral("--campaign"), id});
    LANTERND_VERIFY_OK(verified);
    QVERIFY2(verified.json().value(QLatin1String("ok")).toBool(), verified.out.constData());

    // Every check-in: its row, its points, once.
    QMap<qint64, int> checkinRows;
    QSqlQuery logs = sql.exec(QStringLiteral("SELECT uid, points FROM checkin_log WHERE day = ? AND kind = 'normal'"), {Today.toString(Qt::ISODate)});
    while (logs.next())
        checkinRows.insert(logs.value(0).toLongLong(), logs.value(1).toInt());
    QCOMPARE(checkinRows, checkinPoints);
    qint64 points = 0;
    for (const int granted : std::as_const(checkinPoints))
        points += granted;
    QCOMPARE(sqlNumber(db, QStringLiteral("SELECT COUNT(*) FROM points_ledger WHERE source = 'checkin'")), qint64(checkinPoints.size()));
    QCOMPARE(sqlNumber(db, QStringLiteral("SELECT SUM(delta) FROM points_ledger")), points);
    QCOMPARE(checkinDeadLetters(redis, keys), 0LL);

    // SIGTERM: the worker finishes cleanly.
    worker.terminate();
    QVERIFY(worker.waitForFinished(10000));
    const QByteArray workerOut = worker.readAllStandardOutput();
    QVERIFY2(worker.exitStatus() == QProcess::NormalExit && worker.exitCode() == 0, QByteArray(workerOut + workerStderr()).constData());
    QCOMPARE(QJsonDocument::fromJson(workerOut).object().value(QLatin1String("worker")).toString(), workerId);
}

LANTERN_TEST_SUITE(TestCliOutage);

void TestCliOutage::workerStopsCleanlyRightAfterARedisRestart()
{
    // An idle worker holds a connection between its beats; the server behind it restarts. Asked
    // to stop right then, its first command would go to the connection the new server never knew:
    // the client sees the hang-up first and connects afresh (RedisConnection::isUsable), so the
    // worker prints its figures and exits 0 instead of dying with "closed the connection" (exit 3).
    PrivateRedis server;
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const QString prefix = QStringLiteral("outrs:");
    const Lanternd lanternd(server.urlText(), sql.url, prefix);
    const KeySchema keys(prefix);
    const QString id = QStringLiteral("restart-1");
    WorkerProcess worker(lanternd, id);
    {
        RedisClient redis(server.url());
        QTRY_VERIFY_WITH_TIMEOUT(redis.command({"EXISTS", keys.workerHeartbeat(id)}).toInteger() == 1, 15000);
    }
    server.stop(PrivateRedis::Stop::Kill);
    server.start();
    QVERIFY2(worker.stop(30000), worker.err().constData());
    QVERIFY2(worker.out().contains(id.toUtf8()), "no figures printed");
    RedisClient fresh(server.url());
    QCOMPARE(fresh.command({"EXISTS", keys.workerHeartbeat(id)}).toInteger(), 0LL);
}

} // namespace tst_cli_outage

#include "tst_cli_outage.moc"
