// Campaign sub-pools (issue 10, docs/cluster.md "Sub-pools") on a real Redis and both SQL
// dialects: pool names and homes, a launch that deals every pool the same way, a storm in which
// one pool runs dry first and its users borrow from the others (never over-issued, never two
// envelopes to one user, sums exact, then drained, paid and verified), a grab interrupted between
// its lend and its settle (finished for its user, or returned when the user holds another), and a
// close with an envelope still lent.
#include "core/errors.h"
#include "envelope/campaignpools.h"
#include "envelope/campaignrepair.h"
#include "envelope/campaignservice.h"
#include "envelope/campaignverifier.h"
#include "envelope/envelopedrain.h"
#include "envelope/grabservice.h"
#include "envelope/poolcounters.h"
#include "envelope/poollending.h"
#include "payout/simulatedpayoutgateway.h"
#include "operations/deadletters.h"
#include "operations/queueoverview.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <atomic>
#include <mutex>

namespace tst_campaignpools {

using namespace lantern;

namespace {
constexpr qint64 Now = 1795000000000;

CampaignDraft pooledDraft(qint64 total, qint64 count, int pools)
{
    CampaignDraft draft;
    draft.name = QStringLiteral("festival");
    draft.totalCents = total;
    draft.count = count;
    draft.minCents = 1;
    draft.seed = 11;
    draft.pools = pools;
    return draft;
}

/** The first `count` uids from `from` on whose home is pool `home` of `pools`. */
QList<qint64> usersOfPool(const CampaignPools &pools, int home, int count, qint64 from = 1)
{
    QList<qint64> users;
    for (qint64 uid = from; users.size() < count; ++uid) {
        if (pools.homeOf(uid) == home)
            users << uid;
    }
    return users;
}

QString violationsText(const QList<Violation> &violations)
{
    QStringList lines;
    for (const Violation &violation : violations)
        lines << QStringLiteral("%1: %2").arg(violation.invariant).arg(violation.detail);
    return lines.join(QLatin1Char('\n'));
}
DbUrl emptied(const DbUrl &url)
{
    test::resetTables(url);
    return url;
}

/** A campaign of `pools` pools, launched on a fresh key prefix and SQL database, with what the
    tests use on it. */
struct Launched {
    Launched(const RedisUrl &redisUrl, qint64 total, qint64 count, int poolCount, const DbUrl &db = test::sqliteUrl())
        : redis(redisUrl), sql(emptied(db)), keys(test::uniquePrefix()), service(redis, sql, keys), grabs(redis, keys),
          id(service.create(pooledDraft(total, count, poolCount), Now).id), pools(launch())
    {
    }
    /** Every pool's queue drained by one worker paying through the simulated provider. */
    EnvelopeDrainStats drain()
    {
        EnvelopeDrainOptions options;
        options.errorLogPath = errors.filePath(QStringLiteral("errors.log"));
        return EnvelopeDrain(redis, sql, keys, QStringLiteral("w1"), gateway, options).drainAll();
    }
    /** DESIGN §4's invariants, the provider's ledger included; empty when they all hold. */
    QString violations()
    {
        return violationsText(CampaignVerifier(redis, sql, keys, [this](const QString &key) { return gateway.paidAmount(key); }).verify(id));
    }

    RedisClient redis;
    SqlConnection sql;
    const KeySchema keys;
    CampaignService service;
    GrabService grabs;
    const qint64 id;
    const CampaignPools pools;
    QTemporaryDir errors;
    SimulatedPayoutGateway gateway{redis, keys.prefix(), SimulationKnobs{}, 3};

private:
    CampaignPools launch()
    {
        service.launch(id);
        return CampaignPools::read(redis, keys, id);
    }
};
} // namespace

class TestCampaignPools : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_redisUrl = test::redisUrl(); }
    void namesAndHomes();
    void dialects_data();
    void launchDealsEveryPoolAlike();
    void countersAreWhatThePoolsHold();
    void dryPoolBorrowsInAStorm_data() { dialects_data(); }
    void dryPoolBorrowsInAStorm();
    void interruptedLendIsFinished();
    void closeSettlesLentEnvelopes();
    void grabWaitWithoutReplicas();
    void repairRebuildsEveryPool();

private:
    RedisUrl m_redisUrl;
};

void TestCampaignPools::dialects_data()
{
    QTest::addColumn<DbUrl>("url");
    for (const auto &[name, url] : test::sqlDialects())
        QTest::newRow(qPrintable(name)) << url;
}

void TestCampaignPools::namesAndHomes()
{
    QCOMPARE(CampaignPools::campaignOf("42"), std::optional<qint64>(42));
    QCOMPARE(CampaignPools::campaignOf("42.7"), std::optional<qint64>(42));
    for (const QByteArray &bad : {QByteArray(""), QByteArray("0"), QByteArray("42."), QByteArray(".7"), QByteArray("42.x"), QByteArray("4 2"),
                                 QByteArray("-42"), QByteArray("42.7.1"), QByteArray("{cp:42}")})
        QCOMPARE(CampaignPools::campaignOf(bad), std::nullopt);

    QCOMPARE(CampaignPools::fromField(42, QByteArray())->count(), 1);
    QCOMPARE(CampaignPools::fromField(42, "42,42.3,42.9")->names(), (QByteArrayList{"42", "42.3", "42.9"}));
    QCOMPARE(CampaignPools::fromField(42, "43,42.3"), std::nullopt);     // not this campaign's first pool
    QCOMPARE(CampaignPools::fromField(42, "42,43.1"), std::nullopt);     // another campaign's pool
    QCOMPARE(CampaignPools::fromField(42, "42,42.3,42.3"), std::nullopt);  // twice
    QCOMPARE(CampaignPools::fromField(42, "42,42"), std::nullopt);

    // Homes spread evenly, and the envelopes dealt add up.
    RedisClient redis(m_redisUrl);
    const KeySchema keys(test::uniquePrefix());
    const CampaignPools pools = CampaignPools::choose(redis, keys, 42, 4);
    QCOMPARE(pools.names(), (QByteArrayList{"42", "42.1", "42.2", "42.3"}));  // one server: any tags do
    QList<int> homes(4, 0);
    for (qint64 uid = 1; uid <= 40'000; ++uid)
        ++homes[pools.homeOf(uid)];
    for (const int users : std::as_const(homes))
        QVERIFY2(users > 9'500 && users < 10'500, qPrintable(QString::number(users)));
    QCOMPARE(pools.envelopesIn(0, 1001) + pools.envelopesIn(1, 1001) + pools.envelopesIn(2, 1001) + pools.envelopesIn(3, 1001), 1001LL);
    QCOMPARE(pools.envelopesIn(0, 1001), 251LL);
    QCOMPARE(pools.envelopesIn(3, 1001), 250LL);
    QCOMPARE(CampaignPools::single(42).homeOf(123456), 0);
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, CampaignPools::choose(redis, keys, 42, 0));
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, CampaignPools::choose(redis, keys, 42, CampaignPools::MaxPools + 1));
}

void TestCampaignPools::launchDealsEveryPoolAlike()
{
    Launched campaign(m_redisUrl, 1'000'000, 1001, 4);
    RedisClient &redis = campaign.redis;
    const KeySchema &keys = campaign.keys;
    CampaignService &service = campaign.service;
    const CampaignPools &pools = campaign.pools;
    QCOMPARE(pools.count(), 4);
    QCOMPARE(service.launch(campaign.id).pools, 4);  // again: unchanged, nothing loaded twice
    qint64 sum = 0;
    QSet<qint64> seqs;
    for (int index = 0; index < 4; ++index) {
        const RedisValue pool = redis.command({"LRANGE", keys.campaignPool(pools.name(index)), "0", "-1"});
        QCOMPARE(qint64(pool.elements.size()), pools.envelopesIn(index, 1001));
        for (const RedisValue &entry : pool.elements) {
            const QByteArrayList parts = entry.toBytes().split(':');
            const qint64 seq = parts[0].toLongLong();
            QCOMPARE(pools.poolOfSeq(seq), index);  // seq s lies in pool (s - 1) mod K
            seqs.insert(seq);
            sum += parts[1].toLongLong();
        }
        QCOMPARE(redis.command({"HGET", keys.campaignMeta(pools.name(index)), "status"}).toBytes(), QByteArray("live"));
        QCOMPARE(redis.command({"SISMEMBER", keys.campaignSet(), pools.name(index)}).toInteger(), 1LL);
    }
    QCOMPARE(qint64(seqs.size()), 1001LL);
    QCOMPARE(sum, 1'000'000LL);
    const CampaignSummary summary = service.show(campaign.id);
    QCOMPARE(summary.pools.size(), 4);
    QCOMPARE(summary.remainingCount, 1001LL);
    QCOMPARE(campaign.violations(), QString());

    // Queues: one line for the campaign, its pools' tasks summed; a dead-letter list per pool.
    campaign.grabs.grab(campaign.id, usersOfPool(pools, 1, 1).first(), Now);
    campaign.grabs.grab(campaign.id, usersOfPool(pools, 2, 1).first(), Now);
    const QueueOverview overview = QueueOverview::read(redis, keys, Now);
    QCOMPARE(overview.queues.size(), 2);  // checkin, then the campaign
    QCOMPARE(overview.queues[1].name, QStringLiteral("payout:%1").arg(campaign.id));
    QCOMPARE(overview.queues[1].depth, 2LL);
    QStringList deadLists;
    for (const DeadLetterList &list : DeadLetters(redis, keys).lists(false)) {
        if (list.name.startsWith(QLatin1String("payout:")))
            deadLists << list.name;
    }
    QStringList expectedLists;
    for (const QByteArray &pool : pools.names())
        expectedLists << QStringLiteral("payout:") + QString::fromLatin1(pool);
    QCOMPARE(deadLists, expectedLists);
    QCOMPARE(DeadLetters(redis, keys).list(expectedLists.last()).key, keys.campaignDeadLetter(pools.name(3)));
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, DeadLetters(redis, keys).list(QStringLiteral("payout:%1.x").arg(campaign.id)));

    // Pause and resume move every pool.
    service.pause(campaign.id);
    for (const QByteArray &pool : pools.names())
        QCOMPARE(redis.command({"HGET", keys.campaignMeta(pool), "status"}).toBytes(), QByteArray("paused"));
    QCOMPARE(GrabService(redis, keys).grab(campaign.id, usersOfPool(pools, 3, 1).first(), Now).status, QStringLiteral("not_live"));
    service.resume(campaign.id);
    QCOMPARE(GrabService(redis, keys).grab(campaign.id, usersOfPool(pools, 3, 1).first(), Now).status, QStringLiteral("ok"));
}

void TestCampaignPools::countersAreWhatThePoolsHold()
{
    Launched campaign(m_redisUrl, 100'000, 101, 3);
    const CampaignPools &pools = campaign.pools;
    qint64 grabbedCents = 0;
    for (int index = 0; index < 3; ++index) {
        for (const qint64 uid : usersOfPool(pools, index, index + 1))
            grabbedCents += campaign.grabs.grab(campaign.id, uid, Now).amountCents;
    }
    QList<QByteArrayList> commands;
    for (const QByteArray &pool : pools.names())
        commands << PoolCounters::readCommand(campaign.keys, pool);
    const std::vector<RedisValue> replies = campaign.redis.pipeline(commands);
    qint64 dealt = 0;
    qint64 cents = 0;
    for (int index = 0; index < 3; ++index) {
        const PoolCounters counters = PoolCounters::fromReply(replies[size_t(index)]);
        QCOMPARE(counters.status, QByteArray("live"));
        QVERIFY(counters.inRedis());
        QCOMPARE(counters.grabbedCount, qint64(index + 1));  // pool k's users grab from pool k
        QCOMPARE(counters.count, pools.envelopesIn(index, 101));
        QCOMPARE(counters.borrowedCount, 0LL);
        dealt += counters.count;
        cents += counters.grabbedCents;
    }
    QCOMPARE(dealt, 101LL);
    QCOMPARE(cents, grabbedCents);

    // A pool Redis does not hold reads as such; an error reply or another shape throws.
    const PoolCounters missing = PoolCounters::fromReply(campaign.redis.command(PoolCounters::readCommand(campaign.keys, "999999")));
    QVERIFY(!missing.inRedis());
    QCOMPARE(missing.grabbedCount + missing.grabbedCents + missing.count + missing.borrowedCount, 0LL);
    campaign.redis.command({"SET", campaign.keys.campaignMeta(QByteArray("999998")), "not a hash"});
    QVERIFY_THROWS_EXCEPTION(RedisReplyError,
                             PoolCounters::fromReply(campaign.redis.command(PoolCounters::readCommand(campaign.keys, "999998"))));
    QVERIFY_THROWS_EXCEPTION(RedisReplyError, PoolCounters::fromReply(campaign.redis.command({"PING"})));
}

void TestCampaignPools::dryPoolBorrowsInAStorm()
{
    QFETCH(DbUrl, url);
    constexpr qint64 Total = 4'000'000;
    constexpr qint64 Envelopes = 400;  // 100 per pool
    Launched campaign(m_redisUrl, Total, Envelopes, 4, url);
    const KeySchema &keys = campaign.keys;
    const qint64 campaignId = campaign.id;
    const CampaignPools &pools = campaign.pools;
    // 500 users of pool 0 (five per envelope it holds) and 100 of each other pool: pool 0 runs dry
    // first, and its users take what the others have left.
    QList<qint64> users = usersOfPool(pools, 0, 500);
    for (int home = 1; home < 4; ++home)
        users << usersOfPool(pools, home, 100, 1'000'000);
    std::atomic<qsizetype> next{0};
    std::mutex mutex;
    QHash<qint64, GrabOutcome> won;
    QHash<QString, int> outcomes;
    QList<QThread *> threads;
    for (int c = 0; c < 16; ++c) {
        threads << QThread::create([&] {
            RedisClient client(m_redisUrl);
            GrabService grabs(client, keys);
            for (qsizetype i = next++; i < users.size(); i = next++) {
                for (int attempt = 0; attempt < 2; ++attempt) {
                    const GrabOutcome outcome = grabs.grab(campaignId, users[i], Now);
                    const std::lock_guard lock(mutex);
                    ++outcomes[outcome.status];
                    if (outcome.status == QLatin1String("ok"))
                        won.insert(users[i], outcome);
                }
            }
        });
        threads.back()->start();
    }
    for (QThread *thread : threads) {
        QVERIFY(thread->wait(120000));
        delete thread;
    }
    QCOMPARE(outcomes.value(QStringLiteral("ok")), Envelopes);       // never over-issued
    QCOMPARE(qint64(won.size()), Envelopes);                        // never two to one user
    QCOMPARE(outcomes.value(QStringLiteral("already")), Envelopes);  // each winner's second try
    QCOMPARE(outcomes.value(QStringLiteral("sold_out")), (qint64(users.size()) - Envelopes) * 2);
    QSet<qint64> seqs;
    qint64 sum = 0;
    qint64 borrowedByPool0 = 0;
    for (auto it = won.cbegin(); it != won.cend(); ++it) {
        seqs.insert(it->seq);
        sum += it->amountCents;
        if (pools.homeOf(it.key()) == 0 && pools.poolOfSeq(it->seq) != 0)
            ++borrowedByPool0;
    }
    QCOMPARE(qint64(seqs.size()), Envelopes);  // every envelope to one user
    QCOMPARE(sum, Total);
    QVERIFY2(borrowedByPool0 > 0, "pool 0's users got envelopes of other pools");

    const CampaignSummary summary = campaign.service.show(campaignId);
    QCOMPARE(summary.grabbedCount, Envelopes);
    QCOMPARE(summary.grabbedCents, Total);
    QCOMPARE(summary.remainingCount, 0LL);
    qint64 borrowed = 0;
    for (const PoolProgress &pool : summary.pools) {
        QCOMPARE(pool.lentInFlight, 0LL);
        QCOMPARE(pool.grabbedCount, 100LL);
        borrowed += pool.borrowedCount;
    }
    QCOMPARE(borrowed, borrowedByPool0);

    // The worker drains every pool's queue; each grab is persisted and paid once.
    const EnvelopeDrainStats drained = campaign.drain();
    QCOMPARE(drained.persisted, Envelopes);
    QCOMPARE(drained.paid, Envelopes);
    QCOMPARE(campaign.violations(), QString());
    QCOMPARE(campaign.service.close(campaignId).refundedCents, 0LL);
    QCOMPARE(campaign.violations(), QString());
}

void TestCampaignPools::interruptedLendIsFinished()
{
    Launched campaign(m_redisUrl, 10'000, 6, 2);  // three envelopes a pool
    RedisClient &redis = campaign.redis;
    const KeySchema &keys = campaign.keys;
    GrabService &grabs = campaign.grabs;
    const CampaignPools &pools = campaign.pools;
    const qint64 id = campaign.id;
    const QList<qint64> home0 = usersOfPool(pools, 0, 5);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(grabs.grab(id, home0[i], Now).status, QStringLiteral("ok"));  // pool 0 is now dry

    // A grab of home0[3] killed after its lend: the envelope left pool 1 and is nobody's yet.
    const RedisValue lent = redis.command(poollending::lendCommand(keys, pools.name(1), pools.name(0), home0[3], Now));
    QCOMPARE(lent.elements.at(0).toBytes(), QByteArray("lent"));
    // One killed for home0[0], who already holds an envelope: the lent one must come back.
    redis.command(poollending::lendCommand(keys, pools.name(1), pools.name(0), home0[0], Now));
    PoolLending lending(redis, keys);
    QCOMPARE(lending.lentCount(pools), 2LL);
    QCOMPARE(redis.command({"LLEN", keys.campaignPool(pools.name(1))}).toInteger(), 1LL);
    // While they are lent, verify waits (no violation) and the money adds up.
    QCOMPARE(campaign.violations(), QString());

    // Too young to be taken for interrupted: left alone.
    QCOMPARE(lending.settleLent(pools, 10'000, Now + 5'000).found, 0LL);
    const LentSettlement settled = lending.settleLent(pools, 10'000, Now + 10'000);
    QCOMPARE(settled.found, 2LL);
    QCOMPARE(settled.kept, 1LL);
    QCOMPARE(settled.returned, 1LL);
    QCOMPARE(lending.lentCount(pools), 0LL);
    QCOMPARE(redis.command({"LLEN", keys.campaignPool(pools.name(1))}).toInteger(), 2LL);
    const GrabOutcome finished = grabs.grab(id, home0[3], Now);
    QCOMPARE(finished.status, QStringLiteral("already"));  // the interrupted grab was finished for its user
    QCOMPARE(pools.poolOfSeq(finished.seq), 1);
    // A second settlement finds nothing, and the interrupted client's own late steps change nothing.
    QCOMPARE(lending.settleLent(pools, 0, Now + 20'000).found, 0LL);
    QCOMPARE(redis.command(poollending::settleCommand(keys, pools.name(1), lent.elements.at(1).toBytes(), true)).toBytes(), QByteArray("settled"));
    QCOMPARE(redis.command(poollending::settleCommand(keys, pools.name(1), lent.elements.at(1).toBytes(), false)).toBytes(), QByteArray("settled"));

    // The last two envelopes go to home0[4] and a user of pool 1; then it is sold out everywhere.
    QCOMPARE(grabs.grab(id, home0[4], Now).status, QStringLiteral("ok"));
    QCOMPARE(grabs.grab(id, usersOfPool(pools, 1, 1).first(), Now).status, QStringLiteral("ok"));
    QCOMPARE(grabs.grab(id, usersOfPool(pools, 1, 2).last(), Now).status, QStringLiteral("sold_out"));
    QCOMPARE(grabs.grab(id, usersOfPool(pools, 0, 6).last(), Now).status, QStringLiteral("sold_out"));
    const CampaignSummary summary = campaign.service.show(id);
    QCOMPARE(summary.grabbedCount, 6LL);
    QCOMPARE(summary.grabbedCents, 10'000LL);
    QCOMPARE(campaign.violations(), QString());
}

void TestCampaignPools::closeSettlesLentEnvelopes()
{
    Launched campaign(m_redisUrl, 9'000, 9, 3);
    RedisClient &redis = campaign.redis;
    const KeySchema &keys = campaign.keys;
    GrabService &grabs = campaign.grabs;
    const CampaignPools &pools = campaign.pools;
    CampaignService &service = campaign.service;
    const qint64 id = campaign.id;
    const QList<qint64> home2 = usersOfPool(pools, 2, 5);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(grabs.grab(id, home2[i], Now).status, QStringLiteral("ok"));
    // home2[3]'s grab interrupted after its lend from pool 0; home2[0]'s (a holder) likewise.
    const RedisValue lent = redis.command(poollending::lendCommand(keys, pools.name(0), pools.name(2), home2[3], Now));
    redis.command(poollending::lendCommand(keys, pools.name(0), pools.name(2), home2[0], Now));

    // Close settles both: home2[3] keeps the envelope, home2[0]'s lent one joins the refund.
    const Campaign closed = service.close(id);
    const CampaignSummary summary = service.show(id);
    QCOMPARE(summary.grabbedCount, 4LL);
    QCOMPARE(closed.refundedCents, 9'000 - summary.grabbedCents);
    QCOMPARE(PoolLending(redis, keys).lentCount(pools), 0LL);
    const GrabOutcome kept = grabs.grab(id, home2[3], Now);
    QCOMPARE(kept.status, QStringLiteral("not_live"));
    QCOMPARE(redis.command({"HGET", keys.campaignDraws(pools.name(2)), QByteArray::number(home2[3])}).toBytes(), lent.elements.at(1).toBytes());
    QCOMPARE(campaign.violations(), QString());
}

void TestCampaignPools::grabWaitWithoutReplicas()
{
    // The private redis-server has no replica: WAIT gives up after its timeout and says 0. The
    // grab still happened (the envelope is the user's) and says how many replicas had it.
    Launched campaign(m_redisUrl, 300, 3, 1);
    const GrabOutcome outcome = GrabService(campaign.redis, campaign.keys, GrabWait{1, 5}).grab(campaign.id, 9, Now);
    QCOMPARE(outcome.status, QStringLiteral("ok"));
    QCOMPARE(outcome.replicas, 0);
    QCOMPARE(campaign.grabs.grab(campaign.id, 9, Now).seq, outcome.seq);
}

void TestCampaignPools::repairRebuildsEveryPool()
{
    // Redis forgets two of three pools (the first one's names field with it), with grabs both
    // persisted and still queued; the repair rebuilds each pool from the ledger and the queues.
    Launched campaign(m_redisUrl, 30'000, 30, 3);
    RedisClient &redis = campaign.redis;
    SqlConnection &sql = campaign.sql;
    const KeySchema &keys = campaign.keys;
    GrabService &grabs = campaign.grabs;
    const CampaignPools &pools = campaign.pools;
    const qint64 id = campaign.id;
    QList<qint64> users = usersOfPool(pools, 0, 14);  // pool 0 has 10: four of them borrow
    users << usersOfPool(pools, 1, 3, 1'000) << usersOfPool(pools, 2, 3, 1'000);
    QHash<qint64, GrabOutcome> won;
    for (qsizetype i = 0; i < users.size(); ++i) {
        won.insert(users[i], grabs.grab(id, users[i], Now));
        QCOMPARE(won[users[i]].status, QStringLiteral("ok"));
        if (i == 9)
            QCOMPARE(campaign.drain().persisted, 10LL);  // the first ten persisted and paid; the rest stay queued
    }
    CampaignRepair repair(redis, sql, keys);
    QVERIFY(repair.consistent(id));
    for (const QByteArray &pool : {pools.name(0), pools.name(1)})
        redis.command({"DEL", keys.campaignMeta(pool), keys.campaignPool(pool), keys.campaignDraws(pool), keys.campaignAttempts(pool)});
    CampaignPools::forget(keys, id);
    QVERIFY(!repair.consistent(id));

    const CampaignRepairReport report = repair.repair(id);
    QCOMPARE(report.ledgerGrabs, 10LL);
    QCOMPARE(report.inFlight, 10LL);
    QCOMPARE(report.grabbedCount, 20LL);
    QCOMPARE(report.poolAfter, 10LL);
    QVERIFY(repair.consistent(id));
    QCOMPARE(CampaignPools::read(redis, keys, id), pools);  // the names came back from SQL
    for (auto it = won.cbegin(); it != won.cend(); ++it) {
        const GrabOutcome again = grabs.grab(id, it.key(), Now);
        QCOMPARE(again.status, QStringLiteral("already"));
        QCOMPARE(again.seq, it->seq);
    }
    // The ten left go to ten new users, each once; then it is sold out.
    QSet<qint64> seqs;
    qint64 cents = 0;
    for (const GrabOutcome &outcome : std::as_const(won)) {
        seqs.insert(outcome.seq);
        cents += outcome.amountCents;
    }
    for (qint64 uid = 50'000; uid < 50'011; ++uid) {
        const GrabOutcome outcome = grabs.grab(id, uid, Now);
        if (uid == 50'010) {
            QCOMPARE(outcome.status, QStringLiteral("sold_out"));
            break;
        }
        QCOMPARE(outcome.status, QStringLiteral("ok"));
        QVERIFY(!seqs.contains(outcome.seq));
        seqs.insert(outcome.seq);
        cents += outcome.amountCents;
    }
    QCOMPARE(seqs.size(), 30);
    QCOMPARE(cents, 30'000LL);
    const EnvelopeDrainStats drained = campaign.drain();
    QCOMPARE(drained.persisted, 20LL);
    QCOMPARE(drained.refused, 0LL);
    QCOMPARE(campaign.violations(), QString());
}

LANTERN_TEST_SUITE(TestCampaignPools);

} // namespace tst_campaignpools

#include "tst_campaignpools.moc"
