// A Redis Cluster behind an SSH tunnel (issue 29, point 4): the harness's cluster (3 masters, 3
// replicas) reached through an sshd the test starts on loopback. Only the seeds are given; the
// nodes the cluster announces get a forwarded port each on first use (one per node, addresses
// mapped), so keys on every master are written and read back through the tunnel, and MOVED
// names the cluster's own addresses.
#include "redis/redisclient.h"
#include "testcluster.h"
#include "testsshd.h"
#include "testsuite.h"
#include "tunnel/sshtunnel.h"

#include <QTemporaryDir>
#include <QTest>

namespace tst_sshtunnelcluster {

using namespace lantern;

class TestSshTunnelCluster final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyMasterThroughTheTunnel();
};

void TestSshTunnelCluster::everyMasterThroughTheTunnel()
{
    test::TestSshd sshd;
    test::TestCluster cluster;
    QTemporaryDir home;
    SshOptions options;
    options.host = QStringLiteral("127.0.0.1");
    options.port = sshd.port();
    options.user = sshd.user();
    options.auth = SshOptions::Auth::Key;
    options.keyFile = sshd.keyFile();
    options.knownHostsFile = home.filePath(QStringLiteral("known_hosts"));
    try {
        SshSession first(options);
    } catch (const SshUnknownHostError &unknown) {
        options.acceptedFingerprint = unknown.fingerprint();  // the test's yes
    }
    auto tunnel = std::make_shared<SshTunnel>(options);

    RedisUrl url = cluster.url();
    url.moreSeeds.clear();  // one seed: the other nodes are found through the slot map
    url.route = tunnel;
    RedisClient redis(url);
    redis.ensureConnected();
    QVERIFY(redis.isCluster());
    const QList<int> masters = cluster.masters();
    QCOMPARE(masters.size(), 3);
    for (const int port : masters) {
        const QByteArray key = cluster.keyServedBy(port, "tst_sshtunnelcluster:", ":value");
        redis.command({"SET", key, QByteArray::number(port)});
        QCOMPARE(redis.command({"GET", key}).toBytes(), QByteArray::number(port));
        QCOMPARE(cluster.checked(port, {"GET", key}).toBytes(), QByteArray::number(port));  // on that master itself
        redis.command({"DEL", key});
    }
    // Each master answered through a forwarded port of its own.
    QVERIFY2(tunnel->channelsOpened() >= 3, qPrintable(QString::number(tunnel->channelsOpened())));
    const QList<RedisEndpoint> routed = tunnel->routedServers();
    for (const int port : masters)
        QVERIFY2(routed.contains(RedisEndpoint{QStringLiteral("127.0.0.1"), port}), qPrintable(QString::number(port)));
}

LANTERN_TEST_SUITE(TestSshTunnelCluster);

} // namespace tst_sshtunnelcluster

#include "tst_sshtunnelcluster.moc"
