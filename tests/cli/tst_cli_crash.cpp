// Crash recovery for real: a `lanternd work` process killed with SIGKILL while payouts are slow
// and failing, and one killed with 64 payouts in flight at an HTTP provider that made the
// payments and had not answered yet; after `recover` and a drain every envelope is persisted once
// and paid exactly once (SQL and the provider's own ledger agree) and `verify` is clean.
#include "clitest.h"
#include "payoutprovider.h"

#include "envelope/grabservice.h"
#include "payout/payoutgateway.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testsuite.h"

#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QSqlQuery>
#include <QTest>

#include <csignal>

#include <sys/types.h>

namespace tst_cli_crash {

using namespace lantern;
using namespace lantern::test::cli;

class TestCliCrash : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanupTestCase() { dropFreshDatabases(); }
    void killedWorkerIsRecovered_data();
    void killedWorkerIsRecovered();
    void killedWithPayoutsInFlight_data() { killedWorkerIsRecovered_data(); }
    void killedWithPayoutsInFlight();
};

void TestCliCrash::killedWorkerIsRecovered_data()
{
    QTest::addColumn<QString>("dialect");
    for (const QString &dialect : dialects())
        QTest::newRow(qPrintable(dialect)) << dialect;
}

void TestCliCrash::killedWorkerIsRecovered()
{
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const QString prefix = QStringLiteral("crash%1_%2:").arg(QCoreApplication::applicationPid()).arg(dialect);
    const Lanternd lanternd(redisUrlText(), sql.url, prefix);
    constexpr qint64 Envelopes = 200;
    constexpr qint64 Total = 2'000'000;

    LANTERND_LAUNCH_CAMPAIGN(id, lanternd, (QStringList{QStringLiteral("--name"), QStringLiteral("crash"),
                                                        QStringLiteral("--total-cents"), QString::number(Total), QStringLiteral("--count"),
                                                        QString::number(Envelopes)}));

    // More users than envelopes grab through the library (the CLI path is tested elsewhere).
    RedisClient redis(redisUrlOf());
    const KeySchema keys(prefix);
    GrabService grabs(redis, keys);
    qint64 won = 0;
    for (qint64 uid = 1; uid <= Envelopes + 50; ++uid)
        won += grabs.grab(id.toLongLong(), uid, 1) .status == QLatin1String("ok") ? 1 : 0;
    QCOMPARE(won, Envelopes);

    // A worker with a slow, failing provider and a 1 s heartbeat, killed mid-drain.
    QProcess victim;
    QProcessEnvironment environment = sandboxEnvironment();
    environment.insert(QStringLiteral("LANTERN_PAYOUT_DELAY_MS"), QStringLiteral("15"));
    environment.insert(QStringLiteral("LANTERN_PAYOUT_FAIL_RATE"), QStringLiteral("0.3"));
    environment.insert(QStringLiteral("LANTERN_HEARTBEAT_TTL_S"), QStringLiteral("1"));
    victim.setProcessEnvironment(environment);
    // Batches of 20: a batch's payouts reach SQL together when it ends, so the kill lands between
    // batches that are recorded and batches that are paid but not yet recorded. One payout at a
    // time, so a batch takes long enough to be caught (at the default 128 in flight the whole
    // campaign can be paid before the first freeze; killedWithPayoutsInFlight covers that case).
    victim.start(QStringLiteral(LANTERND_PATH), lanternd.withDefaults({QStringLiteral("work"), QStringLiteral("--id"), QStringLiteral("victim"),
                                                                       QStringLiteral("--batch"), QStringLiteral("20"),
                                                                       QStringLiteral("--in-flight"), QStringLiteral("1")}));
    QVERIFY(victim.waitForStarted());
    const QString paidQuery = QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ? AND status = 'paid'");
    QTRY_VERIFY_WITH_TIMEOUT(sqlNumber(sql.db, paidQuery, {id.toLongLong()}) >= 20, 60000);
    // Kill it while it holds a batch: frozen (SIGSTOP, seen as state T), its backup list cannot
    // change; between two batches it is empty, so the worker runs on a little and is frozen again.
    const QByteArray backup = keys.campaignBackup(id.toLongLong(), QStringLiteral("victim"));
    const auto state = [&victim] {
        QFile stat(QStringLiteral("/proc/%1/stat").arg(victim.processId()));
        const QByteArray text = stat.open(QIODevice::ReadOnly) ? stat.readAll() : QByteArray();
        return text.mid(text.lastIndexOf(')') + 2, 1);  // the field after "(comm)"
    };
    bool holding = false;
    for (int attempt = 0; attempt < 200 && !holding && victim.state() == QProcess::Running; ++attempt) {
        test::signalChild(victim.processId(), SIGSTOP);
        QTRY_COMPARE_WITH_TIMEOUT(state(), QByteArray("T"), 5000);
        holding = redis.command({"LLEN", backup}).toInteger() > 0;
        if (!holding) {
            test::signalChild(victim.processId(), SIGCONT);
            QTRY_VERIFY_WITH_TIMEOUT(state() != "T", 5000);
        }
    }
    QVERIFY2(holding, "the worker was never caught holding a batch");
    victim.kill();  // SIGKILL: no cleanup of any kind
    QVERIFY(victim.waitForFinished(10000));
    QVERIFY(sqlNumber(sql.db, paidQuery, {id.toLongLong()}) < Envelopes);
    QVERIFY(redis.command({"LLEN", backup}).toInteger() > 0);

    // Its heartbeat expires; recovery takes its backup list back.
    QTRY_VERIFY_WITH_TIMEOUT(redis.command({"EXISTS", keys.workerHeartbeat(QStringLiteral("victim"))}).toInteger() == 0, 10000);
    const Result recovered = lanternd.run({QStringLiteral("recover")});
    LANTERND_VERIFY_OK(recovered);
    QCOMPARE(recovered.json().value(QLatin1String("reclaimed")).toInteger(), 1);
    QCOMPARE(redis.command({"LLEN", backup}).toInteger(), 0LL);

    // A healthy worker drains the rest while the provider still fails 30 % of calls.
    Lanternd rescuer = lanternd;
    rescuer.extraEnv.insert(QStringLiteral("LANTERN_PAYOUT_FAIL_RATE"), QStringLiteral("0.3"));
    const Result drained = rescuer.run({QStringLiteral("work"), QStringLiteral("--once"), QStringLiteral("--id"), QStringLiteral("rescuer")});
    LANTERND_VERIFY_OK(drained);

    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM grab WHERE campaign_id = ?"), {id.toLongLong()}), Envelopes);
    QCOMPARE(sqlNumber(sql.db, paidQuery, {id.toLongLong()}), Envelopes);
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT SUM(amount_cents) FROM payout WHERE campaign_id = ? AND status = 'paid'"),
                       {id.toLongLong()}),
             Total);
    // The provider paid each envelope exactly once, whatever the retries and the crash did.
    QCOMPARE(redis.command({"HLEN", keys.prefix() + "payoutsim:ledger"}).toInteger(), Envelopes);
    const Result verified = lanternd.run({QStringLiteral("verify"), QStringLiteral("--campaign"), id});
    LANTERND_VERIFY_OK(verified);
    QVERIFY2(verified.json().value(QLatin1String("ok")).toBool(), verified.out.constData());

    deleteKeys(redis, prefix.toUtf8());
}

void TestCliCrash::killedWithPayoutsInFlight()
{
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const QString prefix = QStringLiteral("inflight%1_%2:").arg(QCoreApplication::applicationPid()).arg(dialect);
    const Lanternd lanternd(redisUrlText(), sql.url, prefix);
    constexpr qint64 Envelopes = 300;
    constexpr qint64 Total = 3'000'000;
    constexpr int InFlight = 64;
    constexpr int AnsweredFirst = 40;
    constexpr int HeartbeatTtlS = 2;

    LANTERND_LAUNCH_CAMPAIGN(id, lanternd, (QStringList{QStringLiteral("--name"), QStringLiteral("inflight"),
                                                        QStringLiteral("--total-cents"), QString::number(Total), QStringLiteral("--count"),
                                                        QString::number(Envelopes)}));
    const qint64 campaign = id.toLongLong();
    RedisClient redis(redisUrlOf());
    const KeySchema keys(prefix);
    GrabService grabs(redis, keys);
    for (qint64 uid = 1; uid <= Envelopes; ++uid)
        QCOMPARE(grabs.grab(campaign, uid, 1).status, QStringLiteral("ok"));

    // The provider answers the first 40 payments, then pays and holds every answer back: a worker
    // with 64 payouts in flight whose provider has paid them and not said so yet.
    test::PayoutProvider provider;
    provider.holdAfter(AnsweredFirst);
    QProcess victim;
    QProcessEnvironment environment = sandboxEnvironment();
    environment.insert(QStringLiteral("LANTERN_PAYOUT_URL"), provider.url().toString());
    // The held answers stay held until the kill however slow the machine is: no call times out
    // and is sent again meanwhile.
    environment.insert(QStringLiteral("LANTERN_PAYOUT_TIMEOUT_MS"), QString::number(MaxPayoutTimeoutMs));
    environment.insert(QStringLiteral("LANTERN_HEARTBEAT_TTL_S"), QString::number(HeartbeatTtlS));
    victim.setProcessEnvironment(environment);
    victim.start(QStringLiteral(LANTERND_PATH), lanternd.withDefaults({QStringLiteral("work"), QStringLiteral("--id"), QStringLiteral("victim"),
                                                                       QStringLiteral("--batch"), QStringLiteral("100"), QStringLiteral("--in-flight"),
                                                                       QString::number(InFlight)}));
    QVERIFY(victim.waitForStarted());
    QTRY_COMPARE_WITH_TIMEOUT(provider.held(), InFlight, 30000);
    const QString paidQuery = QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ? AND status = 'paid'");
    QTRY_COMPARE_WITH_TIMEOUT(sqlNumber(sql.db, paidQuery, {campaign}), qint64(AnsweredFirst), 10000);

    // Its heartbeat goes on while the 64 answers are out, for longer than a TTL: a worker waiting
    // on its provider is not taken for dead. A beat stamped a TTL after every answer was held
    // back can only come from a worker that kept beating meanwhile (a busy machine may delay a
    // beat; it cannot forge one), and each beat reports the 64 calls out.
    const QByteArray heartbeat = keys.workerHeartbeat(QStringLiteral("victim"));
    const qint64 allHeldMs = QDateTime::currentMSecsSinceEpoch();
    QTRY_VERIFY_WITH_TIMEOUT(redis.command({"GET", heartbeat}).toInteger() >= allHeldMs + HeartbeatTtlS * 1000, 30000);
    QCOMPARE(redis.command({"HGET", keys.workerPayouts(QStringLiteral("victim")), "in_flight"}).toInteger(), qint64(InFlight));
    QCOMPARE(provider.held(), InFlight);

    victim.kill();  // SIGKILL with 64 payouts in flight
    QVERIFY(victim.waitForFinished(10000));
    QCOMPARE(provider.payments().size(), AnsweredFirst + InFlight);  // paid, 64 of them never told
    QCOMPARE(sqlNumber(sql.db, paidQuery, {campaign}), qint64(AnsweredFirst));
    provider.release();

    QTRY_VERIFY_WITH_TIMEOUT(redis.command({"EXISTS", heartbeat}).toInteger() == 0, 10000);
    const Result recovered = lanternd.run({QStringLiteral("recover")});
    LANTERND_VERIFY_OK(recovered);
    QCOMPARE(recovered.json().value(QLatin1String("reclaimed")).toInteger(), 1);

    Lanternd rescuer = lanternd;
    rescuer.extraEnv.insert(QStringLiteral("LANTERN_PAYOUT_URL"), provider.url().toString());
    LANTERND_VERIFY_OK(rescuer.run({QStringLiteral("work"), QStringLiteral("--once"), QStringLiteral("--id"), QStringLiteral("rescuer")}));

    // Every envelope paid once: one payment per key at the provider (the 64 keys it paid without
    // answering were asked again and told the same ref), and SQL holds exactly those payments.
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM grab WHERE campaign_id = ?"), {campaign}), Envelopes);
    QCOMPARE(sqlNumber(sql.db, paidQuery, {campaign}), Envelopes);
    const QHash<QByteArray, test::ProviderPayment> payments = provider.payments();
    QCOMPARE(payments.size(), Envelopes);
    qint64 providerTotal = 0;
    int askedAgain = 0;
    for (const test::ProviderPayment &payment : payments) {
        providerTotal += payment.amountCents;
        askedAgain += payment.requests > 1 ? 1 : 0;
    }
    QCOMPARE(providerTotal, Total);
    QVERIFY2(askedAgain >= InFlight, qPrintable(QString::number(askedAgain)));
    {
        SqlConnection connection(sql.db);
        QSqlQuery rows = connection.exec(QStringLiteral("SELECT idempotency_key, provider_ref, amount_cents FROM payout WHERE campaign_id = ? AND status = 'paid'"),
                                         {campaign});
        qint64 rowsSeen = 0;
        while (rows.next()) {
            const test::ProviderPayment payment = payments.value(rows.value(0).toString().toUtf8());
            QCOMPARE(rows.value(1).toString().toUtf8(), payment.ref);
            QCOMPARE(rows.value(2).toLongLong(), payment.amountCents);
            ++rowsSeen;
        }
        QCOMPARE(rowsSeen, Envelopes);
    }
    const Result verified = rescuer.run({QStringLiteral("verify"), QStringLiteral("--campaign"), id});
    LANTERND_VERIFY_OK(verified);
    QVERIFY2(verified.json().value(QLatin1String("ok")).toBool(), verified.out.constData());

    deleteKeys(redis, prefix.toUtf8());
}

LANTERN_TEST_SUITE(TestCliCrash);

} // namespace tst_cli_crash

#include "tst_cli_crash.moc"
