// RedisPipe, the non-blocking client of `lanternd serve`'s event loops, on the real test Redis
// Cluster (scripts/services): the topology is discovered (and a single server stays one); a batch
// for many slots goes out as one write per master; -MOVED after a real reshard is followed and
// updates the map; -ASK on a half-migrated slot is followed without touching it; -TRYAGAIN is
// waited out, never blocking, then an outage; keys of two slots are refused before sending; a
// planned failover is followed, with the script body resent to the new master (NOSCRIPT).
#include "pipedriver.h"
#include "redis/clustertopology.h"
#include "redis/keyslot.h"
#include "redis/luascript.h"
#include "redis/rediserror.h"
#include "redis/redispipe.h"
#include "testcluster.h"
#include "testservers.h"
#include "testsuite.h"

#include <QTest>

namespace tst_redispipecluster {

using namespace lantern;
using namespace lantern::test;

namespace {

/** The slot map is read again only when the pipe asks (MOVED, a lost master), so each test sees
    the redirections it provokes rather than a periodic refresh. */
RedisOptions mapReadOnRequest()
{
    RedisOptions options;
    options.cluster.mapMaxAge = std::chrono::hours(1);
    return options;
}

/** A pipe on the cluster, with the topology it shares (as every event loop of serve does). */
struct ClusterPipe {
    explicit ClusterPipe(const RedisUrl &url, RedisOptions options = mapReadOnRequest())
        : topology(ClusterTopology::discover(url, options)), pipe(url, options, topology)
    {
    }

    /** One conversation of one round; its replies (empty when it failed: see outcome.error). */
    std::vector<RedisValue> run(QList<QByteArrayList> commands, Outcome &outcome)
    {
        if (!runOne(pipe, oneRound(std::move(commands)), outcome) || outcome.error || outcome.rounds.empty())
            return {};
        return outcome.rounds.front();
    }

    RedisValue run(const QByteArrayList &command)
    {
        Outcome outcome;
        const std::vector<RedisValue> replies = run(QList<QByteArrayList>{command}, outcome);
        if (outcome.error)
            qWarning("%s", qPrintable(messageOf(outcome.error)));
        return replies.empty() ? RedisValue{} : replies.front();
    }

    std::shared_ptr<ClusterTopology> topology;
    RedisPipe pipe;
};

} // namespace

class TestRedisPipeCluster final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void discoversTheTopology();
    void batchIsOneWritePerMaster();
    void movedAfterAReshard();
    void askWhileASlotIsHalfMigrated();
    void tryAgainIsWaitedOutThenAnOutage();
    void keysOfTwoSlotsAreRefusedBeforeSending();
    void plannedFailoverIsFollowed();

private:
    TestCluster m_cluster;
    QByteArray m_prefix;
    QList<int> m_masters;
};

void TestRedisPipeCluster::initTestCase()
{
    m_prefix = uniquePrefix().toUtf8();
    m_masters = m_cluster.settledMasters();
    QCOMPARE(m_masters.size(), 3);
}

void TestRedisPipeCluster::cleanup()
{
    // Whatever a test did to the cluster, the next one starts from the layout it was created with.
    QCOMPARE(m_cluster.settledMasters(), m_masters);
}

void TestRedisPipeCluster::discoversTheTopology()
{
    const auto topology = ClusterTopology::discover(m_cluster.url(), mapReadOnRequest());
    QVERIFY(topology);
    QCOMPARE(topology->snapshot().map->masters().size(), 3);
    QCOMPARE(topology->snapshot().map->uncoveredSlots(), 0);
    // One node's URL is enough: the others come from its map.
    const auto fromOneNode = ClusterTopology::discover(RedisUrl::parse(QStringLiteral("redis://127.0.0.1:%1").arg(m_masters.at(2))), {});
    QVERIFY(fromOneNode);
    QCOMPARE(fromOneNode->snapshot().map->masters().size(), 3);
    QVERIFY(!ClusterTopology::discover(redisUrl(), {}));  // a single server
}

void TestRedisPipeCluster::batchIsOneWritePerMaster()
{
    ClusterPipe cluster(m_cluster.url());
    QList<QByteArrayList> commands;
    QList<QByteArray> keys;
    for (const int master : std::as_const(m_masters)) {
        for (int i = 0; i < 3; ++i) {
            keys << m_cluster.keyServedBy(master, m_prefix + "batch" + QByteArray::number(i));
            commands << QByteArrayList{"SET", keys.last(), QByteArray::number(master)};
        }
    }
    // Two conversations started in the same turn: nine commands over three masters.
    Outcome first;
    Outcome second;
    cluster.pipe.start(oneRound(commands.mid(0, 5)), record(first));
    cluster.pipe.start(oneRound(commands.mid(5)), record(second));
    QVERIFY(drive(cluster.pipe, [&] { return first.ended() && second.ended(); }));
    QVERIFY2(!first.error && !second.error, qPrintable(messageOf(first.error) + messageOf(second.error)));
    for (const RedisValue &reply : first.rounds.front())
        QCOMPARE(reply.toBytes(), QByteArray("OK"));
    QCOMPARE(cluster.pipe.commandsSent(), quint64(9));
    QCOMPARE(cluster.pipe.writeCalls(), quint64(3));
    for (qsizetype i = 0; i < keys.size(); ++i) {
        const int master = m_masters.at(int(i / 3));
        QCOMPARE(m_cluster.checked(master, {"GET", keys.at(i)}).toBytes(), QByteArray::number(master));
    }
    QCOMPARE(cluster.pipe.routingStats().moved, quint64(0));
    for (const QByteArray &key : std::as_const(keys))
        cluster.run({"DEL", key});
}

void TestRedisPipeCluster::movedAfterAReshard()
{
    ClusterPipe cluster(m_cluster.url());
    const int home = m_masters.at(0);
    const int away = m_masters.at(1);
    const QByteArray key = m_cluster.keyServedBy(home, m_prefix + "moved");
    const int slot = keyslot::of(key);
    QCOMPARE(cluster.run({"SET", key, "v"}).toBytes(), QByteArray("OK"));

    m_cluster.moveSlot(slot, away);  // a real reshard: IMPORTING, MIGRATING, MIGRATE, SETSLOT NODE
    // The pipe's map still says `home`: MOVED, then the command on `away`, which runs it once.
    QCOMPARE(cluster.run({"APPEND", key, "2"}).toInteger(), 2LL);
    QCOMPARE(cluster.pipe.routingStats().moved, quint64(1));
    QCOMPARE(m_cluster.checked(away, {"GET", key}).toBytes(), QByteArray("v2"));
    QCOMPARE(cluster.run({"GET", key}).toBytes(), QByteArray("v2"));
    QCOMPARE(cluster.pipe.routingStats().moved, quint64(1));  // the map knows now
    QTRY_VERIFY_WITH_TIMEOUT(cluster.topology->reads() >= 1, 10000);  // and the topology reads it again, on its thread

    m_cluster.moveSlot(slot, home);  // and back
    QCOMPARE(cluster.run({"GET", key}).toBytes(), QByteArray("v2"));
    QCOMPARE(cluster.pipe.routingStats().moved, quint64(2));
    cluster.run({"DEL", key});
}

void TestRedisPipeCluster::askWhileASlotIsHalfMigrated()
{
    ClusterPipe cluster(m_cluster.url());
    const int home = m_masters.at(0);
    const int away = m_masters.at(2);
    const QByteArray moved = m_cluster.keyServedBy(home, m_prefix + "ask", ":moved");
    const int slot = keyslot::of(moved);
    const QByteArray tag = keyslot::hashedPart(moved).toByteArray();
    const QByteArray stays = m_prefix + "ask{" + tag + "}:stays";
    const QByteArray fresh = m_prefix + "ask{" + tag + "}:fresh";
    cluster.run({"SET", moved, "m"});
    cluster.run({"SET", stays, "s"});

    m_cluster.beginMove(slot, away, {moved});  // frozen: `moved` on the target, `stays` on the source
    const quint64 readsBefore = cluster.topology->reads();
    QCOMPARE(cluster.run({"GET", moved}).toBytes(), QByteArray("m"));  // -ASK, then ASKING + GET on the target
    QCOMPARE(cluster.run({"GET", stays}).toBytes(), QByteArray("s"));  // the source still has it
    QCOMPARE(cluster.run({"SET", fresh, "f"}).toBytes(), QByteArray("OK"));
    QCOMPARE(m_cluster.pipeline(away, {{"ASKING"}, {"GET", fresh}}).at(1).toBytes(), QByteArray("f"));
    QCOMPARE(cluster.pipe.routingStats().asked, quint64(2));
    QCOMPARE(cluster.pipe.routingStats().moved, quint64(0));  // the map was left alone
    QCOMPARE(cluster.topology->reads(), readsBefore);

    m_cluster.finishMove(slot, away);
    m_cluster.moveSlot(slot, home);
    for (const QByteArray &key : {moved, stays, fresh})
        cluster.run({"DEL", key});
}

void TestRedisPipeCluster::tryAgainIsWaitedOutThenAnOutage()
{
    RedisOptions options = mapReadOnRequest();
    options.cluster.retryWindow = std::chrono::milliseconds(300);
    ClusterPipe cluster(m_cluster.url(), options);
    const int home = m_masters.at(1);
    const int away = m_masters.at(2);
    const QByteArray first = m_cluster.keyServedBy(home, m_prefix + "wait", ":1");
    const QByteArray second = m_prefix + "wait{" + keyslot::hashedPart(first).toByteArray() + "}:2";
    const int slot = keyslot::of(first);
    cluster.run({"SET", first, "1"});
    cluster.run({"SET", second, "2"});
    m_cluster.beginMove(slot, away, {first});

    // Keys on both sides of a half-migrated slot: -TRYAGAIN, sent again after growing pauses
    // (the loop sleeps in between: nextDeadlineNs()), then RedisNotReadyError.
    Outcome outcome;
    cluster.run({{"MGET", first, second}}, outcome);
    QVERIFY(outcome.ended());
    QVERIFY2(holds<RedisNotReadyError>(outcome.error), qPrintable(messageOf(outcome.error)));
    try {
        std::rethrow_exception(outcome.error);
    } catch (const RedisNotReadyError &error) {
        QCOMPARE(error.state(), RedisNotReadyError::State::TryAgain);
    }
    QVERIFY(cluster.pipe.routingStats().retried >= 2);
    QVERIFY(cluster.pipe.isIdle());

    m_cluster.finishMove(slot, away);
    const RedisValue both = cluster.run({"MGET", first, second});
    QCOMPARE(both.elements.at(0).toBytes() + both.elements.at(1).toBytes(), QByteArray("12"));
    m_cluster.moveSlot(slot, home);
    cluster.run({"DEL", first, second});
}

void TestRedisPipeCluster::keysOfTwoSlotsAreRefusedBeforeSending()
{
    ClusterPipe cluster(m_cluster.url());
    const QByteArray a = m_cluster.keyServedBy(m_masters.at(0), m_prefix + "a");
    const QByteArray b = m_cluster.keyServedBy(m_masters.at(1), m_prefix + "b");
    Outcome outcome;
    cluster.run({{"MGET", a, b}}, outcome);
    QVERIFY2(holds<RedisClusterRefusal>(outcome.error), qPrintable(messageOf(outcome.error)));
    QCOMPARE(cluster.pipe.commandsSent(), quint64(0));
}

void TestRedisPipeCluster::plannedFailoverIsFollowed()
{
    ClusterPipe cluster(m_cluster.url());
    const int oldMaster = m_masters.at(1);
    const QByteArray list = m_cluster.keyServedBy(oldMaster, m_prefix + "failover", ":list");
    const LuaScript script(QStringLiteral("pop"), "-- pipe " + m_prefix + "\nreturn redis.call('LPOP', KEYS[1])");
    cluster.run({"RPUSH", list, "a", "b"});
    QCOMPARE(cluster.run(script.evalshaCommand({list}, {})).toBytes(), QByteArray("a"));

    // The replica takes over: it has the list, not the script. The old master answers MOVED.
    const int newMaster = m_cluster.failOver(oldMaster);
    QCOMPARE(m_cluster.checked(newMaster, {"SCRIPT", "EXISTS", script.sha1()}).elements.at(0).integer, 0LL);
    QCOMPARE(cluster.run(script.evalshaCommand({list}, {})).toBytes(), QByteArray("b"));  // MOVED, NOSCRIPT, EVAL
    QVERIFY(cluster.pipe.routingStats().moved >= 1);
    QCOMPARE(m_cluster.checked(newMaster, {"LLEN", list}).integer, 0LL);

    m_cluster.failOver(newMaster);  // back as it was
    cluster.run({"DEL", list});
}

LANTERN_TEST_SUITE(TestRedisPipeCluster);

} // namespace tst_redispipecluster

#include "tst_redispipecluster.moc"
