// The hiredis client against a real private redis-server: AUTH/SELECT from the URL, pipelining,
// typed errors, timeouts, reconnect after a broken connection, EVALSHA with NOSCRIPT handled, and
// a server that cannot serve yet (loading, busy: a redis-server of the test's own) as an outage
// that keeps the connection.
#include "privateredis.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "testservers.h"
#include "testsuite.h"

#include <QDateTime>
#include <QTcpSocket>
#include <QTest>

namespace tst_redisclient {

using namespace lantern;

class TestRedisClient : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void selectsTheDatabaseFromTheUrl();
    void authenticatesWithAclUser();
    void wrongPasswordIsAnIoError();
    void missingDatabaseIsTheUrlsFault();
    void pipelineKeepsOrderAndErrors();
    void errorReplyIsTypedAndConnectionSurvives();
    void commandTimeoutThenReconnect();
    void reconnectsAfterServerClosedConnection();
    void idleConnectionHungUpIsReplacedBeforeUse();
    void unreachableServerIsAnIoError();
    void unknownScriptIsLoadedOnce();
    void notReadyStates_data();
    void notReadyStates();
    void loadingServerIsNotReadyAndKeepsTheConnection();
    void busyScriptIsNotReady();

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

void TestRedisClient::missingDatabaseIsTheUrlsFault()
{
    // The same error as the event loops' RedisPipe gives (tst_redispipe): one handshake.
    RedisUrl url = m_url;
    url.db = 99;  // redis-server has 16
    RedisClient client(url);
    try {
        client.ensureConnected();
        QFAIL("connected to a database the server lacks");
    } catch (const RedisUrlMismatchError &error) {
        QVERIFY2(error.message().contains(QLatin1String("has no database 99")), qPrintable(error.message()));
    }
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
    // Closed while the command was on its way (the hang-up check never runs here): the command
    // fails as an I/O error, and the next one connects afresh.
    RedisOptions options;
    options.idleBeforeHangUpCheck = std::chrono::hours(1);
    RedisClient victim(m_url, options);
    const long long id = victim.command({"CLIENT", "ID"}).toInteger();
    RedisClient killer(m_url);
    QCOMPARE(killer.command({"CLIENT", "KILL", "ID", QByteArray::number(id)}).toInteger(), 1LL);
    QVERIFY_THROWS_EXCEPTION(RedisIoError, victim.command({"PING"}));
    QCOMPARE(victim.command({"PING"}).toBytes(), QByteArray("PONG"));
    QVERIFY(victim.command({"CLIENT", "ID"}).toInteger() != id);
}

void TestRedisClient::idleConnectionHungUpIsReplacedBeforeUse()
{
    // Hung up while idle (the server restarted, timed it out, an operator killed it): the FIN is
    // waiting before anything is sent, so the command goes out on a fresh connection and
    // succeeds. CLIENT KILL closes the victim's socket before it answers the killer, so on
    // loopback the FIN has arrived when the killer's reply has.
    RedisOptions options;
    options.idleBeforeHangUpCheck = std::chrono::microseconds(0);
    RedisClient victim(m_url, options);
    const long long id = victim.command({"CLIENT", "ID"}).toInteger();
    RedisClient killer(m_url);
    QCOMPARE(killer.command({"CLIENT", "KILL", "ID", QByteArray::number(id)}).toInteger(), 1LL);
    QCOMPARE(victim.command({"SET", m_prefix + "hungup", "1"}).toBytes(), QByteArray("OK"));
    QVERIFY(victim.command({"CLIENT", "ID"}).toInteger() != id);
    QCOMPARE(killer.command({"GET", m_prefix + "hungup"}).toBytes(), QByteArray("1"));
    // A pipeline likewise.
    const long long second = victim.command({"CLIENT", "ID"}).toInteger();
    QCOMPARE(killer.command({"CLIENT", "KILL", "ID", QByteArray::number(second)}).toInteger(), 1LL);
    const std::vector<RedisValue> replies = victim.pipeline({{"INCR", m_prefix + "hungup"}, {"GET", m_prefix + "hungup"}});
    QCOMPARE(replies.at(1).toBytes(), QByteArray("2"));
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

void TestRedisClient::notReadyStates_data()
{
    using State = RedisNotReadyError::State;
    QTest::addColumn<QByteArray>("reply");
    QTest::addColumn<std::optional<State>>("state");
    QTest::newRow("loading") << QByteArray("LOADING Redis is loading the dataset in memory") << std::optional(State::Loading);
    QTest::newRow("script past its limit") << QByteArray("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.")
                                           << std::optional(State::Busy);
    QTest::newRow("replica without its primary") << QByteArray("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.")
                                                 << std::optional(State::MasterDown);
    QTest::newRow("cluster down") << QByteArray("CLUSTERDOWN The cluster is down") << std::optional(State::ClusterDown);
    QTest::newRow("slot migrating") << QByteArray("TRYAGAIN Multiple keys request during rehashing of slot") << std::optional(State::TryAgain);
    QTest::newRow("BUSYGROUP is a refusal, not a busy server") << QByteArray("BUSYGROUP Consumer Group name already exists")
                                                               << std::optional<State>();
    QTest::newRow("BUSYKEY is a refusal") << QByteArray("BUSYKEY Target key name already exists.") << std::optional<State>();
    QTest::newRow("ERR mentioning loading") << QByteArray("ERR LOADING is not a command") << std::optional<State>();
    QTest::newRow("a bare code") << QByteArray("LOADING") << std::optional(State::Loading);
}

void TestRedisClient::notReadyStates()
{
    QFETCH(QByteArray, reply);
    QFETCH(std::optional<RedisNotReadyError::State>, state);
    QVERIFY(RedisNotReadyError::stateOf(reply) == state);
}

void TestRedisClient::loadingServerIsNotReadyAndKeepsTheConnection()
{
    constexpr int Keys = 2000;
    test::PrivateRedis server;
    server.fill(Keys);
    server.stop();
    server.start(test::PrivateRedis::slowLoading());
    RedisClient client(server.url());
    try {
        client.command({"GET", "filler:1"});
        QFAIL("GET answered while loading");
    } catch (const RedisNotReadyError &error) {
        QCOMPARE(error.state(), RedisNotReadyError::State::Loading);
        QVERIFY2(error.message().contains(QStringLiteral("127.0.0.1:%1 is loading its dataset").arg(server.port())), qPrintable(error.message()));
    }
    QVERIFY(client.isConnected());
    // A pipeline reads every reply before it throws, so the connection stays in step.
    QVERIFY_THROWS_EXCEPTION(RedisNotReadyError, client.pipeline({{"PING"}, {"GET", "filler:1"}, {"DBSIZE"}}));
    QVERIFY(client.isConnected());
    // An outage to every caller that maps errors to exit codes and HTTP statuses.
    QVERIFY_THROWS_EXCEPTION(UnavailableError, client.command({"PING"}));
    QVERIFY(server.isLoading());

    server.finishLoading();
    const long long id = client.command({"CLIENT", "ID"}).toInteger();
    QCOMPARE(client.command({"DBSIZE"}).toInteger(), (long long)Keys);
    QCOMPARE(client.command({"CLIENT", "ID"}).toInteger(), id);  // the same connection throughout
}

void TestRedisClient::busyScriptIsNotReady()
{
    test::PrivateRedis server({QStringLiteral("--busy-reply-threshold"), QStringLiteral("100")});
    QTcpSocket spinner;
    spinner.connectToHost(QStringLiteral("127.0.0.1"), quint16(server.port()));
    QVERIFY(spinner.waitForConnected(5000));
    // Spins until SCRIPT KILL; past 100 ms the server answers others -BUSY.
    spinner.write("*3\r\n$4\r\nEVAL\r\n$17\r\nwhile true do end\r\n$1\r\n0\r\n");
    QVERIFY(spinner.waitForBytesWritten(5000));
    RedisClient client(server.url());
    std::optional<RedisNotReadyError::State> state;
    QTRY_VERIFY_WITH_TIMEOUT(([&] {
                                 try {
                                     client.command({"PING"});  // answered PONG if it beat the script
                                 } catch (const RedisNotReadyError &error) {
                                     state = error.state();
                                 }
                                 return state.has_value();
                             }()),
                             10000);
    QCOMPARE(*state, RedisNotReadyError::State::Busy);
    QVERIFY(client.isConnected());

    // SCRIPT KILL answers at once; the script ends at its next hook, and its caller's error
    // reply says it has.
    server.command({"SCRIPT", "KILL"});
    QVERIFY(spinner.bytesAvailable() > 0 || spinner.waitForReadyRead(10000));
    QVERIFY(spinner.readAll().startsWith('-'));
    QCOMPARE(client.command({"PING"}).toBytes(), QByteArray("PONG"));
}

LANTERN_TEST_SUITE(TestRedisClient);

} // namespace tst_redisclient

#include "tst_redisclient.moc"
