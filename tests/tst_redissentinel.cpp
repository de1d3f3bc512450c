// Redis Sentinel (redis-sentinel://...#MASTER) on both clients, the blocking RedisClient and
// serve's RedisPipe, against three sentinels, a master and a replica the test starts: the master
// found as redis.io's "Sentinel clients" steps say (sentinels in order, a dead first one
// skipped, ROLE checked), "no sentinel reachable" and "no sentinel knows MASTER" told apart, the
// sentinels' own password apart from the data nodes', and a failover followed by itself.
#include "core/errors.h"
#include "pipedriver.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "redis/redispipe.h"
#include "redis/sentinelwatch.h"
#include "privateserver.h"
#include "testsentinels.h"
#include "testsuite.h"

#include <QDeadlineTimer>
#include <QTest>

namespace tst_redissentinel {

using namespace lantern;
using namespace lantern::test;
using namespace std::chrono_literals;

namespace {

const QStringList Paths{QStringLiteral("blocking"), QStringLiteral("pipe")};

using Attempt = CommandResult;

Attempt run(const QString &path, RedisClient &client, RedisPipe &pipe, const QByteArrayList &command)
{
    Attempt result;
    if (path == QLatin1String("blocking")) {
        try {
            result.reply = client.command(command);
        } catch (...) {
            result.error = std::current_exception();
        }
        return result;
    }
    return runCommand(pipe, command);
}

} // namespace

class TestRedisSentinel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void findsTheMaster_data();
    void findsTheMaster();
    void deadFirstSentinelIsSkipped_data();
    void deadFirstSentinelIsSkipped();
    void noSentinelAnswersOrKnowsTheMaster_data();
    void noSentinelAnswersOrKnowsTheMaster();
    void sentinelPasswordApartFromTheMasters();
    void followsAFailover_data();
    void followsAFailover();

private:
    RedisUrl url(const QString &text = {}) const { return RedisUrl::parse(text.isEmpty() ? m_sentinels->urlText() : text); }
    static void addPaths();

    std::unique_ptr<TestSentinels> m_sentinels;
};

void TestRedisSentinel::initTestCase()
{
    m_sentinels = std::make_unique<TestSentinels>();
}

void TestRedisSentinel::addPaths()
{
    QTest::addColumn<QString>("path");
    for (const QString &path : Paths)
        QTest::newRow(qPrintable(path)) << path;
}

void TestRedisSentinel::findsTheMaster_data()
{
    addPaths();
}

void TestRedisSentinel::findsTheMaster()
{
    QFETCH(QString, path);
    const int master = m_sentinels->masterPort();
    RedisUrl target = url();
    target.db = 2;  // the data node's database, from the URL
    RedisClient client(target);
    RedisPipe pipe(target);
    const QByteArray key = "sentinel:find:" + path.toUtf8();
    const Attempt set = run(path, client, pipe, {"SET", key, "here"});
    QVERIFY2(!set.error, qPrintable(messageOf(set.error)));
    const Attempt port = run(path, client, pipe, {"INFO", "server"});
    QVERIFY2(!port.error, qPrintable(messageOf(port.error)));
    QCOMPARE(infoField(port.reply.toBytes(), "tcp_port").toInt(), master);
    if (path == QLatin1String("blocking"))  // the console's connection test names the master the sentinels gave
        QCOMPARE(client.connectedNode(), QStringLiteral("127.0.0.1:%1").arg(master));
    const Attempt info = run(path, client, pipe, {"CLIENT", "INFO"});
    QVERIFY2(info.reply.toBytes().contains(" db=2 "), info.reply.toBytes().constData());
}

void TestRedisSentinel::deadFirstSentinelIsSkipped_data()
{
    addPaths();
}

void TestRedisSentinel::deadFirstSentinelIsSkipped()
{
    QFETCH(QString, path);
    m_sentinels->stopSentinel(0);
    const auto restart = qScopeGuard([&] { m_sentinels->startSentinel(0); });
    RedisClient client(url());
    RedisPipe pipe(url());
    const Attempt ping = run(path, client, pipe, {"PING"});
    QVERIFY2(!ping.error, qPrintable(messageOf(ping.error)));
    QCOMPARE(ping.reply.toBytes(), QByteArray("PONG"));
}

void TestRedisSentinel::noSentinelAnswersOrKnowsTheMaster_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("urlText");
    QTest::addColumn<QString>("kind");  // unreachable, unknown
    QTest::addColumn<QString>("words");
    const QString dead = QStringLiteral("redis-sentinel://127.0.0.1:%1,127.0.0.1:%2#lantern").arg(pickPrivatePort()).arg(pickPrivatePort());
    QString unknown = m_sentinels->urlText();
    unknown.replace(QStringLiteral("#lantern"), QStringLiteral("#nosuch"));
    for (const QString &path : Paths) {
        QTest::newRow(qPrintable(path + QStringLiteral(": no sentinel reachable"))) << path << dead << QStringLiteral("unreachable")
                                                                                    << QStringLiteral("no Redis Sentinel of");
        QTest::newRow(qPrintable(path + QStringLiteral(": no sentinel knows the master"))) << path << unknown << QStringLiteral("unknown")
                                                                                           << QStringLiteral("no Redis Sentinel knows a master named 'nosuch'");
    }
}

void TestRedisSentinel::noSentinelAnswersOrKnowsTheMaster()
{
    QFETCH(QString, path);
    QFETCH(QString, urlText);
    QFETCH(QString, kind);
    QFETCH(QString, words);
    Attempt result;
    if (path == QLatin1String("blocking")) {
        RedisClient client(url(urlText));
        RedisPipe unused(url(urlText));
        result = run(path, client, unused, {"PING"});
    } else {
        RedisClient unused(url(urlText));
        RedisPipe pipe(url(urlText));
        result = run(path, unused, pipe, {"PING"});
    }
    QVERIFY(result.error);
    const QString message = messageOf(result.error);
    QVERIFY2(message.contains(words), qPrintable(message));
    if (kind == QLatin1String("unreachable"))
        QVERIFY2(holds<RedisIoError>(result.error), qPrintable(message));  // exit 3, HTTP 503
    else
        QVERIFY2(holds<RedisUrlMismatchError>(result.error), qPrintable(message));  // exit 2, HTTP 503
}

void TestRedisSentinel::sentinelPasswordApartFromTheMasters()
{
    TestSentinels guarded(QStringLiteral("guarded"), "sentinel-secret");
    guarded.node(0).command({"ACL", "SETUSER", "app", "on", ">app-pw", "~*", "+@all"});
    guarded.node(1).command({"ACL", "SETUSER", "app", "on", ">app-pw", "~*", "+@all"});
    RedisUrl target = RedisUrl::parse(guarded.urlText().replace(QStringLiteral("redis-sentinel://"), QStringLiteral("redis-sentinel://app:app-pw@")));
    try {
        RedisClient(target).command({"PING"});
        QFAIL("the sentinels answered without their password");
    } catch (const RedisIoError &error) {
        QVERIFY2(error.message().contains(QLatin1String("no Redis Sentinel of")), qPrintable(error.message()));
    }
    target.sentinelPassword = QStringLiteral("sentinel-secret");
    RedisClient client(target);
    QCOMPARE(client.command({"ACL", "WHOAMI"}).toBytes(), QByteArray("app"));  // the data node's user, not the sentinels'
}

void TestRedisSentinel::followsAFailover_data()
{
    addPaths();
}

void TestRedisSentinel::followsAFailover()
{
    QFETCH(QString, path);
    RedisClient client(url());
    RedisPipe pipe(url());
    const QByteArray key = "sentinel:failover:" + path.toUtf8();
    QVERIFY(!run(path, client, pipe, {"INCR", key}).error);
    QCOMPARE(run(path, client, pipe, {"WAIT", "1", "5000"}).reply.integer, 1LL);  // the replica has it
    const int before = m_sentinels->masterPort();
    const int after = m_sentinels->failOver();
    QVERIFY(after != before);
    // Until the client has followed: a lost connection or -READONLY, each an outage (exit 3,
    // 503), then the new master by itself. Polled with a deadline.
    int failures = 0;
    QDeadlineTimer deadline(20000);
    Attempt attempt;
    while (!deadline.hasExpired()) {
        attempt = run(path, client, pipe, {"INCR", key});
        if (!attempt.error)
            break;
        QVERIFY2(holds<UnavailableError>(attempt.error), qPrintable(messageOf(attempt.error)));
        ++failures;
    }
    QVERIFY2(!attempt.error, qPrintable(messageOf(attempt.error)));
    QVERIFY2(attempt.reply.integer == 2, qPrintable(QStringLiteral("INCR answered %1 after %2 failure(s)").arg(attempt.reply.integer).arg(failures)));  // the replica had the first INCR
    const Attempt port = run(path, client, pipe, {"INFO", "server"});
    QCOMPARE(infoField(port.reply.toBytes(), "tcp_port").toInt(), after);
    qInfo("%s: %d failed attempt(s) before the new master answered", qPrintable(path), failures);
}

LANTERN_TEST_SUITE(TestRedisSentinel);

} // namespace tst_redissentinel

#include "tst_redissentinel.moc"
