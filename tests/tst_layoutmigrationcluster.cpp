// `lanternd migrate-redis` on the real Redis Cluster: the old layout's keys, spread over every
// master by their {ck:S} tags, are found by a SCAN per master and move to the blocks while
// check-ins arrive (tests/support/layoutmigrationscenario.h); an old key whose tag is not the
// uid's shard any more (written with another shard count) cannot move in one slot: refused,
// nothing written.
#include "checkin/layoutmigration.h"
#include "core/errors.h"
#include "layoutmigrationscenario.h"
#include "redis/keyschema.h"
#include "redis/keyslot.h"
#include "redis/redisclient.h"
#include "testcluster.h"
#include "testservers.h"
#include "testsuite.h"

#include <QTest>

namespace tst_layoutmigrationcluster {

using namespace lantern;

class TestLayoutMigrationCluster : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void migratesOnEveryMaster();
    void refusesAKeyOfAnotherShardCount();

private:
    test::TestCluster m_cluster;
    RedisUrl m_url;
};

void TestLayoutMigrationCluster::initTestCase()
{
    m_cluster.waitUntilSettled();
    m_url = m_cluster.url();
    QCOMPARE(m_cluster.masters().size(), 3);
}

void TestLayoutMigrationCluster::migratesOnEveryMaster()
{
    RedisClient redis(m_url);
    redis.ensureConnected();
    QVERIFY(redis.isCluster());
    const KeySchema keys(test::uniquePrefix(), 16);  // {ck:0} .. {ck:15}: every master
    test::migratesWhileCheckinsArrive(redis, keys, [&] {
        // The old keys are on every master, so one node's SCAN would miss some.
        const auto perMaster = redis.onEveryMaster({"SCAN", "0", "MATCH", keys.prefix() + "{ck:*}:sign:*", "COUNT", "100000"});
        QCOMPARE(perMaster.size(), size_t(3));
        for (const auto &[master, reply] : perMaster) {
            QCOMPARE(reply.elements.at(0).toBytes(), QByteArray("0"));  // one page: COUNT covers the node
            QVERIFY2(!reply.elements.at(1).elements.empty(), qPrintable(master.text()));
        }
    });
}

void TestLayoutMigrationCluster::refusesAKeyOfAnotherShardCount()
{
    RedisClient redis(m_url);
    const QString prefix = test::uniquePrefix();
    const KeySchema before(prefix, 5);  // uid 7 was in {ck:2}
    const KeySchema now(prefix, 16);    // it is in {ck:7} now
    const QDate month(2026, 10, 1);
    const QByteArray oldKey = before.signBits(7, month);
    QVERIFY(keyslot::of(oldKey) != keyslot::of(now.monthBlocks(now.shardOf(7), month)));
    redis.command({"SETBIT", oldKey, "3", "1"});
    const qint64 keysBefore = test::countKeys(redis, prefix.toUtf8() + '*');
    QCOMPARE(keysBefore, 1);

    try {
        LayoutMigration(redis, now).run(false);
        QFAIL("the migration moved a key across slots");
    } catch (const InvalidInputError &error) {
        QVERIFY2(error.message().contains(QString::fromUtf8(oldKey)), qPrintable(error.message()));
    }
    QCOMPARE(test::countKeys(redis, prefix.toUtf8() + '*'), keysBefore);
    QCOMPARE(redis.command({"GETBIT", oldKey, "3"}).toInteger(), 1);
    redis.command({"DEL", oldKey});
}

LANTERN_TEST_SUITE(TestLayoutMigrationCluster);

} // namespace tst_layoutmigrationcluster

#include "tst_layoutmigrationcluster.moc"
