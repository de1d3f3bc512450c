// The connection test on the harness's real Redis Cluster (issue 10, point 2): the Connections
// view's report names every node with its role, its slots (a master) or its master (a replica),
// and a PING's round trip on a connection of its own; CLUSTER NODES is parsed as Redis writes it.
#include "console/connections/connectiontester.h"
#include "connections/connectioncheckreport.h"
#include "redis/clusternodes.h"
#include "testcluster.h"
#include "testsuite.h"

#include <QScopeGuard>
#include <QTest>

namespace tst_connectioncluster {

using namespace lantern;

class TestConnectionCluster final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesClusterNodes();
    void testReachesEveryNode();
    void aFailingClusterIsNotHealthy();
};

void TestConnectionCluster::parsesClusterNodes()
{
    // The format of Redis's documentation, with a slot on its way and a node marked failing.
    const QByteArray reply =
            "07c37dfe 127.0.0.1:30004@31004 slave e7d1eecc 0 1426238317239 4 connected\n"
            "67ed2db8 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 5461-10922\n"
            "292f8b36 127.0.0.1:30003@31003 master - 0 1426238318243 3 connected 10923-16383 [93->-e7d1eecc]\n"
            "6ec23923 127.0.0.1:30005@31005 slave,fail 67ed2db8 0 1426238316232 5 disconnected\n"
            "e7d1eecc 127.0.0.1:30001@31001,node-1.example myself,master - 0 0 1 connected 0-5460\n";
    const QList<ClusterNodeStatus> nodes = parseClusterNodes(reply);
    QCOMPARE(nodes.size(), 5);
    QCOMPARE(nodes[0].endpoint.text(), QStringLiteral("127.0.0.1:30001"));  // masters first, in slot order
    QVERIFY(nodes[0].master);
    QCOMPARE(nodes[0].slots, QStringLiteral("0-5460"));
    QCOMPARE(nodes[1].slots, QStringLiteral("5461-10922"));
    QCOMPARE(nodes[2].slots, QStringLiteral("10923-16383"));  // the migrating slot is not served yet
    QVERIFY(!nodes[3].master);
    QCOMPARE(nodes[3].masterOf, QStringLiteral("127.0.0.1:30001"));
    QCOMPARE(nodes[4].masterOf, QStringLiteral("127.0.0.1:30002"));
    QVERIFY(nodes[4].flaggedFailing);
    QVERIFY(!nodes[3].flaggedFailing);
}

void TestConnectionCluster::testReachesEveryNode()
{
    const QString seeds = qEnvironmentVariable("LANTERN_TEST_REDIS_CLUSTER");
    QVERIFY2(!seeds.isEmpty(), "LANTERN_TEST_REDIS_CLUSTER is not set: run the tests through scripts/test");
    Config config;
    config.redis = RedisUrl::parse(seeds);
    config.db = DbUrl::parse(QStringLiteral("sqlite:///nonexistent-dir/never.db"));  // SQL's half is not the point here
    ConnectionTester tester;
    ConnectionCheck result;
    connect(&tester, &ConnectionTester::checked, this, [&result](quint64, const ConnectionCheck &check) { result = check; });
    tester.check(1, config);
    QVERIFY(result.redisOk);
    QVERIFY(result.redisCluster);
    QCOMPARE(result.clusterNodes.size(), 6);
    int masters = 0;
    for (const ClusterNodeStatus &node : std::as_const(result.clusterNodes)) {
        QVERIFY2(node.latencyMs.has_value(), qPrintable(node.endpoint.text() + QStringLiteral(": ") + node.error));
        QVERIFY(*node.latencyMs > 0);
        if (node.master) {
            ++masters;
            QVERIFY(!node.slots.isEmpty());
        } else {
            QVERIFY(!node.masterOf.isEmpty());
        }
    }
    QCOMPARE(masters, 3);
    QCOMPARE(result.clusterNodes.first().slots.section(QLatin1Char('-'), 0, 0), QStringLiteral("0"));
    QCOMPARE(result.clusterNodes.at(2).slots.section(QLatin1Char('-'), -1), QStringLiteral("16383"));
    // The report shows every node.
    const QString html = ui::ConnectionCheckReport::html(result);
    for (const ClusterNodeStatus &node : std::as_const(result.clusterNodes))
        QVERIFY2(html.contains(node.endpoint.text()), qPrintable(html));
    QVERIFY(html.contains(QStringLiteral("3 master")));
    QCOMPARE(result.clusterState, QStringLiteral("ok"));
    QCOMPARE(result.clusterSlotsOk, 16384);
}

// Issue 24, point 5: every node answers PING, yet a slot nobody serves fails the cluster
// (cluster_state:fail): the check fails, the report's summary row is red, and Use would refuse.
void TestConnectionCluster::aFailingClusterIsNotHealthy()
{
    test::TestCluster cluster;
    const int slot = 4242;
    const int owner = cluster.unassignSlot(slot);
    const auto restore = qScopeGuard([&] { cluster.restoreSlot(slot, owner); });
    Config config;
    config.redis = cluster.url();
    config.db = DbUrl::parse(QStringLiteral("sqlite:///nonexistent-dir/never.db"));
    ConnectionTester tester;
    ConnectionCheck result;
    connect(&tester, &ConnectionTester::checked, this, [&result](quint64, const ConnectionCheck &check) { result = check; });
    tester.check(1, config);
    QVERIFY(result.redisCluster);
    QCOMPARE(result.clusterState, QStringLiteral("fail"));
    QCOMPARE(result.clusterSlotsOk, 16383);
    QVERIFY(!result.redisOk);
    QVERIFY2(result.redisFailure.message.contains(QStringLiteral("cluster_state:fail")), qPrintable(result.redisFailure.message));
    QCOMPARE(result.redisStatus, QStringLiteral("cluster failing"));
    const QString html = ui::ConnectionCheckReport::html(result);
    QVERIFY2(!html.contains(QStringLiteral("✓</td><td style='padding-right:10px'><b>Redis Cluster")), qPrintable(html));
    QVERIFY2(html.contains(QStringLiteral("✗</td><td style='padding-right:10px'><b>Redis Cluster")), qPrintable(html));
    QVERIFY(html.contains(QStringLiteral("16383 of 16384")));
}

LANTERN_WIDGET_TEST_SUITE(TestConnectionCluster);

} // namespace tst_connectioncluster

#include "tst_connectioncluster.moc"
