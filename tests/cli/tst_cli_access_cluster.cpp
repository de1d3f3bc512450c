// Operator accounts on the 3-master test cluster (issue 25): `operator add` makes the ACL user on
// every node, masters and replicas; the flow runs under the api, worker and viewer accounts; a
// support account's raw write to a campaign key is refused on the node that owns it.
#include "accessfixture.h"
#include "clitest.h"

#include "core/errors.h"
#include "redis/redisclient.h"
#include "redis/redisconnection.h"
#include "testsuite.h"

#include <QJsonArray>
#include <QProcessEnvironment>
#include <QTest>

namespace tst_cli_access_cluster {

using namespace lantern;
using namespace lantern::test;
using namespace lantern::test::cli;

class TestCliAccessCluster final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanupTestCase() { dropFreshDatabases(); }
    void accountsOnEveryNodeAndTheFlow();
};

void TestCliAccessCluster::accountsOnEveryNodeAndTheFlow()
{
    const QString cluster = QProcessEnvironment::systemEnvironment().value(QStringLiteral("LANTERN_TEST_REDIS_CLUSTER"));
    const QStringList ports = QProcessEnvironment::systemEnvironment().value(QStringLiteral("LANTERN_TEST_REDIS_CLUSTER_PORTS")).split(QLatin1Char(' '));
    QVERIFY2(!cluster.isEmpty() && ports.size() == 6, "LANTERN_TEST_REDIS_CLUSTER(_PORTS) not set: run through scripts/test");
    AccessFixture fixture(cluster);
    LANTERND_VERIFY_OK(fixture.admin().run({QStringLiteral("migrate")}));
    LANTERND_VERIFY_OK(fixture.admin().run({QStringLiteral("access"), QStringLiteral("install")}));
    QByteArray failure;
    Result added;
    for (const char *role : {"viewer", "support", "manager", "worker", "api"})
        QVERIFY2(fixture.addAccount(QLatin1String(role), QLatin1String(role), &failure, &added), failure.constData());
    // The output names every node written: the 3 masters, then the 3 replicas.
    QStringList written;
    for (const QJsonValue &node : added.json().value(QStringLiteral("redis_nodes")).toArray())
        written << node[QStringLiteral("role")].toString();
    QCOMPARE(written, (QStringList{QStringLiteral("master"), QStringLiteral("master"), QStringLiteral("master"), QStringLiteral("replica"),
                                   QStringLiteral("replica"), QStringLiteral("replica")}));

    // Every node, replicas included, lets the account in with its password.
    for (const QString &port : ports) {
        RedisUrl url = fixture.redisUrlAs(QStringLiteral("support"));
        RedisConnection node(RedisEndpoint{QStringLiteral("127.0.0.1"), port.toInt()}, url, RedisOptions{});
        node.open();
        node.append({"ACL", "WHOAMI"});
        const RedisValue whoami = node.read();
        QVERIFY2(whoami.isError() && whoami.string.startsWith("NOPERM"), qPrintable(QStringLiteral("node %1: ").arg(port) + QString::fromUtf8(whoami.string)));
    }

    const Result created = fixture.as(QStringLiteral("manager")).run({QStringLiteral("campaign"), QStringLiteral("create"), QStringLiteral("--name"),
                                                                      QStringLiteral("c"), QStringLiteral("--total-cents"), QStringLiteral("1000"),
                                                                      QStringLiteral("--count"), QStringLiteral("10")});
    LANTERND_VERIFY_OK(created);
    const QString id = QString::number(created.json().value(QStringLiteral("id")).toInteger());
    LANTERND_VERIFY_OK(fixture.as(QStringLiteral("manager")).run({QStringLiteral("campaign"), QStringLiteral("launch"), QStringLiteral("--id"), id}));
    for (int uid = 1; uid <= 12; ++uid)
        LANTERND_VERIFY_OK(fixture.as(QStringLiteral("api")).run({QStringLiteral("grab"), QStringLiteral("--campaign"), id, QStringLiteral("--uid"),
                                                                  QString::number(uid)}));
    LANTERND_VERIFY_OK(fixture.as(QStringLiteral("worker")).run({QStringLiteral("work"), QStringLiteral("--once")}));
    const Result shown = fixture.as(QStringLiteral("viewer")).run({QStringLiteral("campaign"), QStringLiteral("show"), QStringLiteral("--id"), id});
    LANTERND_VERIFY_OK(shown);
    QCOMPARE(shown.json().value(QStringLiteral("paid_count")).toInteger(), 10);
    const Result verified = fixture.as(QStringLiteral("viewer")).run({QStringLiteral("verify"), QStringLiteral("--campaign"), id});
    LANTERND_VERIFY_OK(verified);
    QVERIFY2(verified.json().value(QStringLiteral("ok")).toBool(), verified.out.constData());

    // The support account, straight at the cluster: refused wherever the key lives.
    RedisClient support(fixture.redisUrlAs(QStringLiteral("support")));
    const QByteArray meta = fixture.prefix().toUtf8() + "{cp:" + id.toUtf8() + "}:meta";
    QVERIFY_THROWS_EXCEPTION(ForbiddenError, support.command({"HSET", meta, "status", "closed"}));
    QCOMPARE(support.command({"HGET", meta, "status"}).toBytes(), QByteArray("live"));
}

LANTERN_TEST_SUITE(TestCliAccessCluster);

} // namespace tst_cli_access_cluster

#include "tst_cli_access_cluster.moc"
