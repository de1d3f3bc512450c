// The hiredis client against a real private redis-server: AUTH/SELECT from the URL, pipelining,
// typed errors, timeouts, reconnect after a broken connection, EVALSHA with NOSCRIPT handled.
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "testservers.h"

#include <QDateTime>
#include <QTest>

using namespace lantern;

class TestRedisClient : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void selectsTheDatabaseFromTheUrl();
    void authenticatesWithAclUser();
    void wrongPasswordIsAnIoError();
    void pipelineKeepsOrderAndErrors();
    void errorReplyIsTypedAndConnectionSurvives();
    void commandTimeoutThenReconnect();
    void reconnectsAfterServerClosedConnection();
    void unreachableServerIsAnIoError();
    void unknownScriptIsLoadedOnce();

private:
    RedisUrl m_url;
    QByteArray m_prefix;
};

void TestRedisClient::initTestCase()
{
    m_url = test::redisUrl();
    m_prefix = test::uniquePrefix().toUtf8();
}

void TestRedisClient::selectsTheDatabaseFromTheUrl()
{
    RedisUrl db5 = m_url;
    db5.db = 5;
    RedisClient inFive(db5);
    RedisClient inZero(m_url);
    const QByteArray key = m_prefix + "select";
    inFive.command({"SET", key, "five"});
    QCOMPARE(inFive.command({"GET", key}).toBytes(), QByteArray("five"));
    QVERIFY(inZero.command({"GET", key}).isNil());
    inFive.command({"DEL", key});
}

void TestRedisClient::authenticatesWithAclUser()
{
    RedisClient admin(m_url);
    const QByteArray user = m_prefix.chopped(1).replace(':', '_') + "_user";
    admin.command({"ACL", "SETUSER", user, "on", ">pa:ss@word", "~*", "+@all"});
    RedisUrl url = m_url;
    url.user = QString::fromUtf8(user);
    url.password = QStringLiteral("pa:ss@word");
    RedisClient client(url);
    QCOMPARE(client.command({"ACL", "WHOAMI"}).toBytes(), user);
    admin.command({"ACL", "DELUSER", user});
}

void TestRedisClient::wrongPasswordIsAnIoError()
{
    RedisUrl url = m_url;
    url.user = QStringLiteral("nobody-here");
    url.password = QStringLiteral("wrong");
    RedisClient client(url);
    QVERIFY_THROWS_EXCEPTION(RedisIoError, client.ensureConnected());
    QVERIFY(!client.isConnected());
}

void TestRedisClient::pipelineKeepsOrderAndErrors()
{
    RedisClient client(m_url);
    const QByteArray counter = m_prefix + "counter";
    const QByteArray text = m_prefix + "text";
    client.command({"SET", text, "not a number"});
    QList<QByteArrayList> commands;
    for (int i = 0; i < 1000; ++i)
        commands << QByteArrayList{"INCR", counter};
    commands << QByteArrayList{"INCR", text} << QByteArrayList{"GET", counter};
    const std::vector<RedisValue> replies = client.pipeline(commands);
    QCOMPARE(replies.size(), size_t(1002));
    for (int i = 0; i < 1000; ++i)
        QCOMPARE(replies[size_t(i)].integer, i + 1);
    QVERIFY(replies[1000].isError());
    QCOMPARE(replies[1001].toBytes(), QByteArray("1000"));
    client.command({"DEL", counter, text});
}

void TestRedisClient::errorReplyIsTypedAndConnectionSurvives()
{
    RedisClient client(m_url);
    const QByteArray key = m_prefix + "wrongtype";
    client.command({"SET", key, "x"});
    QVERIFY_THROWS_EXCEPTION(RedisReplyError, client.command({"LPUSH", key, "y"}));
    QVERIFY(client.isConnected());
    QCOMPARE(client.command({"GET", key}).toBytes(), QByteArray("x"));
    client.command({"DEL", key});
}

void TestRedisClient::commandTimeoutThenReconnect()
{
    RedisClient client(m_url, RedisOptions{std::chrono::milliseconds(1000), std::chrono::milliseconds(150)});
    // BLPOP on an empty list blocks server-side for 2 s: longer than the 150 ms command timeout.
    QVERIFY_THROWS_EXCEPTION(RedisTimeoutError, client.command({"BLPOP", m_prefix + "never", "2"}));
    QVERIFY(!client.isConnected());
    QCOMPARE(client.command({"PING"}).toBytes(), QByteArray("PONG"));
}

void TestRedisClient::reconnectsAfterServerClosedConnection()
{
    RedisClient victim(m_url);
    const long long id = victim.command({"CLIENT", "ID"}).toInteger();
    RedisClient killer(m_url);
    QCOMPARE(killer.command({"CLIENT", "KILL", "ID", QByteArray::number(id)}).toInteger(), 1LL);
    QVERIFY_THROWS_EXCEPTION(RedisIoError, victim.command({"PING"}));
    QCOMPARE(victim.command({"PING"}).toBytes(), QByteArray("PONG"));
    QVERIFY(victim.command({"CLIENT", "ID"}).toInteger() != id);
}

void TestRedisClient::unreachableServerIsAnIoError()
{
    RedisUrl url = m_url;
    url.port = 1;  // nothing listens on port 1
    RedisClient client(url);
    QVERIFY_THROWS_EXCEPTION(RedisIoError, client.command({"PING"}));
}

void TestRedisClient::unknownScriptIsLoadedOnce()
{
    RedisClient client(m_url);
    // A body no server has seen (unique per run), so the first EVALSHA must meet NOSCRIPT.
    const QByteArray marker = m_prefix + QByteArray::number(QDateTime::currentMSecsSinceEpoch());
    const LuaScript script(QStringLiteral("echo"), "-- " + marker + "\nreturn redis.call('LPOP', KEYS[1])");
    const QByteArray list = m_prefix + "{q}:list";
    client.command({"RPUSH", list, "a", "b"});
    const quint64 before = client.roundTrips();
    QCOMPARE(script.run(client, {list}, {}).toBytes(), QByteArray("a"));
    QCOMPARE(client.roundTrips() - before, quint64(3));  // NOSCRIPT, SCRIPT LOAD, EVALSHA
    QCOMPARE(client.command({"SCRIPT", "EXISTS", script.sha1()}).elements.at(0).toInteger(), 1LL);
    const quint64 warm = client.roundTrips();
    QCOMPARE(script.run(client, {list}, {}).toBytes(), QByteArray("b"));
    QCOMPARE(client.roundTrips() - warm, quint64(1));
    client.command({"DEL", list});
}

QTEST_GUILESS_MAIN(TestRedisClient)
#include "tst_redisclient.moc"
