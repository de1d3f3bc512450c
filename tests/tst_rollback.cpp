// Money after Redis forgets (issue 15), on real Redis and both SQL dialects. Each case makes
// Redis lose exactly the state a rollback loses (a user's draw, a whole grab, the whole campaign)
// and checks that the ledger pays nobody twice, gives no envelope to two users, gives refused
// envelopes back, and that a repair rebuilds the campaign's Redis state from SQL.
#include "core/errors.h"
#include "envelope/campaignrepair.h"
#include "redis/redisrunwatch.h"
#include "envelope/campaignservice.h"
#include "envelope/campaignstore.h"
#include "envelope/campaignverifier.h"
#include "envelope/envelopedrain.h"
#include "envelope/grabservice.h"
#include "payout/simulatedpayoutgateway.h"
#include "operations/queueoverview.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "sql/migrator.h"
#include "testservers.h"
#include "testsuite.h"

#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

namespace tst_rollback {

using namespace lantern;

namespace {
constexpr qint64 Now = 1795000000000;

/** One campaign of `count` envelopes on a fresh prefix, launched, with a drain and a verifier. */
class Fixture {
public:
    Fixture(const RedisUrl &redisUrl, const DbUrl &url, qint64 totalCents = 1000, qint64 count = 10)
        : redis(redisUrl), sql(url), keys(test::uniquePrefix()), gateway(redis, keys.prefix(), SimulationKnobs{}, 0)
    {
        EnvelopeDrainOptions options;
        options.errorLogPath = errors.filePath(QStringLiteral("errors.log"));
        drain = std::make_unique<EnvelopeDrain>(redis, sql, keys, QStringLiteral("w1"), gateway, options);
        CampaignDraft draft;
        draft.name = QStringLiteral("festival");
        draft.totalCents = totalCents;
        draft.count = count;
        draft.seed = 1;
        CampaignService service(redis, sql, keys);
        id = service.create(draft, Now).id;
        service.launch(id);
    }

    GrabOutcome grab(qint64 uid) { return GrabService(redis, keys).grab(id, uid, Now); }
    qint64 scalar(const QString &query)
    {
        QSqlQuery result = sql.exec(query, {id});
        return result.next() ? result.value(0).toLongLong() : -1;
    }
    qint64 paidTo(qint64 uid)
    {
        QSqlQuery result = sql.exec(QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ? AND uid = ? AND status = 'paid'"), {id, uid});
        return result.next() ? result.value(0).toLongLong() : -1;
    }
    qint64 pool() { return redis.command({"LLEN", keys.campaignPool(id)}).toInteger(); }
    qint64 paidCount() { return scalar(QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ? AND status = 'paid'")); }
    qint64 paidCents() { return scalar(QStringLiteral("SELECT COALESCE(SUM(amount_cents), 0) FROM payout WHERE campaign_id = ? AND status = 'paid'")); }
    /** `uid` grabs and is paid, then Redis forgets the user's draw (what a rollback loses of it). */
    GrabOutcome paidThenForgotten(qint64 uid)
    {
        const GrabOutcome outcome = grab(uid);
        drain->drainAll();
        redis.command({"HDEL", keys.campaignDraws(id), QByteArray::number(uid)});
        return outcome;
    }
    qint64 meta(const char *field)
    {
        const RedisValue value = redis.command({"HGET", keys.campaignMeta(id), field});
        return value.isNil() ? -1 : value.toInteger();
    }
    QByteArray draw(qint64 uid)
    {
        const RedisValue value = redis.command({"HGET", keys.campaignDraws(id), QByteArray::number(uid)});
        return value.isNil() ? QByteArray() : value.toBytes();
    }
    QList<Violation> verify()
    {
        return CampaignVerifier(redis, sql, keys, [this](const QString &key) { return gateway.paidAmount(key); }).verify(id);
    }
    /** What a rollback to before `uid`'s grab loses: its draw, the pop and the counters. */
    void forgetGrab(qint64 uid, const GrabOutcome &outcome)
    {
        redis.pipeline({{"HDEL", keys.campaignDraws(id), QByteArray::number(uid)},
                        {"LPUSH", keys.campaignPool(id), QByteArray::number(outcome.seq) + ':' + QByteArray::number(outcome.amountCents)},
                        {"HINCRBY", keys.campaignMeta(id), "grabbed_count", "-1"},
                        {"HINCRBY", keys.campaignMeta(id), "grabbed_cents", QByteArray::number(-outcome.amountCents)}});
    }

    RedisClient redis;
    SqlConnection sql;
    KeySchema keys;
    QTemporaryDir errors;
    SimulatedPayoutGateway gateway;
    std::unique_ptr<EnvelopeDrain> drain;
    qint64 id = 0;
};

QString details(const QList<Violation> &violations)
{
    QStringList lines;
    for (const Violation &violation : violations)
        lines << QStringLiteral("%1: %2").arg(violation.invariant).arg(violation.detail);
    return lines.join(QLatin1Char('\n'));
}
} // namespace

class TestRollback : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void dialects_data();
    void ledgerRefusesASecondPayoutForAUser_data() { dialects_data(); }
    void ledgerRefusesASecondPayoutForAUser();
    void userForgottenByRedisIsPaidOnce_data() { dialects_data(); }
    void userForgottenByRedisIsPaidOnce();
    void envelopeForgottenByRedisGoesToOneUser_data() { dialects_data(); }
    void envelopeForgottenByRedisGoesToOneUser();
    void repairRebuildsALostCampaign_data() { dialects_data(); }
    void repairRebuildsALostCampaign();
    void launchOfALiveCampaignRepairsIt_data() { dialects_data(); }
    void launchOfALiveCampaignRepairsIt();
    void repairUndoesQueuedRefusalsOnce_data() { dialects_data(); }
    void repairUndoesQueuedRefusalsOnce();
    void repairOfAClosedCampaignRecomputesTheRefund_data() { dialects_data(); }
    void repairOfAClosedCampaignRecomputesTheRefund();
    void grabsAndMovesWaitWhileRepairing_data() { dialects_data(); }
    void grabsAndMovesWaitWhileRepairing();
    void restartCheckFindsLostStateOnly_data() { dialects_data(); }
    void restartCheckFindsLostStateOnly();
    void verifyNamesEachSidesCents_data() { dialects_data(); }
    void verifyNamesEachSidesCents();
    void refusalsAreCounted_data() { dialects_data(); }
    void refusalsAreCounted();

private:
    RedisUrl m_redisUrl;
};

void TestRollback::initTestCase()
{
    m_redisUrl = test::redisUrl();
}

void TestRollback::dialects_data()
{
    QTest::addColumn<DbUrl>("url");
    for (const auto &[name, url] : test::sqlDialects())
        QTest::newRow(qPrintable(name)) << url;
}

void TestRollback::ledgerRefusesASecondPayoutForAUser()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    SqlConnection sql(url);
    const QString insert = QStringLiteral("INSERT INTO payout (idempotency_key, campaign_id, seq, uid, amount_cents, status, updated_at_ms) "
                                          "VALUES (?, 1, ?, 7, 100, 'paid', 0)");
    sql.exec(insert, {QStringLiteral("cp:1:1"), 1});
    // Another envelope of the same campaign for the same user: the schema itself says no.
    QVERIFY_THROWS_EXCEPTION(SqlError, sql.exec(insert, {QStringLiteral("cp:1:2"), 2}));
    QSqlQuery count = sql.exec(QStringLiteral("SELECT COUNT(*) FROM payout WHERE uid = 7"));
    QVERIFY(count.next());
    QCOMPARE(count.value(0).toLongLong(), 1);
}

void TestRollback::userForgottenByRedisIsPaidOnce()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(m_redisUrl, url);
    // The part of Redis's state a rollback loses: the user's draw. Redis hands out a second envelope.
    const GrabOutcome first = f.paidThenForgotten(7);
    QCOMPARE(first.status, QStringLiteral("ok"));
    QCOMPARE(f.paidTo(7), 1);
    const GrabOutcome second = f.grab(7);
    QCOMPARE(second.status, QStringLiteral("ok"));
    QVERIFY(second.seq != first.seq);
    const QByteArray task = f.redis.command({"LINDEX", f.keys.campaignTasks(f.id), "0"}).toBytes();

    const EnvelopeDrainStats stats = f.drain->drainAll();
    QCOMPARE(stats.paid, 0);
    QCOMPARE(stats.refused, 1);
    QCOMPARE(stats.repaired, 1);
    QCOMPARE(f.paidTo(7), 1);
    QCOMPARE(f.scalar(QStringLiteral("SELECT COUNT(*) FROM grab_refused WHERE campaign_id = ? AND reason = 'user_holds'")), 1);
    // The refused envelope is back in the pool, the user's answer is the envelope they were paid.
    QCOMPARE(f.pool(), 9);
    QCOMPARE(f.meta("grabbed_count"), 1);
    QCOMPARE(f.meta("grabbed_cents"), first.amountCents);
    const GrabOutcome again = f.grab(7);
    QCOMPARE(again.status, QStringLiteral("already"));
    QCOMPARE(again.seq, first.seq);
    QVERIFY2(f.verify().isEmpty(), qPrintable(details(f.verify())));

    // The refused task replayed (a crash before its acknowledgement) changes nothing.
    f.redis.command({"LPUSH", f.keys.campaignTasks(f.id), task});
    const EnvelopeDrainStats replay = f.drain->drainAll();
    QCOMPARE(replay.refused, 0);
    QCOMPARE(replay.paid, 0);
    QCOMPARE(f.pool(), 9);
    QCOMPARE(f.meta("grabbed_count"), 1);

    // Everybody else still gets the other nine envelopes, and the ledger balances at close.
    for (qint64 uid = 100; uid < 120; ++uid)
        f.grab(uid);
    f.drain->drainAll();
    CampaignService(f.redis, f.sql, f.keys).close(f.id);
    QCOMPARE(f.paidCount(), 10);
    QCOMPARE(f.paidCents(), 1000);
    QCOMPARE(f.scalar(QStringLiteral("SELECT COUNT(DISTINCT uid) FROM payout WHERE campaign_id = ?")), 10);
    QVERIFY2(f.verify().isEmpty(), qPrintable(details(f.verify())));
}

void TestRollback::envelopeForgottenByRedisGoesToOneUser()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(m_redisUrl, url);
    const GrabOutcome first = f.grab(7);
    f.drain->drainAll();

    // Redis forgets the whole grab of user 7, so the same envelope goes to user 8.
    f.forgetGrab(7, first);
    const GrabOutcome stolen = f.grab(8);
    QCOMPARE(stolen.status, QStringLiteral("ok"));
    QCOMPARE(stolen.seq, first.seq);
    const EnvelopeDrainStats stats = f.drain->drainAll();
    QCOMPARE(stats.refused, 1);
    QCOMPARE(f.scalar(QStringLiteral("SELECT COUNT(*) FROM grab_refused WHERE campaign_id = ? AND reason = 'taken'")), 1);
    QCOMPARE(f.paidTo(7), 1);
    QCOMPARE(f.paidTo(8), 0);
    // Redis again knows the envelope as user 7's; user 8 holds nothing and may grab again.
    QCOMPARE(f.draw(7), QByteArray::number(first.seq) + ':' + QByteArray::number(first.amountCents));
    QCOMPARE(f.draw(8), QByteArray());
    QCOMPARE(f.pool(), 9);
    const GrabOutcome retry = f.grab(8);
    QCOMPARE(retry.status, QStringLiteral("ok"));
    QVERIFY(retry.seq != first.seq);
    f.drain->drainAll();
    QCOMPARE(f.paidTo(8), 1);
    QVERIFY2(f.verify().isEmpty(), qPrintable(details(f.verify())));
}

void TestRollback::repairRebuildsALostCampaign()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(m_redisUrl, url, 100'000, 50);
    QHash<qint64, GrabOutcome> outcomes;
    for (qint64 uid = 1; uid <= 5; ++uid)
        outcomes.insert(uid, f.grab(uid));
    f.drain->drainAll();
    for (qint64 uid = 6; uid <= 7; ++uid)
        outcomes.insert(uid, f.grab(uid));  // queued, not persisted yet

    // Redis loses the campaign's state outright (a restore of an older backup, say), but not the queue.
    f.redis.command({"DEL", f.keys.campaignMeta(f.id), f.keys.campaignPool(f.id), f.keys.campaignDraws(f.id)});
    f.redis.command({"SREM", f.keys.campaignSet(), QByteArray::number(f.id)});
    QVERIFY(!CampaignRepair(f.redis, f.sql, f.keys).consistent(f.id));
    const CampaignRepairReport report = CampaignRepair(f.redis, f.sql, f.keys).repair(f.id);
    QCOMPARE(report.status, QStringLiteral("live"));
    QCOMPARE(report.ledgerGrabs, 5);
    QCOMPARE(report.inFlight, 2);
    QCOMPARE(report.refusedInFlight, 0);
    QCOMPARE(report.poolBefore, 0);
    QCOMPARE(report.poolAfter, 43);
    QCOMPARE(report.grabbedCount, 7);
    QVERIFY(CampaignRepair(f.redis, f.sql, f.keys).consistent(f.id));
    QCOMPARE(f.pool(), 43);
    QCOMPARE(f.meta("grabbed_count"), 7);
    for (qint64 uid = 1; uid <= 7; ++uid) {
        const GrabOutcome again = f.grab(uid);
        QCOMPARE(again.status, QStringLiteral("already"));
        QCOMPARE(again.seq, outcomes.value(uid).seq);
    }
    for (qint64 uid = 8; uid <= 60; ++uid)
        f.grab(uid);
    f.drain->drainAll();
    QCOMPARE(f.paidCount(), 50);
    QCOMPARE(f.paidCents(), 100'000);
    QCOMPARE(f.scalar(QStringLiteral("SELECT COUNT(*) FROM grab_refused WHERE campaign_id = ?")), 0);
    QVERIFY2(f.verify().isEmpty(), qPrintable(details(f.verify())));
}

void TestRollback::launchOfALiveCampaignRepairsIt()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(m_redisUrl, url, 100'000, 50);
    const GrabOutcome paid = f.grab(1);
    f.drain->drainAll();
    // Redis loses everything of the campaign, its queue included (a restart without persistence).
    f.redis.command({"DEL", f.keys.campaignMeta(f.id), f.keys.campaignPool(f.id), f.keys.campaignDraws(f.id), f.keys.campaignTasks(f.id)});
    f.redis.command({"SREM", f.keys.campaignSet(), QByteArray::number(f.id)});

    // Launching it again brings it back from the ledger, not as a fresh pool: user 1 keeps the
    // envelope, which nobody else can take; the repair is audited under the launch's actor.
    CampaignService service(f.redis, f.sql, f.keys);
    const TransitionAudit audit{QStringLiteral("alice"), Now, QString(), {}};
    bool changed = false;
    QCOMPARE(service.launch(f.id, audit, &changed).status, CampaignStatus::Live);
    QVERIFY(changed);
    QCOMPARE(f.pool(), 49);
    QCOMPARE(f.meta("grabbed_count"), 1);
    const GrabOutcome again = f.grab(1);
    QCOMPARE(again.status, QStringLiteral("already"));
    QCOMPARE(again.seq, paid.seq);
    const auto auditRows = [&f] {
        QStringList rows;
        QSqlQuery query = f.sql.exec(QStringLiteral("SELECT actor, action, target FROM audit_log ORDER BY id"));
        while (query.next())
            rows << QStringLiteral("%1 %2 %3").arg(query.value(0).toString(), query.value(1).toString(), query.value(2).toString());
        return rows;
    };
    const QStringList repaired{QStringLiteral("alice campaign.repair campaign:%1").arg(f.id)};
    QCOMPARE(auditRows(), repaired);
    // Once whole again, a launch changes nothing and writes nothing.
    service.launch(f.id, audit, &changed);
    QVERIFY(!changed);
    QCOMPARE(auditRows(), repaired);
    for (qint64 uid = 2; uid <= 60; ++uid)
        f.grab(uid);
    f.drain->drainAll();
    QCOMPARE(f.paidCount(), 50);
    QCOMPARE(f.paidCents(), 100'000);
    QVERIFY2(f.verify().isEmpty(), qPrintable(details(f.verify())));
}

void TestRollback::repairUndoesQueuedRefusalsOnce()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(m_redisUrl, url);
    const GrabOutcome first = f.paidThenForgotten(7);
    QCOMPARE(f.grab(7).status, QStringLiteral("ok"));  // a second envelope, still queued

    // The operator repairs before a worker sees the task: the task is undone by the repair...
    const CampaignRepairReport report = CampaignRepair(f.redis, f.sql, f.keys).repair(f.id);
    QCOMPARE(report.refusedInFlight, 1);
    QCOMPARE(report.poolAfter, 9);
    QCOMPARE(f.meta("grabbed_count"), 1);
    // ...and not a second time by the worker that refuses it afterwards.
    const EnvelopeDrainStats stats = f.drain->drainAll();
    QCOMPARE(stats.refused, 1);
    QCOMPARE(stats.repaired, 0);
    QCOMPARE(f.pool(), 9);
    QCOMPARE(f.meta("grabbed_count"), 1);
    QCOMPARE(f.meta("grabbed_cents"), first.amountCents);
    QCOMPARE(f.paidTo(7), 1);
    QVERIFY2(f.verify().isEmpty(), qPrintable(details(f.verify())));
}

void TestRollback::repairOfAClosedCampaignRecomputesTheRefund()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(m_redisUrl, url);
    const GrabOutcome first = f.paidThenForgotten(7);
    QCOMPARE(f.grab(7).status, QStringLiteral("ok"));
    // Closed with the second grab still counted: the refund misses its envelope.
    const Campaign closed = CampaignService(f.redis, f.sql, f.keys).close(f.id);
    QVERIFY(closed.refundedCents < 1000 - first.amountCents);

    f.drain->drainAll();  // refuses the second grab and repairs
    QCOMPARE(CampaignStore(f.sql).find(f.id)->refundedCents, 1000 - first.amountCents);
    QCOMPARE(f.meta("grabbed_cents"), first.amountCents);
    QCOMPARE(f.pool(), 0);
    QCOMPARE(f.paidTo(7), 1);
    QVERIFY2(f.verify().isEmpty(), qPrintable(details(f.verify())));
}

void TestRollback::grabsAndMovesWaitWhileRepairing()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(m_redisUrl, url);
    // Another process's repair holds the lock.
    f.redis.command({"SET", f.keys.campaignRepairLock(f.id), "someone", "PX", "60000"});
    QVERIFY_THROWS_EXCEPTION(UnavailableError, f.grab(1));
    QVERIFY_THROWS_EXCEPTION(UnavailableError, CampaignService(f.redis, f.sql, f.keys).pause(f.id));
    QVERIFY_THROWS_EXCEPTION(RefusedError, CampaignRepair(f.redis, f.sql, f.keys).repair(f.id));
    QVERIFY(!CampaignRepair(f.redis, f.sql, f.keys).repairIfFree(f.id));
    QCOMPARE(f.pool(), 10);
    QCOMPARE(f.meta("grabbed_count"), 0);
    f.redis.command({"DEL", f.keys.campaignRepairLock(f.id)});
    QCOMPARE(f.grab(1).status, QStringLiteral("ok"));
    QCOMPARE(CampaignService(f.redis, f.sql, f.keys).pause(f.id).status, CampaignStatus::Paused);
}

void TestRollback::restartCheckFindsLostStateOnly()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(m_redisUrl, url);
    for (qint64 uid = 1; uid <= 4; ++uid)
        f.grab(uid);
    f.drain->drainAll();
    f.grab(5);  // queued only: Redis knows more than SQL, as it normally does

    RedisRunWatch watch;
    QVERIFY(watch.changed(f.redis));  // a worker that starts cannot know what happened before
    QVERIFY(CampaignRepair(f.redis, f.sql, f.keys).checkAll().isEmpty());
    watch.checked();
    QVERIFY(!watch.changed(f.redis));

    // A pause SQL recorded but Redis lost must not reopen the campaign.
    CampaignService(f.redis, f.sql, f.keys).pause(f.id);
    f.redis.command({"HSET", f.keys.campaignMeta(f.id), "status", "live"});
    f.redis.command({"HDEL", f.keys.campaignDraws(f.id), "2"});
    const QList<CampaignRepairReport> repairs = CampaignRepair(f.redis, f.sql, f.keys).checkAll();
    QCOMPARE(repairs.size(), 1);
    QCOMPARE(repairs.front().campaignId, f.id);
    QCOMPARE(repairs.front().status, QStringLiteral("paused"));
    QCOMPARE(f.grab(9).status, QStringLiteral("not_live"));
    QVERIFY(!f.draw(2).isEmpty());
    QVERIFY(CampaignRepair(f.redis, f.sql, f.keys).checkAll().isEmpty());
}

void TestRollback::verifyNamesEachSidesCents()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(m_redisUrl, url);
    const GrabOutcome first = f.grab(7);
    f.drain->drainAll();
    // Redis counts a second grab (77 cents) that SQL never got; SQL and the provider agree on one.
    f.redis.pipeline({{"HINCRBY", f.keys.campaignMeta(f.id), "grabbed_count", "1"}, {"HINCRBY", f.keys.campaignMeta(f.id), "grabbed_cents", "77"}});
    QStringList ruleThree;
    for (const Violation &violation : f.verify()) {
        if (violation.invariant == 3)
            ruleThree << violation.detail;
    }
    // One line, each figure from its own side; the payouts match the SQL rows they pay.
    QCOMPARE(ruleThree, QStringList{QStringLiteral("2 grabs (%1 cents) in Redis, 1 rows (%2 cents) in SQL").arg(first.amountCents + 77).arg(first.amountCents)});
}

void TestRollback::refusalsAreCounted()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(m_redisUrl, url);
    f.paidThenForgotten(7);
    const GrabOutcome second = f.grab(7);
    f.drain->drainAll();
    CampaignVerifier verifier(f.redis, f.sql, f.keys);
    QCOMPARE(verifier.refusedGrabs(f.id), 1);
    QCOMPARE(verifier.refusedGrabs(), 1);
    const CampaignSummary summary = CampaignService(f.redis, f.sql, f.keys).show(f.id);
    QCOMPARE(summary.refusedCount, 1);
    QCOMPARE(summary.refusedCents, second.amountCents);
    const QueueOverview overview = QueueOverview::read(f.redis, f.keys, Now);
    QCOMPARE(overview.refused, 1);
}

LANTERN_TEST_SUITE(TestRollback);

} // namespace tst_rollback

#include "tst_rollback.moc"
