// LedgerBalanceCheck (issue 27): the workers' balance check of the live and paused campaigns between the
// ledger (SQL) and Redis, which /metrics exports as lantern_ledger_balanced. A campaign is balanced
// until Redis loses grabs or the campaign, and again once repaired; drafts and closed campaigns are
// not checked; one worker per interval has the turn; a WorkerShift runs it in its pass and says in
// its heartbeat what it persisted. Real Redis and SQL from the harness.
#include "envelope/campaignrepair.h"
#include "envelope/campaignservice.h"
#include "envelope/grabservice.h"
#include "operations/ledgerbalancecheck.h"
#include "operations/queueoverview.h"
#include "operations/workershift.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QDateTime>
#include <QTest>

namespace tst_ledgerbalancecheck {

using namespace lantern;

namespace {

qint64 createCampaign(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, bool launch)
{
    CampaignDraft draft;
    draft.name = QStringLiteral("ledger");
    draft.totalCents = 1000;
    draft.count = 10;
    draft.seed = 3;
    CampaignService service(redis, sql, keys);
    const qint64 id = service.create(draft, QDateTime::currentMSecsSinceEpoch()).id;
    if (launch)
        service.launch(id);
    return id;
}

/** The verdict on `campaign` in `result`; nullopt when it was not checked. */
std::optional<bool> verdict(const LedgerCheckResult &result, qint64 campaign)
{
    for (const LedgerBalance &balance : result.campaigns) {
        if (balance.campaignId == campaign)
            return balance.balanced;
    }
    return std::nullopt;
}

} // namespace

class TestLedgerBalanceCheck : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void balancedUntilRedisLosesGrabs_data();
    void balancedUntilRedisLosesGrabs();
    void oneWorkerPerInterval();
};

void TestLedgerBalanceCheck::balancedUntilRedisLosesGrabs_data()
{
    QTest::addColumn<DbUrl>("db");
    for (const auto &[dialect, url] : test::sqlDialects())
        QTest::newRow(qPrintable(dialect)) << url;
}

void TestLedgerBalanceCheck::balancedUntilRedisLosesGrabs()
{
    QFETCH(DbUrl, db);
    test::resetTables(db);
    RedisClient redis(test::redisUrl());
    SqlConnection sql(db);
    const KeySchema keys(test::uniquePrefix());
    const qint64 live = createCampaign(redis, sql, keys, true);
    const qint64 paused = createCampaign(redis, sql, keys, true);
    const qint64 draft = createCampaign(redis, sql, keys, false);
    const qint64 closed = createCampaign(redis, sql, keys, true);
    CampaignService(redis, sql, keys).pause(paused);
    CampaignService(redis, sql, keys).close(closed);
    GrabService grabs(redis, keys);
    for (qint64 uid = 1; uid <= 4; ++uid)
        QCOMPARE(grabs.grab(live, uid, 1).status, QStringLiteral("ok"));

    // A worker's shift persists the grabs (the ledger now holds four); a one-shot drain leaves no
    // verdict in Redis, a step of a running shift checks; its heartbeat says what it wrote.
    SimulatedPayoutGateway gateway(redis, keys.prefix(), SimulationKnobs{}, 1);
    WorkerShiftOptions options;
    options.workerId = QStringLiteral("w-ledger");
    options.heartbeatTtlS = 1;  // a beat every third of a second: the figures follow quickly
    WorkerShift shift(redis, [db] { return std::make_unique<SqlConnection>(db); }, keys, gateway, options);
    shift.drainAll();
    QVERIFY(!LedgerBalanceCheck::read(redis, keys).has_value());
    QVERIFY(shift.step().outage.isEmpty());
    const std::optional<LedgerCheckResult> written = LedgerBalanceCheck::read(redis, keys);
    QVERIFY(written.has_value());
    QCOMPARE(written->campaigns.size(), 2);  // the live and the paused one: no draft, nothing closed
    QCOMPARE(verdict(*written, live), std::optional<bool>(true));
    QCOMPARE(verdict(*written, paused), std::optional<bool>(true));
    QCOMPARE(verdict(*written, draft), std::nullopt);
    QCOMPARE(verdict(*written, closed), std::nullopt);
    const auto beatSaysPersisted = [&] {
        shift.keepBeating();
        return QueueOverview::read(redis, keys, QDateTime::currentMSecsSinceEpoch()).payouts.grabsPersisted == 4;
    };
    QTRY_VERIFY_WITH_TIMEOUT(beatSaysPersisted(), 5000);
    shift.retire();

    // Redis forgets two grabs the ledger holds (as a restart on an AOF cut short would): unbalanced,
    // and read() gives what run() wrote.
    const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    redis.command({"HSET", keys.campaignMeta(live), "grabbed_count", "2"});
    const LedgerCheckResult lost = LedgerBalanceCheck::run(redis, sql, keys, nowMs);
    QCOMPARE(verdict(lost, live), std::optional<bool>(false));
    QCOMPARE(verdict(lost, paused), std::optional<bool>(true));
    QCOMPARE(LedgerBalanceCheck::read(redis, keys)->atMs, nowMs);
    QCOMPARE(verdict(*LedgerBalanceCheck::read(redis, keys), live), std::optional<bool>(false));

    // Repaired from the ledger: balanced again. A campaign Redis lost whole is not.
    CampaignRepair(redis, sql, keys).repair(live);
    QCOMPARE(verdict(LedgerBalanceCheck::run(redis, sql, keys, nowMs), live), std::optional<bool>(true));
    redis.command({"DEL", keys.campaignMeta(paused)});
    QCOMPARE(verdict(LedgerBalanceCheck::run(redis, sql, keys, nowMs), paused), std::optional<bool>(false));
    // The result lives three intervals, so a check that stops running leaves no verdict for long.
    const qint64 ttl = redis.command({"PTTL", keys.ledgerCheck()}).toInteger();
    QVERIFY2(ttl > 0 && ttl <= 3 * LedgerBalanceCheck::IntervalMs, QByteArray::number(ttl).constData());
}

void TestLedgerBalanceCheck::oneWorkerPerInterval()
{
    const DbUrl db = test::sqliteUrl();
    test::resetTables(db);
    RedisClient redis(test::redisUrl());
    SqlConnection sql(db);
    const KeySchema keys(test::uniquePrefix());
    createCampaign(redis, sql, keys, true);
    LedgerBalanceCheck first;
    LedgerBalanceCheck second;
    const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    QVERIFY(first.runIfDue(redis, sql, keys, QStringLiteral("w-1"), nowMs).has_value());
    QVERIFY(!second.runIfDue(redis, sql, keys, QStringLiteral("w-2"), nowMs).has_value());  // w-1's turn
    QVERIFY(!first.runIfDue(redis, sql, keys, QStringLiteral("w-1"), nowMs + 1000).has_value());  // not due for w-1 either
    QCOMPARE(redis.command({"GET", keys.ledgerCheckTurn()}).toBytes(), QByteArray("w-1"));
    // The turn runs out with the interval (the key's TTL): the next worker to try has it.
    redis.command({"DEL", keys.ledgerCheckTurn()});
    QVERIFY(second.runIfDue(redis, sql, keys, QStringLiteral("w-2"), nowMs + LedgerBalanceCheck::IntervalMs).has_value());
    QCOMPARE(redis.command({"GET", keys.ledgerCheckTurn()}).toBytes(), QByteArray("w-2"));
}

LANTERN_TEST_SUITE(TestLedgerBalanceCheck);

} // namespace tst_ledgerbalancecheck

#include "tst_ledgerbalancecheck.moc"
