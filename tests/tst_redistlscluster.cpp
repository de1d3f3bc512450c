// A Redis Cluster over TLS (tls-cluster yes, tls-replication yes: 3 masters, 3 replicas, each a
// redis-server of the test's own with a certificate the test made), reached with rediss:// by
// both clients: the blocking RedisClient (a seed list, one master's URL, one replica's URL) and
// serve's RedisPipe over a ClusterTopology. The nodes announce IPs while the certificate names a
// host only (as managed clusters do): --redis-verify ca connects, full refuses naming both names.
#include "pipedriver.h"
#include "privateserver.h"
#include "redis/clustertopology.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "redis/redispipe.h"
#include "testcertificates.h"
#include "testsuite.h"

#include <QDeadlineTimer>
#include <QTest>
#include <QThread>

namespace tst_redistlscluster {

using namespace lantern;
using namespace lantern::test;

namespace {

constexpr int Masters = 3;

} // namespace

class TestRedisTlsCluster : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void blockingClient_data();
    void blockingClient();
    void eventLoopPipe();
    void fullVerifyRefusesAnnouncedIps();

private:
    RedisUrl tlsUrl(const QString &nodes, RedisTlsOptions::Verify verify = RedisTlsOptions::Verify::Ca) const;
    /** Polls the nodes' own answers (plaintext ports) until `done`; fails the test after 20 s. */
    bool waitUntil(const std::function<bool()> &done) const;

    std::unique_ptr<TestCertificates> m_certs;
    std::vector<std::unique_ptr<TlsRedis>> m_nodes;  // masters first
};

RedisUrl TestRedisTlsCluster::tlsUrl(const QString &nodes, RedisTlsOptions::Verify verify) const
{
    RedisUrl url = RedisUrl::parse(QStringLiteral("rediss://") + nodes);
    url.tls.caFile = m_certs->caFile();
    url.tls.verify = verify;
    return url;
}

bool TestRedisTlsCluster::waitUntil(const std::function<bool()> &done) const
{
    QDeadlineTimer deadline(20000);
    while (!deadline.hasExpired()) {
        if (done())
            return true;
        QThread::msleep(50);  // polling a server's state with a deadline, not synchronising on time
    }
    return false;
}

void TestRedisTlsCluster::initTestCase()
{
    m_certs = std::make_unique<TestCertificates>();
    const CertificateFiles cert =
            m_certs->issue(QStringLiteral("node"), QStringLiteral("redis-node.example"), {QStringLiteral("DNS:redis-node.example")});
    const QStringList cluster{QStringLiteral("--cluster-enabled"), QStringLiteral("yes"), QStringLiteral("--tls-cluster"),
                              QStringLiteral("yes"), QStringLiteral("--tls-replication"), QStringLiteral("yes"),
                              QStringLiteral("--cluster-node-timeout"), QStringLiteral("2000")};
    for (int i = 0; i < 2 * Masters; ++i)
        m_nodes.push_back(std::make_unique<TlsRedis>(*m_certs, cert, false, cluster));
    // With tls-cluster the nodes meet on their TLS ports; each bus has a port of its own.
    for (int i = 1; i < 2 * Masters; ++i)
        m_nodes[0]->server().command({"CLUSTER", "MEET", "127.0.0.1", QByteArray::number(m_nodes[size_t(i)]->tlsPort()),
                                      QByteArray::number(m_nodes[size_t(i)]->busPort())});
    for (int i = 0; i < Masters; ++i) {
        const int first = i * 16384 / Masters;
        const int last = (i + 1) * 16384 / Masters - 1;
        m_nodes[size_t(i)]->server().command({"CLUSTER", "ADDSLOTSRANGE", QByteArray::number(first), QByteArray::number(last)});
    }
    QVERIFY(waitUntil([&] {
        return std::all_of(m_nodes.cbegin(), m_nodes.cend(), [&](const auto &node) {
            return node->server().command({"CLUSTER", "NODES"}).count("connected") == 2 * Masters;
        });
    }));
    for (int i = 0; i < Masters; ++i) {
        const QByteArray master = m_nodes[size_t(i)]->server().command({"CLUSTER", "MYID"});
        m_nodes[size_t(Masters + i)]->server().command({"CLUSTER", "REPLICATE", master});
    }
    QVERIFY(waitUntil([&] {
        return std::all_of(m_nodes.cbegin(), m_nodes.cend(), [](const auto &node) {
            return infoField(node->server().command({"CLUSTER", "INFO"}), "cluster_state") == "ok";
        }) && std::all_of(m_nodes.cbegin() + Masters, m_nodes.cend(), [](const auto &node) {
            return infoField(node->server().command({"INFO", "replication"}), "master_link_status") == "up";
        });
    }));
}

void TestRedisTlsCluster::blockingClient_data()
{
    QTest::addColumn<QString>("nodes");
    const auto port = [&](int i) { return QStringLiteral("127.0.0.1:%1").arg(m_nodes[size_t(i)]->tlsPort()); };
    QTest::newRow("a seed list of TLS ports") << port(0) + QLatin1Char(',') + port(1) + QLatin1Char(',') + port(2);
    QTest::newRow("one master's TLS port") << port(1);
    QTest::newRow("one replica's TLS port: it names the masters") << port(Masters + 2);
}

void TestRedisTlsCluster::blockingClient()
{
    QFETCH(QString, nodes);
    RedisClient client(tlsUrl(nodes));
    QList<QByteArrayList> writes;
    QList<QByteArrayList> reads;
    for (int i = 0; i < 30; ++i) {  // 30 tags: every master gets some
        const QByteArray key = "tls:{" + QByteArray::number(i) + "}:" + nodes.toUtf8();
        writes << QByteArrayList{"SET", key, QByteArray::number(i)};
        reads << QByteArrayList{"GET", key};
    }
    for (const RedisValue &reply : client.pipeline(writes))
        QVERIFY2(!reply.isError(), reply.string.constData());
    const std::vector<RedisValue> values = client.pipeline(reads);
    for (int i = 0; i < 30; ++i)
        QCOMPARE(values[size_t(i)].toBytes(), QByteArray::number(i));
    QVERIFY(client.isCluster());
    // The map names the TLS ports (Redis answers a TLS client with them), one connection each.
    QList<int> expected;
    for (int i = 0; i < Masters; ++i)
        expected << m_nodes[size_t(i)]->tlsPort();
    QList<int> masters;
    for (const RedisEndpoint &master : client.clusterMasters())
        masters << master.port;
    std::sort(masters.begin(), masters.end());
    std::sort(expected.begin(), expected.end());
    QCOMPARE(masters, expected);
    QCOMPARE(client.routingStats().nodeWrites, quint64(2 * Masters));  // one write per master per pipeline
}

void TestRedisTlsCluster::eventLoopPipe()
{
    const RedisUrl url = tlsUrl(QStringLiteral("127.0.0.1:%1").arg(m_nodes[0]->tlsPort()));
    const std::shared_ptr<ClusterTopology> topology = ClusterTopology::discover(url, {});
    QVERIFY(topology);
    QCOMPARE(topology->snapshot().map->masters().size(), Masters);
    RedisPipe pipe(url, {}, topology);
    QList<QByteArrayList> round;
    for (int i = 0; i < 12; ++i)
        round << QByteArrayList{"INCRBY", "pipe:{" + QByteArray::number(i) + "}", QByteArray::number(i)};
    Outcome outcome;
    QVERIFY(runOne(pipe, oneRound(round), outcome));
    QVERIFY2(!outcome.error, qPrintable(messageOf(outcome.error)));
    for (int i = 0; i < 12; ++i)
        QCOMPARE(outcome.rounds.at(0).at(size_t(i)).integer, i);
    QCOMPARE(pipe.routingStats().moved, quint64(0));
}

void TestRedisTlsCluster::fullVerifyRefusesAnnouncedIps()
{
    RedisClient client(tlsUrl(QStringLiteral("127.0.0.1:%1").arg(m_nodes[0]->tlsPort()), RedisTlsOptions::Verify::Full));
    try {
        client.command({"GET", "tls:{1}"});
        QFAIL("verify full accepted a certificate for another name");
    } catch (const RedisTlsError &error) {
        QVERIFY2(error.message().contains(QLatin1String("for redis-node.example, but was reached as 127.0.0.1")), qPrintable(error.message()));
    }
}

LANTERN_TEST_SUITE(TestRedisTlsCluster);

} // namespace tst_redistlscluster

#include "tst_redistlscluster.moc"
