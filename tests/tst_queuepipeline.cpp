// Acknowledgements of a worker's backup list (acknowledge.lua, through ReliableQueue and through
// QueuePipeline, the drains' round trip): each entry acknowledged is removed once, the occurrence
// nearest the list's oldest end, in whatever order they come; on a server that has not loaded
// the script yet too.
#include "privateredis.h"
#include "queue/queuepipeline.h"
#include "queue/reliablequeue.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "testservers.h"
#include "testsuite.h"

#include <QTest>

namespace tst_queuepipeline {

using namespace lantern;

namespace {
ReliableQueue queueNamed(const QString &prefix)
{
    const QByteArray tag = prefix.toUtf8() + "{q}:";
    return {tag + "queue", tag + "backup", tag + "dead"};
}

/** The backup list holding `entries`, oldest first (claims push on the left). */
void fillBackup(RedisClient &redis, const ReliableQueue &queue, const QByteArrayList &entries)
{
    redis.command({"DEL", queue.backupKey()});
    for (const QByteArray &entry : entries)
        redis.command({"LPUSH", queue.backupKey(), entry});
}
} // namespace

class TestQueuePipeline : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void acknowledgeRemovesEachEntryOnce_data();
    void acknowledgeRemovesEachEntryOnce();
    void acknowledgementLoadsItsScript();
};

void TestQueuePipeline::acknowledgeRemovesEachEntryOnce_data()
{
    QTest::addColumn<bool>("pipelined");
    QTest::addColumn<QByteArrayList>("backup");        // oldest first
    QTest::addColumn<QByteArrayList>("acknowledged");
    QTest::addColumn<QByteArrayList>("left");          // oldest first
    const QByteArrayList five{"a", "b", "c", "d", "e"};
    for (const bool pipelined : {false, true}) {
        const char *through = pipelined ? "QueuePipeline" : "ReliableQueue";
        const auto row = [through](const char *name) -> QTestData & { return QTest::addRow("%s: %s", through, name); };
        row("the oldest, in claim order") << pipelined << five << QByteArrayList{"a", "b", "c"} << QByteArrayList{"d", "e"};
        row("the oldest, out of order") << pipelined << five << QByteArrayList{"c", "a", "b"} << QByteArrayList{"d", "e"};
        row("some in the middle") << pipelined << five << QByteArrayList{"d", "b"} << QByteArrayList{"a", "c", "e"};
        row("the oldest and one in the middle") << pipelined << five << QByteArrayList{"a", "c"} << QByteArrayList{"b", "d", "e"};
        row("the newest only") << pipelined << five << QByteArrayList{"e"} << QByteArrayList{"a", "b", "c", "d"};
        row("every entry") << pipelined << five << QByteArrayList{"e", "d", "c", "b", "a"} << QByteArrayList{};
        row("twice in the list: the oldest goes") << pipelined << QByteArrayList{"a", "b", "a", "c"} << QByteArrayList{"a"}
                                                  << QByteArrayList{"b", "a", "c"};
        row("twice in the list, acknowledged twice") << pipelined << QByteArrayList{"a", "b", "a", "c"} << QByteArrayList{"a", "a"}
                                                     << QByteArrayList{"b", "c"};
        row("acknowledged twice, there once") << pipelined << QByteArrayList{"a", "b"} << QByteArrayList{"a", "a"} << QByteArrayList{"b"};
        row("one not in the list") << pipelined << QByteArrayList{"a", "b"} << QByteArrayList{"x", "a"} << QByteArrayList{"b"};
    }
}

void TestQueuePipeline::acknowledgeRemovesEachEntryOnce()
{
    QFETCH(bool, pipelined);
    QFETCH(QByteArrayList, backup);
    QFETCH(QByteArrayList, acknowledged);
    QFETCH(QByteArrayList, left);
    RedisClient redis(test::redisUrl());
    const ReliableQueue queue = queueNamed(test::uniquePrefix());
    fillBackup(redis, queue, backup);
    if (pipelined) {
        QueuePipeline trip;
        trip.acknowledge(queue, acknowledged);
        trip.run(redis);
    } else {
        queue.acknowledge(redis, acknowledged);
    }
    QCOMPARE(queue.inFlight(redis, 100), left);
    redis.command({"DEL", queue.backupKey()});
}

void TestQueuePipeline::acknowledgementLoadsItsScript()
{
    // A server of its own: nothing has loaded acknowledge.lua there, and no other suite's scripts
    // are disturbed.
    test::PrivateRedis server;
    RedisClient redis(server.url());
    const LuaScript &script = ReliableQueue::acknowledgeScript();
    QCOMPARE(redis.command({"SCRIPT", "EXISTS", script.sha1()}).elements.at(0).toInteger(), 0LL);
    const ReliableQueue queue = queueNamed(QStringLiteral("t:"));
    fillBackup(redis, queue, {"a", "b", "c"});
    redis.command({"LPUSH", queue.queueKey(), "d"});
    QueuePipeline trip;
    trip.acknowledge(queue, {"a", "b"});
    const int claim = trip.claim(queue, 10);
    trip.run(redis);
    QCOMPARE(trip.entries(claim), QByteArrayList{"d"});
    QCOMPARE(queue.inFlight(redis, 100), (QByteArrayList{"c", "d"}));
    QCOMPARE(redis.command({"SCRIPT", "EXISTS", script.sha1()}).elements.at(0).toInteger(), 1LL);
}

LANTERN_TEST_SUITE(TestQueuePipeline);

} // namespace tst_queuepipeline

#include "tst_queuepipeline.moc"
