// Reads that stay bounded at a large company's size (issue 26), on a real Redis and SQLite.
// Retiring the pools of closed, drained campaigns: a closed campaign whose pool holds nothing
// leaves the launched set (and with it every view and command that goes over launched pools); a
// live one, or one with a task queued, a dead letter, or a task in any known worker's backup list
// (a dead worker's included), stays; one worker at a time; a worker's drain retires as it passes
// by. The ledger check asks the simulated provider in batches, not a round trip per payout; the
// timetable counts live workers from their heartbeats alone.
#include "envelope/campaignpools.h"
#include "envelope/campaignservice.h"
#include "envelope/campaignverifier.h"
#include "envelope/envelopedrain.h"
#include "envelope/grabservice.h"
#include "envelope/poolretirement.h"
#include "operations/deadletters.h"
#include "operations/queueoverview.h"
#include "operations/workerheartbeat.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QTemporaryDir>
#include <QTest>

namespace tst_boundedreads {

using namespace lantern;

namespace {
constexpr qint64 Now = 1795000000000;

/** Campaigns of 4 envelopes on a fresh prefix and SQLite file; each grabbed twice by `grab()`. */
struct Campaigns {
    Campaigns(const RedisUrl &url) : redis(url), sql(reset(test::sqliteUrl())), keys(test::uniquePrefix()), service(redis, sql, keys), grabs(redis, keys) {}

    static DbUrl reset(const DbUrl &url)
    {
        test::resetTables(url);
        return url;
    }
    qint64 launched()
    {
        CampaignDraft draft;
        draft.name = QStringLiteral("past");
        draft.totalCents = 400;
        draft.count = 4;
        draft.seed = 5;
        const qint64 id = service.create(draft, Now).id;
        service.launch(id);
        grabs.grab(id, 1, Now);
        grabs.grab(id, 2, Now);
        return id;
    }
    void drain(const QString &worker = QStringLiteral("w1"))
    {
        EnvelopeDrainOptions options;
        options.errorLogPath = errors.filePath(QStringLiteral("errors.log"));
        EnvelopeDrain(redis, sql, keys, worker, gateway, options).drainAll();
    }
    QByteArrayList launchedPools() { return CampaignPools::launched(redis, keys); }
    QByteArrayList retired() { return PoolRetirement(redis, keys).run(PoolRetirement::DefaultLimit, false); }

    RedisClient redis;
    SqlConnection sql;
    const KeySchema keys;
    CampaignService service;
    GrabService grabs;
    QTemporaryDir errors;
    SimulatedPayoutGateway gateway{redis, keys.prefix(), SimulationKnobs{}, 3};
};

QByteArray pool(qint64 id) { return QByteArray::number(id); }
} // namespace

class TestBoundedReads : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_url = test::redisUrl(); }
    void closedAndDrainedLeaves();
    void whatStillHoldsWorkStays();
    void oneWorkerAtATime();
    void drainRetiresAsItPasses();
    void ledgerCheckAsksTheProviderInBatches();
    void aliveWorkersFromHeartbeats();

private:
    RedisUrl m_url;
};

void TestBoundedReads::closedAndDrainedLeaves()
{
    Campaigns c(m_url);
    const qint64 closed = c.launched();
    const qint64 live = c.launched();
    c.drain();
    c.service.close(closed);
    QCOMPARE(c.launchedPools(), (QByteArrayList{pool(closed), pool(live)}));
    QCOMPARE(c.retired(), QByteArrayList{pool(closed)});
    QCOMPARE(c.launchedPools(), QByteArrayList{pool(live)});
    QCOMPARE(c.redis.command({"SMEMBERS", c.keys.retiredCampaignSet()}).elements.size(), size_t(1));
    // The Queues view and `lanternd queues` no longer go over it; its figures stay readable.
    const QueueOverview overview = QueueOverview::read(c.redis, c.keys, Now);
    QCOMPARE(overview.queues.size(), 2);  // check-in, then the live campaign
    QCOMPARE(overview.queues.last().campaignId, std::optional<qint64>(live));
    QCOMPARE(c.service.show(closed).grabbedCount, 2LL);
    QCOMPARE(c.retired(), QByteArrayList());  // nothing more to retire
}

void TestBoundedReads::whatStillHoldsWorkStays()
{
    Campaigns c(m_url);
    const qint64 queued = c.launched();    // closed with its two tasks still queued
    const qint64 dead = c.launched();      // closed, a dead letter
    const qint64 held = c.launched();      // closed, a task in a dead worker's backup list
    const qint64 paused = c.launched();    // paused, drained
    const ReliableQueue deadQueue(c.keys.campaignTasks(dead), c.keys.campaignBackup(dead, QStringLiteral("w9")), c.keys.campaignDeadLetter(dead));
    const QByteArrayList claimed = deadQueue.claim(c.redis, 1);
    QCOMPARE(claimed.size(), 1);
    deadQueue.deadLetter(c.redis, claimed.first());
    WorkerHeartbeat(c.keys, QStringLiteral("w7"), 1).beat(c.redis, Now);
    c.redis.command({"DEL", c.keys.workerHeartbeat(QStringLiteral("w7"))});  // w7 died, known in the set of workers
    const ReliableQueue heldQueue(c.keys.campaignTasks(held), c.keys.campaignBackup(held, QStringLiteral("w7")), c.keys.campaignDeadLetter(held));
    QCOMPARE(heldQueue.claim(c.redis, 1).size(), 1);
    // Drain what is left of `dead`, `held` and `paused` (not `queued`: its tasks move back after).
    const QByteArray queuedTasks = c.keys.campaignTasks(queued);
    c.redis.command({"RENAME", queuedTasks, queuedTasks + ":aside"});
    c.drain();
    c.redis.command({"RENAME", queuedTasks + ":aside", queuedTasks});
    for (const qint64 id : {queued, dead, held})
        c.service.close(id);
    c.service.pause(paused);
    QCOMPARE(c.retired(), QByteArrayList());
    QCOMPARE(c.launchedPools().size(), 4);
    // Once the dead letter is discarded, that pool holds nothing any more and goes.
    QCOMPARE(DeadLetters(c.redis, c.keys).apply(DeadLetterAction::Discard, QStringLiteral("payout:%1").arg(dead), claimed), QList<bool>{true});
    QCOMPARE(c.retired(), QByteArrayList{pool(dead)});
}

void TestBoundedReads::oneWorkerAtATime()
{
    Campaigns c(m_url);
    const qint64 id = c.launched();
    c.drain();  // its retirement found nothing closed, and holds the lock: another worker, now
    c.service.close(id);
    QCOMPARE(PoolRetirement(c.redis, c.keys).run(), QByteArrayList());
    QCOMPARE(c.launchedPools(), QByteArrayList{pool(id)});
    c.redis.command({"DEL", c.keys.retirementLock()});
    QCOMPARE(PoolRetirement(c.redis, c.keys).run(), QByteArrayList{pool(id)});
    QVERIFY(c.redis.command({"TTL", c.keys.retirementLock()}).toInteger() > 0);  // held for the next minute
    c.redis.command({"DEL", c.keys.retirementLock()});
}

void TestBoundedReads::drainRetiresAsItPasses()
{
    Campaigns c(m_url);
    const qint64 closed = c.launched();
    c.drain();
    c.service.close(closed);
    c.redis.command({"DEL", c.keys.retirementLock()});  // the first drain's retirement holds it for a minute
    const qint64 live = c.launched();
    c.drain(QStringLiteral("w2"));  // a worker's first pass reads the launched pools: it retires first
    QCOMPARE(c.launchedPools(), QByteArrayList{pool(live)});
    c.redis.command({"DEL", c.keys.retirementLock()});
}

void TestBoundedReads::ledgerCheckAsksTheProviderInBatches()
{
    Campaigns c(m_url);
    CampaignDraft draft;
    draft.name = QStringLiteral("big");
    draft.totalCents = 1200;
    draft.count = 1200;
    const qint64 id = c.service.create(draft, Now).id;
    c.service.launch(id);
    for (qint64 uid = 1; uid <= 1200; ++uid)
        QCOMPARE(c.grabs.grab(id, uid, Now).status, QStringLiteral("ok"));
    c.drain();
    CampaignVerifier verifier(c.redis, c.sql, c.keys);
    const std::unique_ptr<SimulatedPayoutGateway> ledger = verifier.readSimulatedLedger();
    QVERIFY(ledger);
    const quint64 before = c.redis.roundTrips();
    QCOMPARE(verifier.verify(id).size(), 0);
    // 1,200 paid payouts: three batches, not 1,200 round trips.
    QVERIFY2(c.redis.roundTrips() - before <= 8, qPrintable(QString::number(c.redis.roundTrips() - before)));
    // A payout the provider has no record of, in the last batch, is still found.
    QCOMPARE(c.redis.command({"HDEL", c.keys.prefix() + "payoutsim:ledger", QStringLiteral("cp:%1:1100").arg(id).toUtf8()}).toInteger(), 1LL);
    const QList<Violation> violations = verifier.verify(id);
    QCOMPARE(violations.size(), 1);
    QCOMPARE(violations.first().invariant, 3);
    QCOMPARE(ledger->paidAmounts({QStringLiteral("cp:%1:1").arg(id), QStringLiteral("cp:%1:1100").arg(id)}),
             (QList<std::optional<qint64>>{ledger->paidAmount(QStringLiteral("cp:%1:1").arg(id)), std::nullopt}));
}

void TestBoundedReads::aliveWorkersFromHeartbeats()
{
    Campaigns c(m_url);
    QCOMPARE(QueueOverview::aliveWorkers(c.redis, c.keys), 0LL);
    for (const QString &worker : {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")})
        WorkerHeartbeat(c.keys, worker, 60).beat(c.redis, Now);
    c.redis.command({"DEL", c.keys.workerHeartbeat(QStringLiteral("b"))});  // b died; still known
    const quint64 before = c.redis.roundTrips();
    QCOMPARE(QueueOverview::aliveWorkers(c.redis, c.keys), 2LL);
    QCOMPARE(c.redis.roundTrips() - before, quint64(2));
    QCOMPARE(QueueOverview::aliveWorkers(c.redis, c.keys), qint64(QueueOverview::read(c.redis, c.keys, Now).workers.size() - 1));
}

LANTERN_TEST_SUITE(TestBoundedReads);

} // namespace tst_boundedreads

#include "tst_boundedreads.moc"
