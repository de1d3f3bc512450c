// RedisPipe, the non-blocking connection of `lanternd serve`, driven here by a poll() loop like
// the server's epoll loop, against real redis-servers: conversations started in one turn go out
// in one write and end in order with their own replies; rounds follow replies; NOSCRIPT is
// answered by resending the body; an error reply ends only its conversation; an unreachable,
// stalled, killed or password-protected server ends conversations with RedisIoError or
// RedisTimeoutError and the next conversation reconnects; a server loading its dataset ends
// conversations with RedisNotReadyError and keeps the connection; Done never runs inside start().
#include "core/monotonicclock.h"
#include "pipedriver.h"
#include "privateredis.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/redisconversation.h"
#include "redis/rediserror.h"
#include "redis/redispipe.h"
#include "testservers.h"
#include "testsuite.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QProcess>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <chrono>
#include <functional>
#include <numeric>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace tst_redispipe {

using namespace lantern;
using namespace lantern::test;
using namespace std::chrono_literals;

namespace {

constexpr int ServerStartBoundMs = 15000;

/** A 127.0.0.1 port nobody listens on (bound, read, closed). */
int closedPort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 0;
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0
        && ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    if (fd >= 0)
        ::close(fd);
    return port;
}

RedisUrl localUrl(int port)
{
    RedisUrl url;
    url.host = QStringLiteral("127.0.0.1");
    url.port = port;
    return url;
}

/** A redis-server of this test's own on a free 127.0.0.1 port, for the cases that stall, kill,
    restart or password-protect it (or flush its scripts) without disturbing other suites. */
class PrivateRedis final {
public:
    explicit PrivateRedis(QStringList extraArguments = {}) : m_extraArguments(std::move(extraArguments)) {}
    ~PrivateRedis() { kill(); }
    Q_DISABLE_COPY_MOVE(PrivateRedis)

    /** Starts the server (again on the same port after kill()); false, with log(), when it
        did not come up. */
    bool start()
    {
        const bool firstStart = m_port == 0;
        for (int attempt = 0; attempt < (firstStart ? 3 : 1); ++attempt) {  // a free port can be taken meanwhile
            if (firstStart)
                m_port = closedPort();
            if (launch())
                return true;
        }
        return false;
    }

    /** SIGKILL, and waits until the process has exited (its sockets closed). */
    void kill()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.kill();
        m_process.waitForFinished(ServerStartBoundMs);
    }

    int port() const { return m_port; }
    QByteArray log() const { return m_log; }

private:
    bool launch()
    {
        if (!m_dir.isValid()) {
            m_log = "no temporary directory";
            return false;
        }
        m_log.clear();
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start(QStringLiteral("redis-server"),
                        QStringList{QStringLiteral("--port"), QString::number(m_port), QStringLiteral("--bind"), QStringLiteral("127.0.0.1"),
                                    QStringLiteral("--save"), QString(), QStringLiteral("--appendonly"), QStringLiteral("no"),
                                    QStringLiteral("--dir"), m_dir.path(), QStringLiteral("--lua-time-limit"), QStringLiteral("5000")}
                                + m_extraArguments);
        const QDeadlineTimer bound(ServerStartBoundMs);
        if (!m_process.waitForStarted(ServerStartBoundMs)) {
            m_log = m_process.errorString().toUtf8();
            return false;
        }
        while (!m_log.contains("Ready to accept connections")) {
            if (bound.hasExpired() || m_process.state() == QProcess::NotRunning) {
                m_log += m_process.readAll();
                kill();
                return false;
            }
            m_process.waitForReadyRead(int(std::max<qint64>(bound.remainingTime(), 1)));
            m_log += m_process.readAll();
        }
        return true;
    }

    QStringList m_extraArguments;
    QTemporaryDir m_dir;
    QProcess m_process;
    QByteArray m_log;
    int m_port = 0;
};

/** Sends, on a connection of its own, a script that keeps the server busy for `ms` (every other
    client then waits); its reply (":1") comes when it is over. */
bool sendStall(QTcpSocket &socket, int ms)
{
    static const QByteArray script = "local function now() local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000) end "
                                     "local start = now() while now() - start < tonumber(ARGV[1]) do end return 1";
    const QByteArray milliseconds = QByteArray::number(ms);
    const QByteArray command = "*4\r\n$4\r\nEVAL\r\n$" + QByteArray::number(script.size()) + "\r\n" + script + "\r\n$1\r\n0\r\n$"
            + QByteArray::number(milliseconds.size()) + "\r\n" + milliseconds + "\r\n";
    socket.write(command);
    return socket.waitForBytesWritten(5000);
}

} // namespace

class TestRedisPipe final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void batchGoesOutInOneWrite_data();
    void batchGoesOutInOneWrite();
    void roundsFollowReplies();
    void missingScriptIsResentWithBody_data();
    void missingScriptIsResentWithBody();
    void errorReplyEndsOnlyItsConversation_data();
    void errorReplyEndsOnlyItsConversation();
    void unreachableServerIsAnIoError_data();
    void unreachableServerIsAnIoError();
    void stalledServerTimesOutThenReconnects();
    void killedServerIsAnIoErrorThenReconnects_data();
    void killedServerIsAnIoErrorThenReconnects();
    void conversationEndingBeforeSendingEndsAtFlush_data();
    void conversationEndingBeforeSendingEndsAtFlush();
    void authenticatesAndSelectsFromTheUrl_data();
    void authenticatesAndSelectsFromTheUrl();
    void bigBatchToAClosedConnectionIsAnIoError();
    void loadingServerIsNotReadyAndKeepsTheConnection();

private:
    RedisUrl m_url;
};

void TestRedisPipe::initTestCase()
{
    m_url = test::redisUrl();
}

void TestRedisPipe::batchGoesOutInOneWrite_data()
{
    QTest::addColumn<bool>("viaScript");
    QTest::newRow("200 INCRBY conversations, one write") << false;
    QTest::newRow("200 EVALSHA conversations of a loaded script, one write") << true;
}

void TestRedisPipe::batchGoesOutInOneWrite()
{
    QFETCH(bool, viaScript);
    constexpr int Count = 200;
    const QByteArray prefix = test::uniquePrefix().toUtf8() + "batch:";
    const LuaScript script(QStringLiteral("incrby"), "-- KEYS[1] counter, ARGV[1] amount; returns the new value\n"
                                                     "return redis.call('INCRBY', KEYS[1], ARGV[1])");
    RedisClient redis(m_url);
    if (viaScript)
        QCOMPARE(redis.command({"SCRIPT", "LOAD", script.body()}).toBytes(), script.sha1());

    RedisPipe pipe(m_url);
    Outcome warmUp;  // the connection is open, as in a server that has been running
    QVERIFY(runOne(pipe, oneRound({{"PING"}}), warmUp));
    QVERIFY2(!warmUp.error, qPrintable(messageOf(warmUp.error)));
    const quint64 writesBefore = pipe.writeCalls();
    const quint64 commandsBefore = pipe.commandsSent();

    std::vector<int> endOrder;
    std::vector<Outcome> outcomes(Count);
    for (int i = 0; i < Count; ++i) {
        const QByteArray key = prefix + QByteArray::number(i);
        const QByteArray amount = QByteArray::number(i + 1);
        const QByteArrayList command = viaScript ? script.evalshaCommand({key}, {amount}) : QByteArrayList{"INCRBY", key, amount};
        pipe.start(oneRound({command}), [&outcomes, &endOrder, i, done = record(outcomes[size_t(i)])](RedisConversation &c, std::exception_ptr e) {
            endOrder.push_back(i);
            done(c, std::move(e));
        });
    }
    QVERIFY(endOrder.empty());  // never inside start()
    QVERIFY(drive(pipe, [&] { return endOrder.size() == size_t(Count); }));

    std::vector<int> expectedOrder(Count);
    std::iota(expectedOrder.begin(), expectedOrder.end(), 0);
    QVERIFY(endOrder == expectedOrder);
    for (int i = 0; i < Count; ++i) {
        const Outcome &outcome = outcomes[size_t(i)];
        QCOMPARE(outcome.calls, 1);
        QVERIFY2(!outcome.error, qPrintable(messageOf(outcome.error)));
        QCOMPARE(outcome.reply().integer, i + 1);
    }
    QCOMPARE(pipe.commandsSent() - commandsBefore, quint64(Count));
    // One write() is expected (the batch is ~10 KB, well inside a fresh socket's send buffer);
    // a short write would be followed by a second right away, which is still one batch.
    const quint64 writes = pipe.writeCalls() - writesBefore;
    QVERIFY2(writes >= 1 && writes <= 2, qPrintable(QStringLiteral("%1 write() calls for %2 commands").arg(writes).arg(Count)));
    QVERIFY(pipe.isIdle());

    QByteArrayList mget{"MGET"};
    QByteArrayList del{"DEL"};
    for (int i = 0; i < Count; ++i) {
        mget << prefix + QByteArray::number(i);
        del << prefix + QByteArray::number(i);
    }
    const RedisValue stored = redis.command(mget);
    QCOMPARE(stored.elements.size(), size_t(Count));
    for (int i = 0; i < Count; ++i)
        QCOMPARE(stored.elements[size_t(i)].toInteger(), i + 1);
    redis.command(del);
}

void TestRedisPipe::roundsFollowReplies()
{
    const QByteArray prefix = test::uniquePrefix().toUtf8();
    const QByteArray counter = prefix + "counter";
    const QByteArray pointer = prefix + "pointer";
    const QByteArray target = prefix + "target";
    const QByteArray copy = prefix + "copy";
    RedisClient redis(m_url);
    redis.pipeline({{"SET", counter, "41"}, {"SET", pointer, target}, {"SET", target, "bullseye"}});

    // Round 2 writes counter + 1 and reads the key named by round 1; round 3 copies what that held.
    auto conversation = std::make_unique<Steps>(std::vector<Steps::Step>{
            [&](const std::vector<RedisValue> &) { return QList<QByteArrayList>{{"GET", counter}, {"GET", pointer}}; },
            [&](const std::vector<RedisValue> &replies) {
                return QList<QByteArrayList>{{"SET", counter, QByteArray::number(replies.at(0).toInteger() + 1)}, {"GET", replies.at(1).toBytes()}};
            },
            [&](const std::vector<RedisValue> &replies) {
                return QList<QByteArrayList>{{"GET", counter}, {"SET", copy, replies.at(1).toBytes()}};
            }});
    RedisPipe pipe(m_url);
    Outcome outcome;
    QVERIFY(runOne(pipe, std::move(conversation), outcome));
    QCOMPARE(outcome.calls, 1);
    QVERIFY2(!outcome.error, qPrintable(messageOf(outcome.error)));
    QCOMPARE(outcome.rounds.size(), size_t(3));
    QCOMPARE(outcome.rounds[0].at(0).toBytes(), QByteArray("41"));
    QCOMPARE(outcome.rounds[0].at(1).toBytes(), target);
    QCOMPARE(outcome.rounds[1].at(0).toBytes(), QByteArray("OK"));
    QCOMPARE(outcome.rounds[1].at(1).toBytes(), QByteArray("bullseye"));
    QCOMPARE(outcome.rounds[2].at(0).toBytes(), QByteArray("42"));
    QCOMPARE(outcome.rounds[2].at(1).toBytes(), QByteArray("OK"));
    QCOMPARE(pipe.commandsSent(), quint64(6));
    QCOMPARE(redis.command({"GET", copy}).toBytes(), QByteArray("bullseye"));
    redis.command({"DEL", counter, pointer, target, copy});
}

void TestRedisPipe::missingScriptIsResentWithBody_data()
{
    QTest::addColumn<bool>("flushFirst");
    QTest::newRow("SCRIPT FLUSH first: NOSCRIPT replies resent as EVAL") << true;
    QTest::newRow("script loaded: EVALSHA only") << false;
}

void TestRedisPipe::missingScriptIsResentWithBody()
{
    QFETCH(bool, flushFirst);
    constexpr int Count = 50;
    // A server of its own: SCRIPT FLUSH on the shared one would disturb other suites' scripts.
    PrivateRedis server;
    QVERIFY2(server.start(), server.log().constData());
    const RedisUrl url = localUrl(server.port());
    const LuaScript script(QStringLiteral("pipe_noscript"), "-- KEYS[1] counter, ARGV[1] amount; returns the new value\n"
                                                            "return redis.call('INCRBY', KEYS[1], ARGV[1])");
    RedisClient redis(url);
    if (flushFirst)
        redis.command({"SCRIPT", "FLUSH"});
    else
        redis.command({"SCRIPT", "LOAD", script.body()});
    QCOMPARE(redis.command({"SCRIPT", "EXISTS", script.sha1()}).elements.at(0).toInteger(), flushFirst ? 0LL : 1LL);

    RedisPipe pipe(url);
    std::vector<Outcome> outcomes(Count);
    for (int i = 0; i < Count; ++i)
        pipe.start(oneRound({script.evalshaCommand({"counter:" + QByteArray::number(i)}, {QByteArray::number(i + 1)})}),
                   record(outcomes[size_t(i)]));
    QVERIFY(drive(pipe, [&] { return std::all_of(outcomes.begin(), outcomes.end(), [](const Outcome &o) { return o.ended(); }); }));

    for (int i = 0; i < Count; ++i) {
        const Outcome &outcome = outcomes[size_t(i)];
        QCOMPARE(outcome.calls, 1);
        QVERIFY2(!outcome.error, qPrintable(messageOf(outcome.error)));
        QCOMPARE(outcome.reply().integer, i + 1);
        QCOMPARE(redis.command({"GET", "counter:" + QByteArray::number(i)}).toInteger(), i + 1);
    }
    if (flushFirst) {
        // At least one EVAL went (the first NOSCRIPT), at most one per conversation.
        QVERIFY2(pipe.commandsSent() > quint64(Count) && pipe.commandsSent() <= quint64(2 * Count), qPrintable(QString::number(pipe.commandsSent())));
    } else {
        QCOMPARE(pipe.commandsSent(), quint64(Count));
    }
    QCOMPARE(redis.command({"SCRIPT", "EXISTS", script.sha1()}).elements.at(0).toInteger(), 1LL);
}

void TestRedisPipe::errorReplyEndsOnlyItsConversation_data()
{
    QTest::addColumn<QByteArrayList>("failing");
    QTest::addColumn<QString>("expectedMessage");
    QTest::newRow("INCR of a string that is no number") << QByteArrayList{"INCR", "{text}"} << QStringLiteral("not an integer");
    QTest::newRow("LPUSH to a string key: WRONGTYPE") << QByteArrayList{"LPUSH", "{text}", "x"} << QStringLiteral("WRONGTYPE");
    QTest::newRow("unknown command") << QByteArrayList{"NOSUCHCOMMAND", "{text}"} << QStringLiteral("unknown command");
    QTest::newRow("script returning an error reply") << QByteArrayList{"EVAL", "return redis.error_reply('pipe test failure')", "0"}
                                                     << QStringLiteral("pipe test failure");
}

void TestRedisPipe::errorReplyEndsOnlyItsConversation()
{
    QFETCH(QByteArrayList, failing);
    QFETCH(QString, expectedMessage);
    const QByteArray prefix = test::uniquePrefix().toUtf8();
    const QByteArray text = prefix + "text";
    const QByteArray counter = prefix + "counter";
    for (QByteArray &argument : failing)
        argument.replace("{text}", text);
    RedisClient redis(m_url);
    redis.command({"SET", text, "not a number"});

    RedisPipe pipe(m_url);
    Outcome before;
    Outcome failed;
    Outcome after;
    pipe.start(oneRound({{"INCR", counter}}), record(before));
    pipe.start(oneRound({failing}), record(failed));
    pipe.start(oneRound({{"INCR", counter}, {"GET", text}}), record(after));
    QVERIFY(drive(pipe, [&] { return before.ended() && failed.ended() && after.ended(); }));

    QCOMPARE(failed.calls, 1);
    QVERIFY2(holds<RedisReplyError>(failed.error), qPrintable(messageOf(failed.error)));
    QVERIFY2(messageOf(failed.error).contains(expectedMessage), qPrintable(messageOf(failed.error)));
    QVERIFY2(!before.error, qPrintable(messageOf(before.error)));
    QCOMPARE(before.reply().integer, 1LL);
    QCOMPARE(after.calls, 1);
    QVERIFY2(!after.error, qPrintable(messageOf(after.error)));
    QCOMPARE(after.rounds.at(0).at(0).integer, 2LL);
    QCOMPARE(after.rounds.at(0).at(1).toBytes(), QByteArray("not a number"));
    QCOMPARE(pipe.generation(), quint64(1));  // an error reply does not cost the connection
    QVERIFY(pipe.isIdle());
    redis.command({"DEL", text, counter});
}

void TestRedisPipe::unreachableServerIsAnIoError_data()
{
    QTest::addColumn<int>("count");
    QTest::newRow("closed port, one conversation") << 1;
    QTest::newRow("closed port, three conversations queued together") << 3;
}

void TestRedisPipe::unreachableServerIsAnIoError()
{
    QFETCH(int, count);
    const int port = closedPort();
    QVERIFY(port > 0);
    // A connect timeout far above the bound below: a refusal must not wait for it.
    RedisPipe pipe(localUrl(port), RedisOptions{5000ms, 5000ms});
    QElapsedTimer clock;
    clock.start();
    std::vector<Outcome> outcomes(static_cast<size_t>(count));
    for (Outcome &outcome : outcomes)
        pipe.start(oneRound({{"PING"}}), record(outcome, &clock));
    QVERIFY(drive(pipe, [&] { return std::all_of(outcomes.begin(), outcomes.end(), [](const Outcome &o) { return o.ended(); }); }));

    for (const Outcome &outcome : outcomes) {
        QCOMPARE(outcome.calls, 1);
        QVERIFY2(holds<RedisIoError>(outcome.error), qPrintable(messageOf(outcome.error)));
        QVERIFY2(!holds<RedisTimeoutError>(outcome.error), qPrintable(messageOf(outcome.error)));
        QVERIFY2(outcome.elapsedMs < 2000, qPrintable(QStringLiteral("%1 ms").arg(outcome.elapsedMs)));
    }
    QVERIFY(pipe.isIdle());
    QVERIFY(!pipe.hasUnsentWork());
    QCOMPARE(pipe.fd(), -1);
    QCOMPARE(pipe.nextDeadlineNs(), qint64(-1));
}

void TestRedisPipe::stalledServerTimesOutThenReconnects()
{
    constexpr int StallMs = 1500;  // under lua-time-limit (5 s), so the server answers nobody meanwhile
    PrivateRedis server;
    QVERIFY2(server.start(), server.log().constData());
    RedisPipe pipe(localUrl(server.port()), RedisOptions{1000ms, 300ms});
    Outcome warmUp;
    QVERIFY(runOne(pipe, oneRound({{"SET", "key", "before"}}), warmUp));
    QVERIFY2(!warmUp.error, qPrintable(messageOf(warmUp.error)));
    const quint64 generation = pipe.generation();

    QTcpSocket staller;
    staller.connectToHost(QStringLiteral("127.0.0.1"), quint16(server.port()));
    QVERIFY(staller.waitForConnected(5000));
    staller.write("PING\r\n");  // the server has taken the connection in
    QVERIFY(staller.waitForReadyRead(5000));
    QCOMPARE(staller.readAll(), QByteArray("+PONG\r\n"));
    // The stall goes out before the pipe's command, over connections both open already: the
    // server reads the script first and spins before it reads the GET.
    QVERIFY(sendStall(staller, StallMs));
    QElapsedTimer clock;
    clock.start();
    Outcome stalled;
    QVERIFY(runOne(pipe, oneRound({{"GET", "key"}}), stalled, &clock));

    QCOMPARE(stalled.calls, 1);
    QVERIFY2(holds<RedisTimeoutError>(stalled.error), qPrintable(messageOf(stalled.error)));
    QVERIFY2(stalled.elapsedMs >= 300, qPrintable(QStringLiteral("ended after %1 ms, before the timeout").arg(stalled.elapsedMs)));
    QVERIFY2(stalled.elapsedMs < 1400, qPrintable(QStringLiteral("ended after %1 ms: it waited for the stall").arg(stalled.elapsedMs)));
    QVERIFY(pipe.isIdle());
    QCOMPARE(pipe.fd(), -1);

    QVERIFY(staller.waitForReadyRead(10000));  // the stall is over
    QVERIFY(staller.readAll().startsWith(":1"));
    Outcome after;
    QVERIFY(runOne(pipe, oneRound({{"GET", "key"}}), after));
    QVERIFY2(!after.error, qPrintable(messageOf(after.error)));
    QCOMPARE(after.reply().toBytes(), QByteArray("before"));
    QVERIFY(pipe.generation() > generation);
}

namespace {
enum class KilledWhen { IdleUnwatched, IdleWatched, AwaitingReply };
}

void TestRedisPipe::killedServerIsAnIoErrorThenReconnects_data()
{
    QTest::addColumn<KilledWhen>("when");
    QTest::newRow("killed while idle, the loop not running: stale connection") << KilledWhen::IdleUnwatched;
    QTest::newRow("killed while idle, the loop saw the close") << KilledWhen::IdleWatched;
    QTest::newRow("killed while a reply is awaited (BLPOP)") << KilledWhen::AwaitingReply;
}

void TestRedisPipe::killedServerIsAnIoErrorThenReconnects()
{
    QFETCH(KilledWhen, when);
    PrivateRedis server;
    QVERIFY2(server.start(), server.log().constData());
    RedisPipe pipe(localUrl(server.port()));  // command timeout 3 s: longer than any wait below
    Outcome first;
    QVERIFY(runOne(pipe, oneRound({{"SET", "key", "first"}}), first));
    QVERIFY2(!first.error, qPrintable(messageOf(first.error)));
    const quint64 generation = pipe.generation();

    Outcome broken;
    if (when == KilledWhen::AwaitingReply) {
        const quint64 writes = pipe.writeCalls();
        pipe.start(oneRound({{"BLPOP", "empty-list", "10"}}), record(broken));
        QVERIFY(drive(pipe, [&] { return pipe.writeCalls() > writes; }));
        server.kill();
        QVERIFY(drive(pipe, [&] { return broken.ended(); }));
    } else {
        server.kill();
        if (when == KilledWhen::IdleWatched) {
            QVERIFY(drive(pipe, [&] { return pipe.fd() < 0; }));
            QCOMPARE(pipe.generation(), generation);
        }
        QVERIFY(runOne(pipe, oneRound({{"GET", "key"}}), broken));
    }
    QCOMPARE(broken.calls, 1);
    QVERIFY2(holds<RedisIoError>(broken.error), qPrintable(messageOf(broken.error)));
    QVERIFY2(!holds<RedisTimeoutError>(broken.error), qPrintable(messageOf(broken.error)));
    QVERIFY(pipe.isIdle());
    QCOMPARE(pipe.fd(), -1);

    QVERIFY2(server.start(), server.log().constData());  // same port, empty (nothing persisted)
    Outcome restarted;
    QVERIFY(runOne(pipe, oneRound({{"SET", "key", "second"}, {"GET", "key"}}), restarted));
    QVERIFY2(!restarted.error, qPrintable(messageOf(restarted.error)));
    QCOMPARE(restarted.rounds.at(0).at(1).toBytes(), QByteArray("second"));
    QVERIFY(pipe.generation() > generation);
}

void TestRedisPipe::conversationEndingBeforeSendingEndsAtFlush_data()
{
    QTest::addColumn<bool>("firstRoundThrows");
    QTest::newRow("no round at all: ends without error") << false;
    QTest::newRow("first nextRound() throws: ends with that error") << true;
}

void TestRedisPipe::conversationEndingBeforeSendingEndsAtFlush()
{
    QFETCH(bool, firstRoundThrows);
    std::vector<Steps::Step> steps;
    if (firstRoundThrows)
        steps.push_back([](const std::vector<RedisValue> &) -> QList<QByteArrayList> { throw InvalidInputError(QStringLiteral("no such user")); });
    RedisPipe pipe(m_url);
    Outcome outcome;
    pipe.start(std::make_unique<Steps>(std::move(steps)), record(outcome));
    QVERIFY(!outcome.ended());  // never inside start()
    QVERIFY(pipe.hasUnsentWork());
    QVERIFY(!pipe.isIdle());

    pipe.flush(monotonicNs());
    QCOMPARE(outcome.calls, 1);
    if (firstRoundThrows) {
        QVERIFY2(holds<InvalidInputError>(outcome.error), qPrintable(messageOf(outcome.error)));
    } else {
        QVERIFY2(!outcome.error, qPrintable(messageOf(outcome.error)));
    }
    QVERIFY(outcome.rounds.empty());
    QVERIFY(pipe.isIdle());
    QVERIFY(!pipe.hasUnsentWork());
    QCOMPARE(pipe.commandsSent(), quint64(0));
    QCOMPARE(pipe.fd(), -1);  // no connection opened for nothing
    pipe.flush(monotonicNs());
    QCOMPARE(outcome.calls, 1);
}

void TestRedisPipe::authenticatesAndSelectsFromTheUrl_data()
{
    QTest::addColumn<QString>("credentials");  // user:password@ of the URL
    QTest::addColumn<int>("db");
    QTest::addColumn<QByteArray>("expectedUser");
    QTest::addColumn<QString>("expectedError");  // empty: the conversation succeeds
    QTest::newRow("right password") << QStringLiteral(":secret@") << 0 << QByteArray("default") << QString();
    QTest::newRow("ACL user and password") << QStringLiteral("piper:pa%3Ass@") << 0 << QByteArray("piper") << QString();
    QTest::newRow("password and database 3: AUTH then SELECT") << QStringLiteral(":secret@") << 3 << QByteArray("default") << QString();
    QTest::newRow("wrong password: rejected") << QStringLiteral(":wrong@") << 0 << QByteArray() << QStringLiteral("rejected the connection");
    QTest::newRow("no database 99: rejected") << QStringLiteral(":secret@") << 99 << QByteArray() << QStringLiteral("has no database 99");
}

void TestRedisPipe::authenticatesAndSelectsFromTheUrl()
{
    QFETCH(QString, credentials);
    QFETCH(int, db);
    QFETCH(QByteArray, expectedUser);
    QFETCH(QString, expectedError);
    PrivateRedis server({QStringLiteral("--requirepass"), QStringLiteral("secret")});
    QVERIFY2(server.start(), server.log().constData());
    RedisClient admin(RedisUrl::parse(QStringLiteral("redis://:secret@127.0.0.1:%1").arg(server.port())));
    admin.command({"ACL", "SETUSER", "piper", "on", ">pa:ss", "~*", "+@all"});

    const RedisUrl url = RedisUrl::parse(QStringLiteral("redis://") + credentials + QStringLiteral("127.0.0.1:%1/%2").arg(server.port()).arg(db));
    RedisPipe pipe(url);
    Outcome outcome;
    QVERIFY(runOne(pipe, oneRound({{"ACL", "WHOAMI"}, {"CLIENT", "INFO"}}), outcome));
    QCOMPARE(outcome.calls, 1);
    if (expectedError.isEmpty()) {
        QVERIFY2(!outcome.error, qPrintable(messageOf(outcome.error)));
        QCOMPARE(outcome.rounds.at(0).at(0).toBytes(), expectedUser);
        const QByteArray info = outcome.rounds.at(0).at(1).toBytes();
        QVERIFY2(info.contains(QByteArray(" db=" + QByteArray::number(db) + ' ')), info.constData());
    } else {
        // A missing database is the same error as on the blocking client's path (RedisHandshake).
        if (db == 99)
            QVERIFY2(holds<RedisUrlMismatchError>(outcome.error), qPrintable(messageOf(outcome.error)));
        else
            QVERIFY2(holds<RedisIoError>(outcome.error), qPrintable(messageOf(outcome.error)));
        QVERIFY2(messageOf(outcome.error).contains(expectedError), qPrintable(messageOf(outcome.error)));
        QVERIFY(pipe.isIdle());
        QCOMPARE(pipe.fd(), -1);
    }
}

void TestRedisPipe::loadingServerIsNotReadyAndKeepsTheConnection()
{
    // The shared fixture (lantern::test), not this file's own PrivateRedis: it restarts a server
    // on its data and returns while that server still loads.
    lantern::test::PrivateRedis server;
    server.fill(2000);
    server.stop();
    server.start(lantern::test::PrivateRedis::slowLoading());
    RedisPipe pipe(localUrl(server.port()));
    Outcome first;
    QVERIFY(runOne(pipe, oneRound({{"GET", "filler:1"}}), first));
    QCOMPARE(first.calls, 1);
    QVERIFY2(holds<RedisNotReadyError>(first.error), qPrintable(messageOf(first.error)));
    QVERIFY2(messageOf(first.error).contains(QLatin1String("is loading its dataset")), qPrintable(messageOf(first.error)));
    QVERIFY(pipe.fd() >= 0);
    const quint64 generation = pipe.generation();

    // Several conversations in one batch, a round of several commands each: each ends once,
    // with the same error, and the replies left of a round are read and dropped.
    std::vector<Outcome> batch(3);
    for (Outcome &outcome : batch)
        pipe.start(oneRound({{"PING"}, {"GET", "filler:2"}, {"DBSIZE"}}), record(outcome));
    QVERIFY(drive(pipe, [&] { return std::all_of(batch.begin(), batch.end(), [](const Outcome &o) { return o.ended(); }) && pipe.isIdle(); }));
    for (const Outcome &outcome : batch) {
        QCOMPARE(outcome.calls, 1);
        QVERIFY2(holds<RedisNotReadyError>(outcome.error), qPrintable(messageOf(outcome.error)));
    }
    QVERIFY(server.isLoading());

    server.finishLoading();
    Outcome loaded;
    QVERIFY(runOne(pipe, oneRound({{"DBSIZE"}}), loaded));
    QVERIFY2(!loaded.error, qPrintable(messageOf(loaded.error)));
    QCOMPARE(loaded.reply().integer, 2000LL);
    QCOMPARE(pipe.generation(), generation);  // the same connection throughout
}

/** A batch larger than the socket's buffer, written after the server closed the connection: the
    second write meets EPIPE. It must end the conversation with an I/O error, not SIGPIPE the
    process (found by this test: the pipe used write() without MSG_NOSIGNAL). */
void TestRedisPipe::bigBatchToAClosedConnectionIsAnIoError()
{
    PrivateRedis server;
    QVERIFY2(server.start(), server.log().constData());
    RedisPipe pipe(localUrl(server.port()));
    Outcome first;
    QVERIFY(runOne(pipe, oneRound({{"CLIENT", "ID"}}), first));
    RedisClient killer(localUrl(server.port()));
    QCOMPARE(killer.command({"CLIENT", "KILL", "ID", QByteArray::number(first.reply().integer)}).toInteger(), 1LL);
    QList<QByteArrayList> big;
    for (int i = 0; i < 2000; ++i)
        big << QByteArrayList{"SET", "k" + QByteArray::number(i), QByteArray(8192, 'x')};
    Outcome broken;
    QVERIFY(runOne(pipe, oneRound(big), broken));
    QVERIFY2(holds<RedisIoError>(broken.error), qPrintable(messageOf(broken.error)));
    QCOMPARE(broken.calls, 1);
    QVERIFY(pipe.isIdle());
    QCOMPARE(killer.command({"DBSIZE"}).toInteger(), 0LL);  // the server took none of it
}

LANTERN_TEST_SUITE(TestRedisPipe);

} // namespace tst_redispipe

#include "tst_redispipe.moc"
