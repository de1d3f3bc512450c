// What a Redis Cluster client decides before it sends anything, without a server: seed-list URLs,
// key slots (the specification's CRC16 check value and hash-tag examples), which arguments of a
// command are keys, and the slot map read from a CLUSTER SLOTS reply (extra node fields, a node
// whose host is unknown), and the one reply policy both clients follow (clusterreply::decide).
// tst_rediscluster and tst_redispipecluster check the same against a real cluster.
#include "core/errors.h"
#include "redis/clusterreply.h"
#include "redis/clusterslotmap.h"
#include "redis/commandroute.h"
#include "redis/keyslot.h"
#include "redis/redisoptions.h"
#include "redis/redisurl.h"
#include "testsuite.h"

#include <QTest>

Q_DECLARE_METATYPE(lantern::RedisValue)

namespace tst_clusterkeys {

using namespace lantern;

namespace {

RedisValue integerValue(long long n)
{
    RedisValue value;
    value.type = RedisValue::Type::Integer;
    value.integer = n;
    return value;
}

RedisValue textValue(const QByteArray &text)
{
    RedisValue value;
    value.type = RedisValue::Type::String;
    value.string = text;
    return value;
}

RedisValue arrayValue(std::vector<RedisValue> elements)
{
    RedisValue value;
    value.type = RedisValue::Type::Array;
    value.elements = std::move(elements);
    return value;
}

RedisValue nodeEntry(const QByteArray &host, int port, bool withExtras)
{
    std::vector<RedisValue> fields{textValue(host), integerValue(port)};
    if (withExtras) {  // the node id and 7.0's metadata map (a flat array in RESP2)
        fields.push_back(textValue("e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca"));
        fields.push_back(arrayValue({textValue("hostname"), textValue("node-a.example")}));
    }
    return arrayValue(std::move(fields));
}

RedisValue slotRange(int start, int end, std::vector<RedisValue> nodes)
{
    std::vector<RedisValue> range{integerValue(start), integerValue(end)};
    for (RedisValue &node : nodes)
        range.push_back(std::move(node));
    return arrayValue(std::move(range));
}

RedisValue errorValue(const QByteArray &text)
{
    RedisValue value;
    value.type = RedisValue::Type::Error;
    value.string = text;
    return value;
}

} // namespace

class TestClusterKeys : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void seedLists_data();
    void seedLists();
    void oneNodeUrlIsUnchanged();
    void crcCheckValue();
    void hashTags_data();
    void hashTags();
    void commandKeys_data();
    void commandKeys();
    void slotMapFromReply();
    void slotMapRefusesOddShapes_data();
    void slotMapRefusesOddShapes();
    void replyPolicy_data();
    void replyPolicy();
    void sentinelUrls_data();
    void sentinelUrls();
};

void TestClusterKeys::seedLists_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QString>("seeds");  // host:port,host:port as RedisEndpoint::text() joins them
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("password");
    QTest::newRow("three seeds") << "redis://10.0.0.1:7000,10.0.0.2:7001,10.0.0.3:7002" << true
                                 << "10.0.0.1:7000,10.0.0.2:7001,10.0.0.3:7002" << "" << "";
    QTest::newRow("default port per seed") << "redis://a,b:7001" << true << "a:6379,b:7001" << "" << "";
    QTest::newRow("credentials apply to every seed") << "redis://ops:pw%40x@a:1,b:2" << true << "a:1,b:2" << "ops" << "pw@x";
    QTest::newRow("a comma in the password is one node") << "redis://:p%2Cq@h:1" << true << "h:1" << "" << "p,q";
    QTest::newRow("trailing slash") << "redis://a:1,b:2/" << true << "a:1,b:2" << "" << "";
    QTest::newRow("database 0 is fine") << "redis://a:1,b:2/0" << true << "a:1,b:2" << "" << "";
    QTest::newRow("IPv6 seeds") << "redis://[::1]:7000,[::1]:7001" << true << "[::1]:7000,[::1]:7001" << "" << "";
    QTest::newRow("a cluster has only database 0") << "redis://a:1,b:2/3" << false << "" << "" << "";
    QTest::newRow("empty seed") << "redis://a:1,,b:2" << false << "" << "" << "";
    QTest::newRow("trailing comma") << "redis://a:1,b:2," << false << "" << "" << "";
    QTest::newRow("bad port in the second seed") << "redis://a:1,b:99999" << false << "" << "" << "";
    QTest::newRow("not a number") << "redis://a:1,b:x" << false << "" << "" << "";
    QTest::newRow("TLS seed list: rediss:// for every seed") << "rediss://a:1,b:2" << true << "a:1,b:2" << "" << "";
    QTest::newRow("wrong scheme") << "redisx://a:1,b:2" << false << "" << "" << "";
    QTest::newRow("spaces") << "redis://a:1, b:2" << false << "" << "" << "";
}

void TestClusterKeys::seedLists()
{
    QFETCH(QString, text);
    QFETCH(bool, valid);
    if (!valid) {
        try {
            RedisUrl::parse(text);
            QFAIL("accepted");
        } catch (const InvalidInputError &error) {
            QVERIFY2(error.message().contains(QLatin1String("Redis")), qPrintable(error.message()));
        }
        return;
    }
    const RedisUrl url = RedisUrl::parse(text);
    QStringList seeds;
    for (const RedisEndpoint &seed : url.seeds())
        seeds << seed.text();
    QTEST(seeds.join(QLatin1Char(',')), "seeds");
    QTEST(url.user, "user");
    QTEST(url.password, "password");
    QCOMPARE(url.isSeedList(), seeds.size() > 1);
    QCOMPARE(url.tls.enabled, text.startsWith(QLatin1String("rediss://")));
    QCOMPARE(url.redacted().startsWith(QLatin1String("rediss://")), url.tls.enabled);
    QCOMPARE(url.db, 0);
    QVERIFY(!url.redacted().contains(QLatin1String("pw@x")));
    if (url.isSeedList()) {  // the redacted form names every seed and parses back to the same list
        const RedisUrl again = RedisUrl::parse(url.redacted().replace(QLatin1String(":***@"), QLatin1String("@")));
        QCOMPARE(again.seeds(), url.seeds());
    }
}

void TestClusterKeys::oneNodeUrlIsUnchanged()
{
    const RedisUrl url = RedisUrl::parse(QStringLiteral("redis://:s3cret@h:1/4"));
    QCOMPARE(url.host, QStringLiteral("h"));
    QCOMPARE(url.port, 1);
    QCOMPARE(url.db, 4);
    QVERIFY(!url.isSeedList());
    QCOMPARE(url.redacted(), QStringLiteral("redis://:***@h:1/4"));
}

void TestClusterKeys::crcCheckValue()
{
    // The CRC16-XMODEM check value, as the cluster specification gives it.
    QCOMPARE(keyslot::crc16("123456789"), quint16(0x31C3));
    QCOMPARE(keyslot::of("123456789"), 12739);
    QCOMPARE(keyslot::of(""), 0);
}

void TestClusterKeys::hashTags_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("hashed");
    // The cluster specification's examples ("Hash tags").
    QTest::newRow("{user1000}.following") << QByteArray("{user1000}.following") << QByteArray("user1000");
    QTest::newRow("{user1000}.followers") << QByteArray("{user1000}.followers") << QByteArray("user1000");
    QTest::newRow("foo{}{bar}: an empty tag hashes the whole key") << QByteArray("foo{}{bar}") << QByteArray("foo{}{bar}");
    QTest::newRow("foo{{bar}}zap: the tag is {bar") << QByteArray("foo{{bar}}zap") << QByteArray("{bar");
    QTest::newRow("foo{bar}{zap}: the first tag") << QByteArray("foo{bar}{zap}") << QByteArray("bar");
    QTest::newRow("an open brace alone") << QByteArray("foo{bar") << QByteArray("foo{bar");
    QTest::newRow("a close brace first") << QByteArray("}foo{bar}") << QByteArray("bar");
    QTest::newRow("Lantern's campaign keys") << QByteArray("lt:{cp:42}:pool") << QByteArray("cp:42");
    QTest::newRow("Lantern's check-in keys") << QByteArray("lt:{ck:3}:queue") << QByteArray("ck:3");
}

void TestClusterKeys::hashTags()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, hashed);
    QCOMPARE(keyslot::hashedPart(key).toByteArray(), hashed);
    QCOMPARE(keyslot::of(key), keyslot::of(hashed));
}

void TestClusterKeys::commandKeys_data()
{
    using Kind = CommandRoute::Kind;
    QTest::addColumn<QByteArrayList>("command");
    QTest::addColumn<Kind>("kind");
    QTest::addColumn<QByteArrayList>("keys");
    QTest::newRow("GET") << QByteArrayList{"GET", "k"} << Kind::Keys << QByteArrayList{"k"};
    QTest::newRow("lower case") << QByteArrayList{"hget", "h", "f"} << Kind::Keys << QByteArrayList{"h"};
    QTest::newRow("unlisted: first argument") << QByteArrayList{"HINCRBY", "h", "f", "1"} << Kind::Keys << QByteArrayList{"h"};
    QTest::newRow("DEL of several") << QByteArrayList{"DEL", "a", "b"} << Kind::Keys << QByteArrayList{"a", "b"};
    QTest::newRow("LMOVE") << QByteArrayList{"LMOVE", "q", "b", "RIGHT", "LEFT"} << Kind::Keys << QByteArrayList{"q", "b"};
    QTest::newRow("BLPOP keys then timeout") << QByteArrayList{"BLPOP", "a", "b", "5"} << Kind::Keys << QByteArrayList{"a", "b"};
    QTest::newRow("MSET") << QByteArrayList{"MSET", "a", "1", "b", "2"} << Kind::Keys << QByteArrayList{"a", "b"};
    QTest::newRow("EVALSHA numkeys 2") << QByteArrayList{"EVALSHA", "abc", "2", "k1", "k2", "arg"} << Kind::Keys
                                      << QByteArrayList{"k1", "k2"};
    QTest::newRow("EVAL no key") << QByteArrayList{"EVAL", "return 1", "0"} << Kind::AnyNode << QByteArrayList{};
    QTest::newRow("BITOP") << QByteArrayList{"BITOP", "AND", "d", "s1", "s2"} << Kind::Keys << QByteArrayList{"d", "s1", "s2"};
    QTest::newRow("MEMORY USAGE") << QByteArrayList{"MEMORY", "USAGE", "k"} << Kind::Keys << QByteArrayList{"k"};
    QTest::newRow("PING") << QByteArrayList{"PING"} << Kind::AnyNode << QByteArrayList{};
    QTest::newRow("INFO server") << QByteArrayList{"INFO", "server"} << Kind::AnyNode << QByteArrayList{};
    QTest::newRow("CONFIG GET") << QByteArrayList{"CONFIG", "GET", "appendonly"} << Kind::AnyNode << QByteArrayList{};
    QTest::newRow("CLIENT ID") << QByteArrayList{"CLIENT", "ID"} << Kind::AnyNode << QByteArrayList{};
    QTest::newRow("SCRIPT LOAD") << QByteArrayList{"SCRIPT", "LOAD", "return 1"} << Kind::EveryMaster << QByteArrayList{};
    QTest::newRow("FLUSHALL") << QByteArrayList{"FLUSHALL"} << Kind::EveryMaster << QByteArrayList{};
    QTest::newRow("DBSIZE") << QByteArrayList{"DBSIZE"} << Kind::EveryMaster << QByteArrayList{};
    QTest::newRow("CONFIG SET") << QByteArrayList{"CONFIG", "SET", "x", "y"} << Kind::EveryMaster << QByteArrayList{};
    QTest::newRow("SCAN") << QByteArrayList{"SCAN", "0"} << Kind::NotOnCluster << QByteArrayList{};
    QTest::newRow("KEYS") << QByteArrayList{"KEYS", "*"} << Kind::NotOnCluster << QByteArrayList{};
    QTest::newRow("WAIT") << QByteArrayList{"WAIT", "1", "100"} << Kind::NotOnCluster << QByteArrayList{};
    QTest::newRow("SELECT") << QByteArrayList{"SELECT", "1"} << Kind::NotOnCluster << QByteArrayList{};
}

void TestClusterKeys::commandKeys()
{
    QFETCH(QByteArrayList, command);
    const CommandRoute route = CommandRoute::of(command);
    QTEST(route.kind, "kind");
    QTEST(route.keys, "keys");
}

void TestClusterKeys::slotMapFromReply()
{
    const RedisEndpoint answeredBy{QStringLiteral("10.1.1.9"), 7000};
    const RedisValue reply = arrayValue({
            slotRange(0, 5460, {nodeEntry("10.1.1.1", 7000, true), nodeEntry("10.1.1.4", 7003, true)}),
            slotRange(5461, 10922, {nodeEntry("10.1.1.2", 7001, false)}),
            // An unknown endpoint: the host of the node that answered, with this port.
            slotRange(10923, 16000, {nodeEntry("", 7002, true)}),
    });
    ClusterSlotMap map = ClusterSlotMap::fromSlotsReply(reply, answeredBy);
    QCOMPARE(map.masterOf(0)->text(), QStringLiteral("10.1.1.1:7000"));
    QCOMPARE(map.masterOf(5460)->text(), QStringLiteral("10.1.1.1:7000"));
    QCOMPARE(map.masterOf(5461)->text(), QStringLiteral("10.1.1.2:7001"));
    QCOMPARE(map.masterOf(12000)->text(), QStringLiteral("10.1.1.9:7002"));
    QVERIFY(!map.masterOf(16001).has_value());
    QCOMPARE(map.uncoveredSlots(), 16383 - 16000);
    QCOMPARE(map.masters().size(), 3);
    QVERIFY(map.knownNodes().contains(RedisEndpoint{QStringLiteral("10.1.1.4"), 7003}));  // a replica: asked for maps

    // MOVED 16001 10.1.1.2:7001: one slot re-pointed, the others untouched.
    map.assign(16001, {QStringLiteral("10.1.1.2"), 7001});
    QCOMPARE(map.masterOf(16001)->text(), QStringLiteral("10.1.1.2:7001"));
    QCOMPARE(map.masterOf(16002).has_value(), false);
    QCOMPARE(map.masters().size(), 3);
}

void TestClusterKeys::slotMapRefusesOddShapes_data()
{
    QTest::addColumn<RedisValue>("reply");
    QTest::newRow("not an array") << textValue("OK");
    QTest::newRow("range without a node") << arrayValue({arrayValue({integerValue(0), integerValue(10)})});
    QTest::newRow("slot out of range") << arrayValue({slotRange(0, 16384, {nodeEntry("h", 1, false)})});
    QTest::newRow("start after end") << arrayValue({slotRange(10, 5, {nodeEntry("h", 1, false)})});
    QTest::newRow("node without a port") << arrayValue({slotRange(0, 5, {arrayValue({textValue("h")})})});
    QTest::newRow("port zero") << arrayValue({slotRange(0, 5, {nodeEntry("h", 0, false)})});
}

void TestClusterKeys::slotMapRefusesOddShapes()
{
    QFETCH(RedisValue, reply);
    QVERIFY_THROWS_EXCEPTION(LanternError, ClusterSlotMap::fromSlotsReply(reply, {QStringLiteral("h"), 1}));
}

LANTERN_TEST_SUITE(TestClusterKeys);

void TestClusterKeys::replyPolicy_data()
{
    using Action = clusterreply::Decision::Action;
    QTest::addColumn<RedisValue>("reply");
    QTest::addColumn<int>("redirects");  // before this reply
    QTest::addColumn<int>("action");
    QTest::addColumn<QString>("target");  // Redirect: where to
    QTest::addColumn<bool>("ask");
    QTest::addColumn<bool>("pauseFirst");
    QTest::addColumn<bool>("readMapAgain");
    const auto row = [](const char *name, const RedisValue &reply, int redirects, Action action, const QString &target, bool ask,
                        bool pause, bool readMap) {
        QTest::newRow(name) << reply << redirects << int(action) << target << ask << pause << readMap;
    };
    row("a value is the answer", textValue("v"), 0, Action::Answer, {}, false, false, false);
    row("an ordinary error is the answer", errorValue("ERR wrong number of arguments"), 0, Action::Answer, {}, false, false, false);
    row("BUSY is the answer (thrown later as not ready)", errorValue("BUSY Redis is busy running a script"), 0, Action::Answer, {}, false,
        false, false);
    row("MOVED: there, and the map is read again", errorValue("MOVED 3999 10.0.0.2:7001"), 0, Action::Redirect,
        QStringLiteral("10.0.0.2:7001"), false, false, true);
    row("MOVED with no host: the node that answered", errorValue("MOVED 3999 :7002"), 0, Action::Redirect, QStringLiteral("10.0.0.1:7002"),
        false, false, true);
    row("ASK: there once, the map left alone", errorValue("ASK 3999 10.0.0.3:7003"), 0, Action::Redirect, QStringLiteral("10.0.0.3:7003"),
        true, false, false);
    row("second redirect: no pause yet", errorValue("MOVED 3999 10.0.0.2:7001"), 1, Action::Redirect, QStringLiteral("10.0.0.2:7001"),
        false, false, true);
    row("third redirect: a slot bouncing, pause first", errorValue("MOVED 3999 10.0.0.2:7001"), 2, Action::Redirect,
        QStringLiteral("10.0.0.2:7001"), false, true, true);
    row("third ASK: pause first too", errorValue("ASK 3999 10.0.0.3:7003"), 2, Action::Redirect, QStringLiteral("10.0.0.3:7003"), true,
        true, false);
    row("the 16th redirect is followed", errorValue("MOVED 1 10.0.0.2:7001"), 15, Action::Redirect, QStringLiteral("10.0.0.2:7001"), false,
        true, true);
    row("the 17th gives up", errorValue("MOVED 1 10.0.0.2:7001"), 16, Action::GiveUp, {}, false, false, false);
    row("a MOVED that cannot be followed is the answer", errorValue("MOVED x y"), 0, Action::Answer, {}, false, false, false);
    row("TRYAGAIN waits", errorValue("TRYAGAIN Multiple keys request during rehashing of slot"), 0, Action::Wait, {}, false, false, true);
    row("CLUSTERDOWN waits", errorValue("CLUSTERDOWN Hash slot not served"), 0, Action::Wait, {}, false, false, true);
    row("LOADING waits", errorValue("LOADING Redis is loading the dataset in memory"), 0, Action::Wait, {}, false, false, true);
    row("MASTERDOWN waits", errorValue("MASTERDOWN Link with MASTER is down"), 0, Action::Wait, {}, false, false, true);
    row("READONLY (a demoted master) waits", errorValue("READONLY You can't write against a read only replica."), 0, Action::Wait, {},
        false, false, true);
}

void TestClusterKeys::replyPolicy()
{
    QFETCH(RedisValue, reply);
    QFETCH(int, redirects);
    QFETCH(int, action);
    const RedisEndpoint node{QStringLiteral("10.0.0.1"), 7000};
    const clusterreply::Decision decision = clusterreply::decide(reply, node, redirects, RedisClusterOptions{}.maxRedirects);
    QCOMPARE(int(decision.action), action);
    QTEST(decision.pauseFirst, "pauseFirst");
    QTEST(decision.readMapAgain, "readMapAgain");
    switch (decision.action) {
    case clusterreply::Decision::Action::Redirect:
        QTEST(decision.redirect.target.text(), "target");
        QTEST(decision.redirect.ask, "ask");
        break;
    case clusterreply::Decision::Action::Wait:
    case clusterreply::Decision::Action::GiveUp:
        QVERIFY(decision.notReady.has_value());
        QVERIFY2(decision.notReady->message().contains(node.text()), qPrintable(decision.notReady->message()));
        break;
    case clusterreply::Decision::Action::Answer:
        QVERIFY(!decision.notReady.has_value());
        break;
    }
}

void TestClusterKeys::sentinelUrls_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QString>("sentinels");  // as seeds() gives them
    QTest::addColumn<QString>("master");
    QTest::addColumn<int>("db");
    QTest::addColumn<bool>("tls");
    QTest::newRow("three sentinels, default port 26379") << "redis-sentinel://s1,s2:26380,s3#mymaster" << true
                                                         << "s1:26379,s2:26380,s3:26379" << "mymaster" << 0 << false;
    QTest::newRow("one sentinel, the master's database and credentials") << "redis-sentinel://app:pw@s1:26379/4#orders" << true
                                                                         << "s1:26379" << "orders" << 4 << false;
    QTest::newRow("over TLS") << "rediss-sentinel://s1:26379,s2:26379#m" << true << "s1:26379,s2:26379" << "m" << 0 << true;
    QTest::newRow("a percent-encoded master name") << "redis-sentinel://s1#my%20master" << true << "s1:26379" << "my master" << 0 << false;
    QTest::newRow("no master name") << "redis-sentinel://s1:26379" << false << "" << "" << 0 << false;
    QTest::newRow("an empty master name") << "redis-sentinel://s1:26379#" << false << "" << "" << 0 << false;
    QTest::newRow("an empty sentinel") << "redis-sentinel://s1,,s2#m" << false << "" << "" << 0 << false;
}

void TestClusterKeys::sentinelUrls()
{
    QFETCH(QString, text);
    QFETCH(bool, valid);
    if (!valid) {
        QVERIFY_THROWS_EXCEPTION(InvalidInputError, RedisUrl::parse(text));
        return;
    }
    const RedisUrl url = RedisUrl::parse(text);
    QStringList sentinels;
    for (const RedisEndpoint &sentinel : url.seeds())
        sentinels << sentinel.text();
    QTEST(sentinels.join(QLatin1Char(',')), "sentinels");
    QTEST(url.sentinelMaster, "master");
    QTEST(url.db, "db");
    QTEST(url.tls.enabled, "tls");
    QVERIFY(url.isSentinel());
    QVERIFY(!url.isSeedList());  // not a cluster
    QVERIFY2(url.redacted().contains(QLatin1Char('#') + url.sentinelMaster), qPrintable(url.redacted()));
    QVERIFY(!url.redacted().contains(QLatin1String("pw")));
}

} // namespace tst_clusterkeys

#include "tst_clusterkeys.moc"
