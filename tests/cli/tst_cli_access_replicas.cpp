// Operator accounts on a master and its replica (issue 25, point 2), on servers the test starts:
// three sentinels watching a master and a replica (replicaof), as TestSentinels makes them.
// `operator add` writes the ACL user on both and says where, whether lanternd is given the
// master's URL, the replica's, or the sentinels'; the account logs in on the replica and reads
// there with its role's rights (and no more); after a Sentinel failover it reads through the
// sentinels on the promoted replica. A replica the sentinels list but that does not answer fails
// the command naming it, with nothing written on MariaDB or Redis.
#include "accessfixture.h"
#include "clitest.h"
#include "testsentinels.h"
#include "testsuite.h"

#include "core/errors.h"
#include "redis/redisclient.h"
#include "redis/redisconnection.h"

#include <QJsonArray>
#include <QTest>

namespace tst_cli_access_replicas {

using namespace lantern;
using namespace lantern::test;
using namespace lantern::test::cli;

class TestCliAccessReplicas final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_sentinels = std::make_unique<TestSentinels>(); }
    void cleanupTestCase() { dropFreshDatabases(); }
    void addLandsOnTheReplica_data();
    void addLandsOnTheReplica();
    void throughSentinelAndAfterAFailover();
    void anUnreachableReplicaIsNamedAndNothingWritten();

private:
    void followTheFailover();
    /** The node that is not the master now. */
    PrivateRedis &replica();
    PrivateRedis &master();
    /** Installs the roles on a fresh database for lanternd given `redisUrl`. */
    static void install(AccessFixture &fixture);
    /** What `operator add` printed as written: "host:port role" per node, in its order. */
    static QStringList writtenNodes(const Result &added);
    /** A key of the fixture's prefix set on the master, replicated before this returns. */
    QByteArray replicatedKey(const AccessFixture &fixture, const QByteArray &value);

    std::unique_ptr<TestSentinels> m_sentinels;
};

PrivateRedis &TestCliAccessReplicas::master()
{
    return m_sentinels->node(0).port() == m_sentinels->masterPort() ? m_sentinels->node(0) : m_sentinels->node(1);
}

PrivateRedis &TestCliAccessReplicas::replica()
{
    return m_sentinels->node(0).port() == m_sentinels->masterPort() ? m_sentinels->node(1) : m_sentinels->node(0);
}

void TestCliAccessReplicas::install(AccessFixture &fixture)
{
    LANTERND_VERIFY_OK(fixture.admin().run({QStringLiteral("migrate")}));
    LANTERND_VERIFY_OK(fixture.admin().run({QStringLiteral("access"), QStringLiteral("install")}));
}

QStringList TestCliAccessReplicas::writtenNodes(const Result &added)
{
    QStringList nodes;
    for (const QJsonValue &node : added.json().value(QStringLiteral("redis_nodes")).toArray())
        nodes << node[QStringLiteral("node")].toString() + QLatin1Char(' ') + node[QStringLiteral("role")].toString();
    return nodes;
}

QByteArray TestCliAccessReplicas::replicatedKey(const AccessFixture &fixture, const QByteArray &value)
{
    const QByteArray key = fixture.prefix().toUtf8() + "{ck:probe}:value";
    master().command({"SET", key, value});
    // WAIT answers how many replicas acknowledged the write: the one replica.
    if (master().command({"WAIT", "1", "10000"}) != "1")
        throw std::runtime_error("the replica did not acknowledge the write within 10 s");
    return key;
}

void TestCliAccessReplicas::addLandsOnTheReplica_data()
{
    QTest::addColumn<QString>("given");
    QTest::newRow("lanternd given the master's URL: ROLE lists the replica") << "master";
    QTest::newRow("lanternd given the replica's URL: its ROLE names the master") << "replica";
}

void TestCliAccessReplicas::addLandsOnTheReplica()
{
    QFETCH(QString, given);
    const int masterPort = master().port();
    const int replicaPort = replica().port();
    AccessFixture fixture(given == QLatin1String("master") ? master().urlText() : replica().urlText());
    install(fixture);
    const QString shortName = QStringLiteral("viewer") + given;  // MariaDB accounts are the server's, not the database's
    Result added;
    QByteArray failure;
    QVERIFY2(fixture.addAccount(shortName, QStringLiteral("viewer"), &failure, &added), failure.constData());
    QCOMPARE(writtenNodes(added), (QStringList{QStringLiteral("127.0.0.1:%1 master").arg(masterPort),
                                               QStringLiteral("127.0.0.1:%1 replica").arg(replicaPort)}));

    // On the replica itself: AUTH as the account, a read of Lantern's keys, nothing else.
    const QByteArray key = replicatedKey(fixture, "on the replica");
    RedisUrl url = RedisUrl::parse(replica().urlText());
    url.user = fixture.accountName(shortName);
    url.password = fixture.password(shortName);
    RedisClient viewer(url);
    QCOMPARE(viewer.command({"GET", key}).toBytes(), QByteArray("on the replica"));
    QVERIFY_THROWS_EXCEPTION(ForbiddenError, viewer.command({"GET", "outside-the-prefix"}));
    QVERIFY_THROWS_EXCEPTION(ForbiddenError, viewer.command({"ACL", "WHOAMI"}));
    master().command({"DEL", key});
    replica().command({"ACL", "DELUSER", url.user.toUtf8()});  // the fixture deletes it where its URL goes
}

void TestCliAccessReplicas::throughSentinelAndAfterAFailover()
{
    try {
        followTheFailover();
    } catch (const std::exception &error) {
        QFAIL(error.what());  // the servers' or the fixture's own words
    }
}

void TestCliAccessReplicas::followTheFailover()
{
    AccessFixture fixture(m_sentinels->urlText());
    install(fixture);
    const int masterPort = master().port();
    const int replicaPort = replica().port();
    QByteArray failure;
    Result added;
    QVERIFY2(fixture.addAccount(QStringLiteral("viewer"), QStringLiteral("viewer"), &failure, &added), failure.constData());
    QCOMPARE(writtenNodes(added), (QStringList{QStringLiteral("127.0.0.1:%1 master").arg(masterPort),
                                               QStringLiteral("127.0.0.1:%1 replica").arg(replicaPort)}));
    QVERIFY2(fixture.addAccount(QStringLiteral("support"), QStringLiteral("support"), &failure), failure.constData());
    // The ACL user is on both data nodes (never on a sentinel).
    for (PrivateRedis *node : {&master(), &replica()}) {
        const QByteArray rules = node->command({"ACL", "GETUSER", fixture.accountName(QStringLiteral("viewer")).toUtf8()});
        QVERIFY2(rules.contains(QByteArray("%R~" + fixture.prefix().toUtf8() + "*")), rules.constData());
    }
    const QByteArray key = replicatedKey(fixture, "before the failover");

    QCOMPARE(m_sentinels->failOver(), replicaPort);  // the replica is the master now
    QCOMPARE(master().port(), replicaPort);
    RedisClient viewer(fixture.redisUrlAs(QStringLiteral("viewer")));
    QCOMPARE(viewer.command({"GET", key}).toBytes(), QByteArray("before the failover"));
    QCOMPARE(viewer.connectedNode(), QStringLiteral("127.0.0.1:%1").arg(replicaPort));
    QVERIFY_THROWS_EXCEPTION(ForbiddenError, viewer.command({"SET", key, "a viewer's write"}));
    // The support account writes check-in keys on the new master, and nothing else.
    RedisClient support(fixture.redisUrlAs(QStringLiteral("support")));
    support.command({"SET", key, "after the failover"});
    QVERIFY_THROWS_EXCEPTION(ForbiddenError, support.command({"SET", fixture.prefix().toUtf8() + "campaigns", "x"}));
    QCOMPARE(viewer.command({"GET", key}).toBytes(), QByteArray("after the failover"));
    // And the old master, a replica now, still lets the account in.
    RedisUrl onOld = RedisUrl::parse(m_sentinels->node(masterPort == m_sentinels->node(0).port() ? 0 : 1).urlText());
    onOld.user = fixture.accountName(QStringLiteral("viewer"));
    onOld.password = fixture.password(QStringLiteral("viewer"));
    QCOMPARE(RedisClient(onOld).command({"PING"}).toBytes(), QByteArray("PONG"));
}

void TestCliAccessReplicas::anUnreachableReplicaIsNamedAndNothingWritten()
{
    AccessFixture fixture(m_sentinels->urlText());
    install(fixture);
    PrivateRedis &down = replica();
    PrivateRedis &up = master();
    down.stop(PrivateRedis::Stop::Kill);  // the sentinels still list it
    const QString name = fixture.accountName(QStringLiteral("nobody"));
    const Result refused = fixture.admin().run({QStringLiteral("operator"), QStringLiteral("add"), QStringLiteral("--name"), name,
                                                QStringLiteral("--role"), QStringLiteral("viewer")});
    QVERIFY2(refused.exitCode == 3, refused.describe().constData());
    QVERIFY2(refused.err.contains(QStringLiteral("cannot reach the Redis node 127.0.0.1:%1 (replica)").arg(down.port()).toUtf8()),
             refused.describe().constData());
    QVERIFY2(refused.err.contains("no account was changed anywhere"), refused.describe().constData());
    // Nothing on the master, nothing in MariaDB.
    QCOMPARE(up.command({"ACL", "GETUSER", name.toUtf8()}), QByteArray());
    const QJsonArray listed =
            fixture.admin().run({QStringLiteral("operator"), QStringLiteral("list")}).json().value(QStringLiteral("operators")).toArray();
    for (const QJsonValue &account : listed)
        QVERIFY2(account[QStringLiteral("name")].toString() != name, "the MariaDB account was made although Redis was not");
}

LANTERN_TEST_SUITE(TestCliAccessReplicas);

} // namespace tst_cli_access_replicas

#include "tst_cli_access_replicas.moc"
