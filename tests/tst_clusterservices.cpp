// The hot paths on a real Redis Cluster (scripts/services), through the services the commands
// use, no mocks: check-ins whose shards' hash tags land on every master, a month with a make-up
// and its calendar, and a grab storm from several clients over campaigns served by different
// masters (never over-issued, never two envelopes to one user, sums exact). What each wrote is
// checked on the master that serves it, over a connection of the test's own.
#include "checkin/checkinlayout.h"
#include "checkin/checkinservice.h"
#include "envelope/campaignpools.h"
#include "envelope/campaignservice.h"
#include "envelope/campaignverifier.h"
#include "envelope/grabservice.h"
#include "redis/keyschema.h"
#include "redis/keyslot.h"
#include "redis/redisclient.h"
#include "redis/rediscluster.h"
#include "redis/rediserror.h"
#include "sql/sqlconnection.h"
#include "testcluster.h"
#include "testservers.h"
#include "testsuite.h"

#include <QSet>
#include <QTest>

#include <atomic>
#include <mutex>
#include <thread>

namespace tst_clusterservices {

using namespace lantern;

namespace {
constexpr qint64 ClusterNow = 1795000000000;

/** What four clients got grabbing once for every user in every campaign. */
struct Storm {
    QMap<qint64, QMap<qint64, GrabOutcome>> won;  // campaign -> uid -> outcome
    QMap<qint64, int> soldOut;                     // campaign -> sold_out answers
    int failures = 0;                              // any other answer, or an error
};

/** Four clients, each with a connection per master, share the users; each grabs for its users
    in every campaign. */
Storm grabStorm(const RedisUrl &url, const KeySchema &keys, const QList<qint64> &campaigns, const QList<qint64> &users)
{
    std::mutex mutex;
    Storm storm;
    std::vector<std::thread> clients;
    for (int c = 0; c < 4; ++c) {
        clients.emplace_back([&, c] {
            try {
                RedisClient redis(url);
                GrabService grabs(redis, keys);
                for (qsizetype i = c; i < users.size(); i += 4) {
                    for (const qint64 id : campaigns) {
                        const GrabOutcome outcome = grabs.grab(id, users[i], ClusterNow);
                        const std::lock_guard lock(mutex);
                        if (outcome.status == QLatin1String("ok"))
                            storm.won[id].insert(users[i], outcome);
                        else if (outcome.status == QLatin1String("sold_out"))
                            ++storm.soldOut[id];
                        else
                            ++storm.failures;
                    }
                }
            } catch (const std::exception &) {
                const std::lock_guard lock(mutex);
                ++storm.failures;
            }
        });
    }
    for (std::thread &client : clients)
        client.join();
    return storm;
}
} // namespace

class TestClusterServices : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void checkinsLandOnEveryMaster();
    void monthWithAMakeup();
    void grabStormOverCampaignsOnEveryMaster();
    void subPoolsOnEveryMasterBorrowWhenDry();
    void grabWaitsForItsReplica();

private:
    test::TestCluster m_cluster;
    RedisUrl m_url;
    QList<int> m_masters;
};

void TestClusterServices::initTestCase()
{
    m_cluster.waitUntilSettled();
    m_url = m_cluster.url();
    m_masters = m_cluster.masters();
    QCOMPARE(m_masters.size(), 3);
}

void TestClusterServices::checkinsLandOnEveryMaster()
{
    const KeySchema keys(test::uniquePrefix());  // 16 shards: {ck:0} .. {ck:15}
    QSet<int> shardMasters;
    for (int shard = 0; shard < keys.shards(); ++shard)
        shardMasters.insert(m_cluster.masterOf(m_cluster.keySlot(keys.checkinQueue(shard))));
    QCOMPARE(shardMasters.size(), 3);  // the premise: the shards spread over the masters

    RedisClient redis(m_url);
    CheckinService service(redis, keys, CheckinRules{});
    const QDate day(2026, 11, 23);
    for (qint64 uid = 1; uid <= 48; ++uid) {
        const CheckinOutcome outcome = service.checkin(uid, day, day, ClusterNow);
        QVERIFY(!outcome.already);
        QCOMPARE(outcome.streak, 1);
        QCOMPARE(outcome.points, 10);
    }
    for (qint64 uid = 1; uid <= 48; ++uid)
        QVERIFY(service.checkin(uid, day, day, ClusterNow).already);  // a repeat changes nothing

    // On the master of each shard: its users' bits, its block set and its queue (one entry per user).
    const CheckinLayout layout(keys);
    for (int shard = 0; shard < keys.shards(); ++shard) {
        const int owner = m_cluster.masterOf(m_cluster.keySlot(keys.checkinQueue(shard)));
        QCOMPARE(m_cluster.checked(owner, {"LLEN", keys.checkinQueue(shard)}).integer, 3LL);
        QCOMPARE(m_cluster.checked(owner, {"SCARD", keys.monthBlocks(shard, day)}).integer, 1LL);
        for (qint64 uid = shard == 0 ? 16 : shard; uid <= 48; uid += 16) {
            const UserPlace user = layout.place(uid);
            QCOMPARE(m_cluster.checked(owner, {"GETBIT", layout.signKey(user, day), QByteArray::number(user.slot * 32 + 22)}).integer, 1LL);
        }
    }
    QCOMPARE(redis.routingStats().moved, quint64(0));
}

void TestClusterServices::monthWithAMakeup()
{
    RedisClient redis(m_url);
    const KeySchema keys(test::uniquePrefix());
    CheckinService service(redis, keys, CheckinRules{});
    for (const qint64 uid : {qint64(7), qint64(8), qint64(9)}) {  // three shards, more than one master
        QList<int> points;
        for (int d : {1, 2, 3, 5, 6})
            points << service.checkin(uid, QDate(2026, 11, d), QDate(2026, 11, d), ClusterNow).points;
        QCOMPARE(points, (QList<int>{10, 20, 30, 10, 20}));
        const CheckinOutcome makeup = service.makeup({uid, QDate(2026, 11, 4), QStringLiteral("alice"), QStringLiteral("outage")},
                                                     QDate(2026, 11, 6), ClusterNow);
        QCOMPARE(makeup.streak, 6);
        const CalendarMonth calendar = service.calendar(uid, QDate(2026, 11, 1), QDate(2026, 11, 6));
        QCOMPARE(calendar.signedDays, (QList<int>{1, 2, 3, 4, 5, 6}));
        QCOMPARE(calendar.makeupDays, QList<int>{4});
        QCOMPARE(calendar.streak, 6);
    }
}

void TestClusterServices::grabStormOverCampaignsOnEveryMaster()
{
    const DbUrl db = test::sqliteUrl();
    test::resetTables(db);
    const KeySchema keys(test::uniquePrefix());
    constexpr qint64 Count = 60;
    constexpr qint64 Total = 6'000;
    constexpr qint64 Users = 100;

    // Campaigns until every master serves one ({cp:ID} decides the slot).
    QMap<int, qint64> campaignOn;  // master port -> campaign id
    {
        RedisClient redis(m_url);
        SqlConnection sql(db);
        CampaignService service(redis, sql, keys);
        for (int i = 0; i < 30 && campaignOn.size() < 3; ++i) {
            CampaignDraft draft;
            draft.name = QStringLiteral("storm");
            draft.totalCents = Total;
            draft.count = Count;
            draft.seed = 7;
            const Campaign campaign = service.create(draft, ClusterNow);
            const int master = m_cluster.masterOf(m_cluster.keySlot(keys.campaignPool(campaign.id)));
            if (!campaignOn.contains(master)) {
                service.launch(campaign.id);
                campaignOn.insert(master, campaign.id);
            }
        }
    }
    QCOMPARE(campaignOn.size(), 3);
    const QList<qint64> campaigns = campaignOn.values();

    // Four clients, each a connection per master, grab for every user in every campaign.
    QList<qint64> users;
    for (qint64 uid = 1; uid <= Users; ++uid)
        users << uid;
    const Storm storm = grabStorm(m_url, keys, campaigns, users);
    QCOMPARE(storm.failures, 0);
    const QMap<qint64, QMap<qint64, GrabOutcome>> &won = storm.won;
    const QMap<qint64, int> &soldOut = storm.soldOut;

    RedisClient redis(m_url);
    GrabService grabs(redis, keys);
    for (auto it = campaignOn.cbegin(); it != campaignOn.cend(); ++it) {
        const qint64 id = it.value();
        const QMap<qint64, GrabOutcome> &winners = won[id];
        QCOMPARE(qint64(winners.size()), Count);
        QCOMPARE(qint64(soldOut[id]), Users - Count);
        QSet<qint64> seqs;
        qint64 sum = 0;
        for (const GrabOutcome &outcome : winners) {
            seqs.insert(outcome.seq);
            sum += outcome.amountCents;
        }
        QCOMPARE(qint64(seqs.size()), Count);  // no envelope twice
        QCOMPARE(sum, Total);
        // A repeat answers the user's own envelope.
        const GrabOutcome again = grabs.grab(id, winners.firstKey(), ClusterNow);
        QCOMPARE(again.status, QStringLiteral("already"));
        QCOMPARE(again.seq, winners.first().seq);
        // On the master that serves the campaign: the pool empty, one draw and one task per winner.
        QCOMPARE(m_cluster.checked(it.key(), {"LLEN", keys.campaignPool(id)}).integer, 0LL);
        QCOMPARE(m_cluster.checked(it.key(), {"HLEN", keys.campaignDraws(id)}).integer, Count);
        QCOMPARE(m_cluster.checked(it.key(), {"LLEN", keys.campaignTasks(id)}).integer, Count);
    }
}

void TestClusterServices::subPoolsOnEveryMasterBorrowWhenDry()
{
    const DbUrl db = test::sqliteUrl();
    test::resetTables(db);
    const KeySchema keys(test::uniquePrefix());
    constexpr qint64 Count = 120;  // 30 a pool
    constexpr qint64 Total = 12'000;
    RedisClient redis(m_url);
    SqlConnection sql(db);
    CampaignService service(redis, sql, keys);
    CampaignDraft draft;
    draft.name = QStringLiteral("one giant campaign");
    draft.totalCents = Total;
    draft.count = Count;
    draft.seed = 5;
    draft.pools = 4;
    const qint64 id = service.create(draft, ClusterNow).id;
    service.launch(id);

    // The pools' tags were chosen so they spread over the masters: one each, the fourth on the
    // first pool's master again.
    const CampaignPools pools = CampaignPools::read(redis, keys, id);
    QList<int> owners;
    for (const QByteArray &pool : pools.names())
        owners << m_cluster.masterOf(m_cluster.keySlot(keys.campaignPool(pool)));
    QCOMPARE(QSet<int>(owners.cbegin(), owners.cbegin() + 3).size(), 3);
    QCOMPARE(owners[3], owners[0]);

    // 90 users of pool 0 and 15 of each other: pool 0 runs dry first and borrows across masters.
    QList<qint64> users;
    for (qint64 uid = 1; users.size() < 90; ++uid) {
        if (pools.homeOf(uid) == 0)
            users << uid;
    }
    for (int home = 1; home < 4; ++home) {
        int taken = 0;
        for (qint64 uid = 100'000; taken < 15; ++uid) {
            if (pools.homeOf(uid) == home) {
                users << uid;
                ++taken;
            }
        }
    }
    const Storm storm = grabStorm(m_url, keys, {id}, users);
    QCOMPARE(storm.failures, 0);
    const QMap<qint64, GrabOutcome> won = storm.won.value(id);
    const int soldOut = storm.soldOut.value(id);
    QCOMPARE(qint64(won.size()), Count);
    QCOMPARE(qint64(soldOut), qint64(users.size()) - Count);
    QSet<qint64> seqs;
    qint64 sum = 0;
    int borrowed = 0;
    for (auto it = won.cbegin(); it != won.cend(); ++it) {
        seqs.insert(it->seq);
        sum += it->amountCents;
        borrowed += pools.poolOfSeq(it->seq) != pools.homeOf(it.key()) ? 1 : 0;
    }
    QCOMPARE(qint64(seqs.size()), Count);
    QCOMPARE(sum, Total);
    // At least 75 of the 120 winners live in pool 0, which held 30: the rest came from other pools.
    QVERIFY2(borrowed >= 45, qPrintable(QString::number(borrowed)));
    // On each pool's own master: the pool empty, nothing lent, a draw and a task per home user.
    qint64 draws = 0;
    for (int index = 0; index < 4; ++index) {
        const QByteArray &pool = pools.name(index);
        const int owner = m_cluster.masterOf(m_cluster.keySlot(keys.campaignPool(pool)));
        QCOMPARE(m_cluster.checked(owner, {"LLEN", keys.campaignPool(pool)}).integer, 0LL);
        QCOMPARE(m_cluster.checked(owner, {"HLEN", keys.campaignLent(pool)}).integer, 0LL);
        const qint64 held = m_cluster.checked(owner, {"HLEN", keys.campaignDraws(pool)}).integer;
        QCOMPARE(m_cluster.checked(owner, {"LLEN", keys.campaignTasks(pool)}).integer, held);
        draws += held;
    }
    QCOMPARE(draws, Count);
    const GrabOutcome again = GrabService(redis, keys).grab(id, won.firstKey(), ClusterNow);
    QCOMPARE(again.status, QStringLiteral("already"));
    QCOMPARE(again.seq, won.first().seq);
    QVERIFY(CampaignVerifier(redis, sql, keys).verify(id).isEmpty());
    QCOMPARE(service.close(id).refundedCents, 0LL);
}

void TestClusterServices::grabWaitsForItsReplica()
{
    // grab-wait: each write round ends with WAIT, which the client sends to the node of the script
    // before it. Every master here has one replica, so each grab is acknowledged by it; a borrowed
    // grab waits after its lend and its receive, on two masters.
    const DbUrl db = test::sqliteUrl();
    test::resetTables(db);
    const KeySchema keys(test::uniquePrefix());
    RedisClient redis(m_url);
    SqlConnection sql(db);
    CampaignService service(redis, sql, keys);
    CampaignDraft draft;
    draft.name = QStringLiteral("waited");
    draft.totalCents = 600;
    draft.count = 6;
    draft.pools = 3;
    const qint64 id = service.create(draft, ClusterNow).id;
    service.launch(id);
    const CampaignPools pools = CampaignPools::read(redis, keys, id);
    GrabService grabs(redis, keys, GrabWait{1, 2000});
    QList<qint64> home0;
    for (qint64 uid = 1; home0.size() < 4; ++uid) {
        if (pools.homeOf(uid) == 0)
            home0 << uid;
    }
    for (const qint64 uid : std::as_const(home0)) {  // two from pool 0, then two borrowed
        const GrabOutcome outcome = grabs.grab(id, uid, ClusterNow);
        QCOMPARE(outcome.status, QStringLiteral("ok"));
        QCOMPARE(outcome.replicas, 1);
    }
    QCOMPARE(GrabService(redis, keys).grab(id, home0.first(), ClusterNow).replicas, -1);  // off: no WAIT sent

    // WAIT on its own has no node to go to on a cluster: refused before anything is sent.
    QVERIFY_THROWS_EXCEPTION(RedisClusterRefusal, redis.command({"WAIT", "1", "10"}));
}

LANTERN_TEST_SUITE(TestClusterServices);

} // namespace tst_clusterservices

#include "tst_clusterservices.moc"
