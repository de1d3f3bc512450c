// RedisClient on a real Redis Cluster (3 masters, 3 replicas: scripts/services), no mocks:
// detection on connect, slots as the server computes them, commands and pipelines over keys on
// every master (one write per node, replies in the caller's order), keyless commands, CROSSSLOT
// refused before sending, MOVED after a real reshard, ASK and TRYAGAIN with a slot frozen
// half-migrated, a dead first seed, AUTH on every node, NOSCRIPT after a real failover, and a
// write whose connection broke before its reply (never sent again).
#include "core/errors.h"
#include "privateserver.h"
#include "redis/keyslot.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediscluster.h"
#include "redis/redisconversation.h"
#include "redis/redisdurability.h"
#include "redis/redisrunwatch.h"
#include "redis/rediserror.h"
#include "testcluster.h"
#include "testservers.h"
#include "testsuite.h"

#include <QDeadlineTimer>
#include <QScopeGuard>
#include <QTest>
#include <QThread>

#include <future>
#include <utility>

namespace tst_rediscluster {

using namespace lantern;
using namespace std::chrono_literals;

namespace {

QByteArray infoValue(const QByteArray &info, const QByteArray &name)
{
    const QByteArray key = name + ':';
    for (const QByteArray &line : info.split('\n')) {
        if (line.startsWith(key))
            return line.mid(key.size()).trimmed();
    }
    return {};
}

/** Options under which the slot map is read again only when routing asks for it, so a test
    sees the MOVED it provokes rather than a periodic refresh. */
RedisOptions noPeriodicRefresh()
{
    RedisOptions options;
    options.cluster.mapMaxAge = std::chrono::hours(1);
    return options;
}

/** How many times the node answered `code` (INFO errorstats), e.g. "TRYAGAIN". */
long long errorCount(const test::TestCluster &cluster, int port, const QByteArray &code)
{
    const QByteArray line = infoValue(cluster.checked(port, {"INFO", "errorstats"}).string, "errorstat_" + code);
    return line.isEmpty() ? 0 : line.mid(line.indexOf('=') + 1).toLongLong();
}

} // namespace

class TestRedisCluster : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void detectsTheClusterOnConnect();
    void aSingleServerStaysASingleServer();
    void slotsAgreeWithTheServer();
    void commandsReachEveryMaster();
    void pipelineIsOneWritePerNodeInTheCallersOrder();
    void keylessCommands();
    void crossSlotIsRefusedBeforeSending();
    void movedAfterAReshard();
    void askWhileASlotIsHalfMigrated();
    void tryAgainIsWaitedOutUntilTheMoveEnds();
    void clusterDownIsWaitedOutThenAnOutage();
    void deadFirstSeedDoesNotStopAStart();
    void noSeedAnswers();
    void authAppliesToEveryNode();
    void noscriptAfterAFailover();
    void writeLostWithItsConnectionIsNotResent();
    void everyMasterAnswersForItself();
    void runWatchSeesAFailover();
    void durabilityIsTheWeakestMasters();

private:
    test::TestCluster m_cluster;
    QByteArray m_prefix;
    QList<int> m_masters;
};

void TestRedisCluster::initTestCase()
{
    m_prefix = test::uniquePrefix().toUtf8();
    m_masters = m_cluster.settledMasters();
    QCOMPARE(m_masters.size(), 3);
}

void TestRedisCluster::cleanup()
{
    // Whatever a test did to the cluster, the next one starts from the layout it was created with.
    QCOMPARE(m_cluster.settledMasters(), m_masters);
}

void TestRedisCluster::detectsTheClusterOnConnect()
{
    // One node's URL, as --redis redis://host:port would give it: the client finds the others.
    RedisUrl one;
    one.host = QStringLiteral("127.0.0.1");
    one.port = m_masters.at(1);
    RedisClient client(one);
    client.ensureConnected();
    QVERIFY(client.isCluster());
    QVERIFY(client.isConnected());
    QCOMPARE(client.clusterMasters().size(), 3);
    QCOMPARE(client.command({"PING"}).toBytes(), QByteArray("PONG"));
}

void TestRedisCluster::aSingleServerStaysASingleServer()
{
    RedisClient client(test::redisUrl());
    client.ensureConnected();
    QVERIFY(!client.isCluster());
    QCOMPARE(client.routingStats().mapReads, quint64(0));
    // A single server keeps running what a cluster refuses: keys of any slot together.
    QCOMPARE(client.command({"DEL", m_prefix + "{a}x", m_prefix + "{b}y"}).toInteger(), 0LL);
}

void TestRedisCluster::slotsAgreeWithTheServer()
{
    QByteArrayList keys{"123456789", "{user1000}.following", "foo{}{bar}", "foo{{bar}}zap", "foo{bar}{zap}", "{", "}", "{}",
                        "", "lt:{cp:1}:pool", "lt:{ck:15}:queue", QByteArray("\xff\x00\x01key", 6), "红包{用户}"};
    for (int i = 0; i < 200; ++i)
        keys << m_prefix + QByteArray::number(i * 7919) + (i % 3 == 0 ? "{tag" + QByteArray::number(i) + "}" : QByteArray());
    for (const QByteArray &key : std::as_const(keys))
        QVERIFY2(keyslot::of(key) == m_cluster.keySlot(key), key.toHex().constData());
}

void TestRedisCluster::commandsReachEveryMaster()
{
    RedisClient client(m_cluster.url());
    for (const int master : std::as_const(m_masters)) {
        const QByteArray key = m_cluster.keyServedBy(master, m_prefix + "every");
        QCOMPARE(client.command({"SET", key, QByteArray::number(master)}).toBytes(), QByteArray("OK"));
        QCOMPARE(client.command({"GET", key}).toBytes(), QByteArray::number(master));
        // It lives on the master that serves its slot; the others send there.
        for (const int other : std::as_const(m_masters)) {
            const RedisValue exists = m_cluster.command(other, {"EXISTS", key});
            if (other == master)
                QCOMPARE(exists.integer, 1LL);
            else
                QVERIFY2(exists.isError() && exists.string.startsWith("MOVED"), exists.string.constData());
        }
        client.command({"DEL", key});
    }
    QCOMPARE(client.routingStats().moved, quint64(0));
}

void TestRedisCluster::pipelineIsOneWritePerNodeInTheCallersOrder()
{
    RedisClient client(m_cluster.url());
    client.ensureConnected();
    QByteArrayList keys;
    for (const int master : std::as_const(m_masters)) {
        for (int i = 0; i < 3; ++i)
            keys << m_cluster.keyServedBy(master, m_prefix + "pipe" + QByteArray::number(i) + ':');
    }
    const QByteArray text = m_cluster.keyServedBy(m_masters.at(2), m_prefix + "text");
    client.command({"SET", text, "not a number"});
    QList<QByteArrayList> commands;
    for (int round = 0; round < 50; ++round) {
        for (const QByteArray &key : std::as_const(keys))
            commands << QByteArrayList{"INCR", key};
    }
    commands << QByteArrayList{"INCR", text} << QByteArrayList{"GET", keys.first()} << QByteArrayList{"PING"};

    const RedisRoutingStats before = client.routingStats();
    const std::vector<RedisValue> replies = client.pipeline(commands);
    const RedisRoutingStats after = client.routingStats();
    QCOMPARE(replies.size(), size_t(commands.size()));
    for (int round = 0; round < 50; ++round) {
        for (qsizetype k = 0; k < keys.size(); ++k)
            QCOMPARE(replies[size_t(round * keys.size() + k)].integer, round + 1);
    }
    QVERIFY(replies[size_t(commands.size() - 3)].isError());  // one error, in its place
    QCOMPARE(replies[size_t(commands.size() - 2)].toBytes(), QByteArray("50"));
    QCOMPARE(replies[size_t(commands.size() - 1)].toBytes(), QByteArray("PONG"));
    QCOMPARE(after.nodeWrites - before.nodeWrites, quint64(3));  // one write per master
    QCOMPARE(after.moved + after.asked, before.moved + before.asked);

    keys << text;
    for (const QByteArray &key : std::as_const(keys))
        client.command({"DEL", key});
}

void TestRedisCluster::keylessCommands()
{
    RedisClient client(m_cluster.url());
    QCOMPARE(client.command({"PING"}).toBytes(), QByteArray("PONG"));
    QVERIFY(client.command({"INFO", "server"}).toBytes().contains("redis_version:"));

    long long total = 0;
    for (const int master : std::as_const(m_masters))
        total += m_cluster.checked(master, {"DBSIZE"}).integer;
    QCOMPARE(client.command({"DBSIZE"}).toInteger(), total);  // the sum over the masters

    // SCRIPT LOAD reaches every master: a script any key may need is loaded everywhere.
    const QByteArray body = "return '" + m_prefix + "'";
    const QByteArray sha = client.command({"SCRIPT", "LOAD", body}).toBytes();
    for (const int master : std::as_const(m_masters))
        QCOMPARE(m_cluster.checked(master, {"SCRIPT", "EXISTS", sha}).elements.at(0).integer, 1LL);
}

void TestRedisCluster::crossSlotIsRefusedBeforeSending()
{
    RedisClient client(m_cluster.url());
    const QByteArray a = m_prefix + "{a}x";
    const QByteArray b = m_prefix + "{b}y";
    QVERIFY(keyslot::of(a) != keyslot::of(b));
    client.command({"SET", a, "1"});
    const quint64 trips = client.roundTrips();
    try {
        client.command({"DEL", a, b});
        QFAIL("a DEL over two slots was sent");
    } catch (const RedisClusterRefusal &error) {
        QVERIFY2(error.message().contains(QLatin1String("different slots")), qPrintable(error.message()));
        QVERIFY2(error.message().contains(QString::fromUtf8(a)), qPrintable(error.message()));
    }
    QCOMPARE(client.roundTrips(), trips);
    QCOMPARE(client.command({"GET", a}).toBytes(), QByteArray("1"));  // nothing was sent

    // A transaction over two slots: refused whole, even the part on one slot.
    QVERIFY_THROWS_EXCEPTION(RedisClusterRefusal, client.pipeline({{"MULTI"}, {"DEL", a}, {"SET", b, "2"}, {"EXEC"}}));
    QCOMPARE(client.command({"GET", a}).toBytes(), QByteArray("1"));
    // A script whose keys span slots, and commands with no cluster-wide answer.
    QVERIFY_THROWS_EXCEPTION(RedisClusterRefusal, client.command({"EVAL", "return 1", "2", a, b}));
    QVERIFY_THROWS_EXCEPTION(RedisClusterRefusal, client.command({"SCAN", "0"}));
    QVERIFY_THROWS_EXCEPTION(RedisClusterRefusal, client.command({"KEYS", "*"}));

    // One slot is fine, in a transaction too.
    const QByteArray a2 = m_prefix + "{a}z";
    const std::vector<RedisValue> replies = client.pipeline({{"MULTI"}, {"SET", a2, "2"}, {"MGET", a, a2}, {"EXEC"}});
    QCOMPARE(replies.back().elements.size(), size_t(2));
    QCOMPARE(replies.back().elements.at(1).elements.at(1).toBytes(), QByteArray("2"));
    client.command({"DEL", a, a2});
}

void TestRedisCluster::movedAfterAReshard()
{
    RedisClient client(m_cluster.url(), noPeriodicRefresh());
    const int home = m_masters.at(0);
    const int away = m_masters.at(1);
    const QByteArray key = m_cluster.keyServedBy(home, m_prefix + "moved");
    const QByteArray other = m_cluster.keyServedBy(m_masters.at(2), m_prefix + "still");
    const int slot = keyslot::of(key);
    client.pipeline({{"SET", key, "v"}, {"SET", other, "w"}});

    m_cluster.moveSlot(slot, away);  // a real reshard: IMPORTING, MIGRATING, MIGRATE, SETSLOT NODE
    QCOMPARE(m_cluster.checked(away, {"GET", key}).toBytes(), QByteArray("v"));
    const RedisRoutingStats before = client.routingStats();
    // The client's map still says `home`: a MOVED, the map updated and read again once.
    const std::vector<RedisValue> replies = client.pipeline({{"GET", key}, {"GET", other}, {"APPEND", key, "2"}});
    QCOMPARE(replies.at(0).toBytes(), QByteArray("v"));
    QCOMPARE(replies.at(1).toBytes(), QByteArray("w"));
    QCOMPARE(replies.at(2).toInteger(), 2LL);  // ran once: "v2"
    RedisRoutingStats after = client.routingStats();
    QCOMPARE(after.moved - before.moved, quint64(2));  // both commands on the moved slot
    QCOMPARE(after.mapReads - before.mapReads, quint64(1));
    QCOMPARE(client.command({"GET", key}).toBytes(), QByteArray("v2"));
    QCOMPARE(client.routingStats().moved, after.moved);  // the map knows now

    m_cluster.moveSlot(slot, home);  // and back
    QCOMPARE(client.command({"GET", key}).toBytes(), QByteArray("v2"));
    QCOMPARE(client.routingStats().moved - after.moved, quint64(1));
    client.pipeline({{"DEL", key}, {"DEL", other}});
}

void TestRedisCluster::askWhileASlotIsHalfMigrated()
{
    RedisOptions options = noPeriodicRefresh();
    options.cluster.retryWindow = 300ms;
    RedisClient client(m_cluster.url(), options);
    const int home = m_masters.at(0);
    const int away = m_masters.at(2);
    const QByteArray moved = m_cluster.keyServedBy(home, m_prefix + "ask", ":moved");
    const int slot = keyslot::of(moved);
    const QByteArray tag = keyslot::hashedPart(moved).toByteArray();
    const QByteArray stays = m_prefix + "ask{" + tag + "}:stays";
    const QByteArray fresh = m_prefix + "ask{" + tag + "}:fresh";
    QCOMPARE(keyslot::of(stays), slot);
    client.pipeline({{"SET", moved, "m"}, {"SET", stays, "s"}});

    m_cluster.beginMove(slot, away, {moved});  // frozen: `moved` on the target, `stays` on the source
    const RedisRoutingStats before = client.routingStats();
    QCOMPARE(client.command({"GET", moved}).toBytes(), QByteArray("m"));  // -ASK, then ASKING + GET on the target
    QCOMPARE(client.command({"GET", stays}).toBytes(), QByteArray("s"));  // the source still has it
    QCOMPARE(client.command({"SET", fresh, "f"}).toBytes(), QByteArray("OK"));  // a new key goes to the target
    // Where the keys are now: `stays` on the source; `moved` and `fresh` on the target, which
    // serves them only to a connection that said ASKING; the source sends those there.
    QCOMPARE(m_cluster.checked(home, {"EXISTS", stays}).integer, 1LL);
    for (const QByteArray &key : {moved, fresh}) {
        QCOMPARE(m_cluster.pipeline(away, {{"ASKING"}, {"EXISTS", key}}).at(1).integer, 1LL);
        QVERIFY(m_cluster.command(home, {"EXISTS", key}).string.startsWith("ASK "));
    }
    RedisRoutingStats after = client.routingStats();
    QCOMPARE(after.asked - before.asked, quint64(2));
    QCOMPARE(after.moved, before.moved);  // the map was left alone
    QCOMPARE(after.mapReads, before.mapReads);

    // Keys on both sides in one command: -TRYAGAIN, waited out for the retry window, then an outage.
    const long long tryAgains = errorCount(m_cluster, home, "TRYAGAIN");
    try {
        client.command({"MGET", moved, stays});
        QFAIL("MGET over a half-migrated slot answered");
    } catch (const RedisNotReadyError &error) {
        QCOMPARE(error.state(), RedisNotReadyError::State::TryAgain);
    }
    QVERIFY(errorCount(m_cluster, home, "TRYAGAIN") - tryAgains >= 2);  // retried, not given up at once
    QVERIFY(client.routingStats().retried > after.retried);

    m_cluster.finishMove(slot, away);
    const std::vector<RedisValue> both = client.command({"MGET", moved, stays, fresh}).elements;
    QCOMPARE(both.at(0).toBytes() + both.at(1).toBytes() + both.at(2).toBytes(), QByteArray("msf"));
    m_cluster.moveSlot(slot, home);
    client.command({"DEL", moved, stays, fresh});
}

void TestRedisCluster::tryAgainIsWaitedOutUntilTheMoveEnds()
{
    RedisOptions options;
    options.cluster.retryWindow = 20s;
    RedisClient client(m_cluster.url(), options);
    const int home = m_masters.at(1);
    const int away = m_masters.at(2);
    const QByteArray first = m_cluster.keyServedBy(home, m_prefix + "wait", ":1");
    const QByteArray tag = keyslot::hashedPart(first).toByteArray();
    const QByteArray second = m_prefix + "wait{" + tag + "}:2";
    const int slot = keyslot::of(first);
    client.pipeline({{"SET", first, "1"}, {"SET", second, "2"}});
    m_cluster.beginMove(slot, away, {first});

    const long long tryAgains = errorCount(m_cluster, home, "TRYAGAIN");
    auto mget = std::async(std::launch::async, [&client, first, second] { return client.command({"MGET", first, second}); });
    // Once the client has met -TRYAGAIN, the move ends; the waiting request then succeeds.
    const QDeadlineTimer deadline(10s);
    while (errorCount(m_cluster, home, "TRYAGAIN") == tryAgains && !deadline.hasExpired())
        QThread::msleep(5);
    QVERIFY(errorCount(m_cluster, home, "TRYAGAIN") > tryAgains);
    m_cluster.finishMove(slot, away);
    const RedisValue reply = mget.get();
    QCOMPARE(reply.elements.at(0).toBytes() + reply.elements.at(1).toBytes(), QByteArray("12"));
    QVERIFY(client.routingStats().retried >= 1);
    m_cluster.moveSlot(slot, home);
    client.command({"DEL", first, second});
}

void TestRedisCluster::clusterDownIsWaitedOutThenAnOutage()
{
    const QByteArray key = m_cluster.keyServedBy(m_masters.at(0), m_prefix + "down");
    const int slot = keyslot::of(key);
    RedisOptions shortWindow;
    shortWindow.cluster.retryWindow = 300ms;
    RedisClient brief(m_cluster.url(), shortWindow);
    RedisOptions longWindow;
    longWindow.cluster.retryWindow = 20s;
    RedisClient patient(m_cluster.url(), longWindow);
    brief.command({"SET", key, "1"});
    patient.command({"PING"});

    const int owner = m_cluster.unassignSlot(slot);  // the cluster is down until the slot is served again
    struct ServedAgain {  // whatever fails below, the cluster comes back for the next test
        test::TestCluster &cluster;
        int slot;
        int owner;
        bool done = false;
        ~ServedAgain()
        {
            if (!done)
                cluster.restoreSlot(slot, owner);
        }
    } servedAgain{m_cluster, slot, owner};
    try {
        brief.command({"GET", key});
        QFAIL("GET answered while the cluster was down");
    } catch (const RedisNotReadyError &error) {  // an outage that passes: exit 3, HTTP 503
        QCOMPARE(error.state(), RedisNotReadyError::State::ClusterDown);
    }
    QVERIFY(brief.routingStats().mapReads >= 2);  // the map read again while it waited

    const long long downs = errorCount(m_cluster, owner, "CLUSTERDOWN");
    auto incr = std::async(std::launch::async, [&patient, key] { return patient.command({"INCR", key}); });
    const QDeadlineTimer deadline(10s);
    while (errorCount(m_cluster, owner, "CLUSTERDOWN") == downs && !deadline.hasExpired())
        QThread::msleep(5);
    QVERIFY(errorCount(m_cluster, owner, "CLUSTERDOWN") > downs);
    m_cluster.restoreSlot(slot, owner);
    servedAgain.done = true;
    QCOMPARE(incr.get().toInteger(), 2LL);  // ran once, once the cluster was up
    QCOMPARE(brief.command({"GET", key}).toBytes(), QByteArray("2"));
    brief.command({"DEL", key});
}

void TestRedisCluster::deadFirstSeedDoesNotStopAStart()
{
    const int dead = test::pickPrivatePort();
    const QString text = QStringLiteral("redis://127.0.0.1:%1,").arg(dead) + m_cluster.urlText().mid(QStringLiteral("redis://").size());
    RedisClient client(RedisUrl::parse(text));
    QCOMPARE(client.command({"PING"}).toBytes(), QByteArray("PONG"));
    QVERIFY(client.isCluster());
    const QByteArray key = m_cluster.keyServedBy(m_masters.at(2), m_prefix + "seed");
    client.command({"SET", key, "x"});
    QCOMPARE(client.command({"GET", key}).toBytes(), QByteArray("x"));
    client.command({"DEL", key});
}

void TestRedisCluster::noSeedAnswers()
{
    const QString text = QStringLiteral("redis://127.0.0.1:%1,127.0.0.1:%2").arg(test::pickPrivatePort()).arg(test::pickPrivatePort());
    RedisClient client(RedisUrl::parse(text));
    try {
        client.command({"PING"});
        QFAIL("PING answered with no seed up");
    } catch (const RedisIoError &error) {  // an outage: exit 3, HTTP 503
        QVERIFY2(error.message().contains(QLatin1String("no seed of the Redis Cluster")), qPrintable(error.message()));
    }
    QVERIFY(!client.isConnected());

    // A seed list of servers that are not a cluster is bad input, not an outage.
    const RedisUrl single = test::redisUrl();
    RedisClient notACluster(RedisUrl::parse(QStringLiteral("redis://%1:%2,%1:%2").arg(single.host).arg(single.port)));
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, notACluster.command({"PING"}));
}

void TestRedisCluster::authAppliesToEveryNode()
{
    const QByteArray user = m_prefix.chopped(1).replace(':', '_') + "_user";
    for (const int port : m_cluster.ports())  // ACL users are per node
        m_cluster.checked(port, {"ACL", "SETUSER", user, "on", ">pa:ss@word", "~*", "+@all"});
    RedisUrl url = m_cluster.url();
    url.user = QString::fromUtf8(user);
    url.password = QStringLiteral("pa:ss@word");
    {
        RedisClient client(url);
        QList<QByteArrayList> commands;
        for (const int master : std::as_const(m_masters))
            commands << QByteArrayList{"SET", m_cluster.keyServedBy(master, m_prefix + "auth"), "1"};
        for (const RedisValue &reply : client.pipeline(commands))
            QCOMPARE(reply.toBytes(), QByteArray("OK"));
        QCOMPARE(client.command({"ACL", "WHOAMI"}).toBytes(), user);
        for (const QByteArrayList &command : std::as_const(commands))
            client.command({"DEL", command.at(1)});
    }
    url.password = QStringLiteral("wrong");
    RedisClient refused(url);
    QVERIFY_THROWS_EXCEPTION(RedisIoError, refused.command({"PING"}));
    for (const int port : m_cluster.ports())
        m_cluster.checked(port, {"ACL", "DELUSER", user});
}

void TestRedisCluster::noscriptAfterAFailover()
{
    RedisClient client(m_cluster.url(), noPeriodicRefresh());
    const int oldMaster = m_masters.at(1);
    const QByteArray list = m_cluster.keyServedBy(oldMaster, m_prefix + "noscript", ":list");
    const LuaScript script(QStringLiteral("pop"), "-- " + m_prefix + "\nreturn redis.call('LPOP', KEYS[1])");
    client.command({"RPUSH", list, "a", "b", "c"});
    QCOMPARE(script.run(client, {list}, {}).toBytes(), QByteArray("a"));
    QCOMPARE(m_cluster.checked(oldMaster, {"SCRIPT", "EXISTS", script.sha1()}).elements.at(0).integer, 1LL);

    // A planned failover: the replica has the data but not the script cache (not replicated in 7.0).
    const int newMaster = m_cluster.failOver(oldMaster);
    QCOMPARE(m_cluster.checked(newMaster, {"SCRIPT", "EXISTS", script.sha1()}).elements.at(0).integer, 0LL);
    const RedisRoutingStats before = client.routingStats();
    QCOMPARE(script.run(client, {list}, {}).toBytes(), QByteArray("b"));  // MOVED, NOSCRIPT, SCRIPT LOAD, EVALSHA
    QVERIFY(client.routingStats().moved > before.moved);
    QCOMPARE(m_cluster.checked(newMaster, {"SCRIPT", "EXISTS", script.sha1()}).elements.at(0).integer, 1LL);

    // A conversation (what grab and check-in run) resends NOSCRIPT as EVAL on the new master.
    m_cluster.checked(newMaster, {"SCRIPT", "FLUSH"});
    struct Pop final : RedisConversation {
        QByteArrayList command;
        QByteArray popped;
        QList<QByteArrayList> nextRound() override { return command.isEmpty() ? QList<QByteArrayList>{} : QList<QByteArrayList>{std::exchange(command, {})}; }
        void takeReplies(std::vector<RedisValue> replies) override { popped = replies.front().toBytes(); }
    } pop;
    pop.command = script.evalshaCommand({list}, {});
    runConversation(client, pop);
    QCOMPARE(pop.popped, QByteArray("c"));

    m_cluster.failOver(newMaster);  // back as it was
    client.command({"DEL", list});
}

void TestRedisCluster::writeLostWithItsConnectionIsNotResent()
{
    RedisClient client(m_cluster.url());
    const int master = m_masters.at(2);
    const QByteArray counter = m_cluster.keyServedBy(master, m_prefix + "lost");
    client.command({"SET", counter, "0"});

    // The master holds writes back (CLIENT PAUSE WRITE): the INCR is written, its reply never comes.
    m_cluster.checked(master, {"CLIENT", "PAUSE", "20000", "WRITE"});
    auto incr = std::async(std::launch::async, [&client, counter] {
        try {
            client.command({"INCR", counter});
            return QStringLiteral("answered");
        } catch (const RedisIoError &) {
            return QStringLiteral("io error");
        }
    });
    // Find the paused connection by its pending command, then cut it.
    QByteArray id;
    const QDeadlineTimer deadline(10s);
    while (id.isEmpty() && !deadline.hasExpired()) {
        for (const QByteArray &line : m_cluster.checked(master, {"CLIENT", "LIST"}).string.split('\n')) {
            if (line.contains(" cmd=incr ") || (line.contains(" flags=b") && !line.contains(" cmd=client|")))
                id = line.mid(3, line.indexOf(' ') - 3);
        }
        if (id.isEmpty())
            QThread::msleep(5);
    }
    QVERIFY2(!id.isEmpty(), "the paused INCR never showed up in CLIENT LIST");
    QCOMPARE(m_cluster.checked(master, {"CLIENT", "KILL", "ID", id}).integer, 1LL);
    QCOMPARE(incr.get(), QStringLiteral("io error"));  // unknown outcome: the caller decides
    m_cluster.checked(master, {"CLIENT", "UNPAUSE"});
    // Not sent again: the counter never moved (a resend would have run after the unpause).
    QCOMPARE(client.command({"GET", counter}).toBytes(), QByteArray("0"));
    client.command({"DEL", counter});
}

void TestRedisCluster::everyMasterAnswersForItself()
{
    RedisClient client(m_cluster.url());
    const QByteArray key = m_cluster.keyServedBy(m_masters.at(2), m_prefix + "own");
    client.command({"SET", key, "1"});
    const auto replies = client.onEveryMaster({"CLUSTER", "MYID"});
    QCOMPARE(int(replies.size()), 3);
    for (const auto &[master, reply] : replies) {
        QVERIFY(m_masters.contains(master.port));
        QCOMPARE(reply.toBytes(), m_cluster.nodeId(master.port));  // each master's own answer
    }
    // SCAN, with a cursor per master, finds the key on the master that holds it and nowhere else.
    for (const int port : std::as_const(m_masters)) {
        int found = 0;
        QByteArray cursor = "0";
        do {
            const RedisValue page = client.onMaster({QStringLiteral("127.0.0.1"), port}, {"SCAN", cursor, "MATCH", m_prefix + "own*", "COUNT", "1000"});
            cursor = page.elements.at(0).toBytes();
            found += int(page.elements.at(1).elements.size());
        } while (cursor != "0");
        QCOMPARE(found, port == m_masters.at(2) ? 1 : 0);
    }
    client.command({"DEL", key});
    // One server: its own answer, one entry.
    RedisClient single(test::redisUrl());
    QCOMPARE(int(single.onEveryMaster({"PING"}).size()), 1);
}

void TestRedisCluster::runWatchSeesAFailover()
{
    RedisClient client(m_cluster.url(), noPeriodicRefresh());
    RedisRunWatch watch;
    QVERIFY(watch.changed(client));  // a worker starting cannot know what happened before
    watch.checked();
    QVERIFY(!watch.changed(client));
    // The replica of the second master takes over: that master's campaigns may have rolled back.
    // No command is redirected meanwhile: the watch reads the slot map itself.
    const int newMaster = m_cluster.failOver(m_masters.at(1));
    QVERIFY(watch.changed(client));
    watch.checked();
    QVERIFY(!watch.changed(client));
    m_cluster.failOver(newMaster);  // back as it was
}

void TestRedisCluster::durabilityIsTheWeakestMasters()
{
    RedisClient client(m_cluster.url());
    // The harness runs every node without AOF and without snapshots: a restart loses everything.
    QCOMPARE(RedisDurability::read(client).loss, RedisDurability::Loss::Everything);
    m_cluster.checked(m_masters.at(1), {"CONFIG", "SET", "save", "3600 1"});  // one master snapshots: still the weakest decides
    QCOMPARE(RedisDurability::read(client).loss, RedisDurability::Loss::Everything);
    m_cluster.checked(m_masters.at(1), {"CONFIG", "SET", "save", ""});
    for (const int master : std::as_const(m_masters))
        m_cluster.checked(master, {"CONFIG", "SET", "appendfsync", "always"});
    const auto restore = qScopeGuard([&] {
        for (const int master : std::as_const(m_masters))
            m_cluster.command(master, {"CONFIG", "SET", "appendonly", "no"});
        for (const int master : std::as_const(m_masters))
            m_cluster.command(master, {"CONFIG", "SET", "appendfsync", "everysec"});
    });
    for (const int master : std::as_const(m_masters))
        m_cluster.checked(master, {"CONFIG", "SET", "appendonly", "yes"});
    QCOMPARE(RedisDurability::read(client).loss, RedisDurability::Loss::None);
    m_cluster.checked(m_masters.at(2), {"CONFIG", "SET", "appendfsync", "everysec"});  // one master weaker
    const RedisDurability durability = RedisDurability::read(client);
    QCOMPARE(durability.loss, RedisDurability::Loss::OneSecond);
    QCOMPARE(durability.appendFsync, QStringLiteral("everysec"));
}

LANTERN_TEST_SUITE(TestRedisCluster);

} // namespace tst_rediscluster

#include "tst_rediscluster.moc"
