// lanternd through Redis Sentinel (redis-sentinel://...#MASTER) against three sentinels, a
// master and a replica the test starts: a one-shot command, a long-running `work` and `serve`
// across a failover. While no master is known serve answers 503 (nothing else), then it goes on
// against the new master by itself; the worker carries on and persists the check-ins made after
// it. The sentinels' options and their misuse (exit 2).
#include "clitest.h"
#include "serveprocess.h"
#include "testsentinels.h"
#include "testsuite.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QTest>

namespace tst_cli_sentinel {

using namespace lantern::test;
using namespace lantern::test::cli;

namespace {

const QString Secret = QStringLiteral("sentinel-test-secret");

QString bearerFor(qint64 uid)
{
    return bearerWithSecret(Secret, uid);
}

} // namespace

class TestCliSentinel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_sentinels = std::make_unique<TestSentinels>(); }
    void cleanupTestCase() { dropFreshDatabases(); }
    void commandsWorkerAndServeAcrossAFailover();
    void sentinelOptionsNeedASentinelUrl();

private:
    std::unique_ptr<TestSentinels> m_sentinels;
};

void TestCliSentinel::commandsWorkerAndServeAcrossAFailover()
{
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    Lanternd lanternd(m_sentinels->urlText(), sql.url, uniquePrefix(), QStringLiteral("2026-03-05"));
    lanternd.defaults.insert(QStringLiteral("token-secret"), Secret);
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("migrate")}));
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("1")}));

    WorkerProcess worker(lanternd, QStringLiteral("w1"));
    QVERIFY(worker.started());
    ServeClient server(lanternd);
    QVERIFY2(server.waitListening(), server.stderrText().constData());
    const HttpReply before = server.request("POST", QStringLiteral("/v1/checkin"), bearerFor(2));
    QVERIFY2(before.status == 200, before.describe().constData());

    m_sentinels->failOver();
    // Until serve has followed: 503 and nothing else, then 200 by itself.
    int unavailable = 0;
    QDeadlineTimer deadline(20000);
    HttpReply reply;
    while (!deadline.hasExpired()) {
        reply = server.request("POST", QStringLiteral("/v1/checkin"), bearerFor(3));
        if (reply.status == 200)
            break;
        QVERIFY2(reply.status == 503, reply.describe().constData());
        ++unavailable;
    }
    QVERIFY2(reply.status == 200, reply.describe().constData());
    qInfo("serve answered %d time(s) 503 before the new master took the check-ins", unavailable);
    for (qint64 uid = 4; uid <= 10; ++uid) {
        const HttpReply after = server.request("POST", QStringLiteral("/v1/checkin"), bearerFor(uid));
        QVERIFY2(after.status == 200, after.describe().constData());
    }
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("11")}));

    // The worker carried on across the failover: what the new master took reaches SQL.
    const auto persisted = [&] {
        return sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM checkin_log WHERE uid BETWEEN 3 AND 11"));
    };
    QDeadlineTimer persistDeadline(20000);
    while (persisted() < 9 && !persistDeadline.hasExpired())
        QTest::qWait(50);  // polling SQL with a deadline, while the worker works
    QCOMPARE(persisted(), 9);
    QCOMPARE(server.stop().first, 0);
    QVERIFY2(worker.stop(15000), worker.err().constData());
}

void TestCliSentinel::sentinelOptionsNeedASentinelUrl()
{
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd(redisUrlText(), sql.url, uniquePrefix());
    const Result result = lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("1"),
                                        QStringLiteral("--sentinel-password"), QStringLiteral("x")});
    QCOMPARE(result.exitCode, 2);
    QVERIFY2(result.err.contains("redis-sentinel://"), result.describe().constData());
    const Result noMaster = lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("1"), QStringLiteral("--redis"),
                                          QStringLiteral("redis-sentinel://127.0.0.1:26379")});
    QCOMPARE(noMaster.exitCode, 2);
    QVERIFY2(noMaster.err.contains("#MASTER"), noMaster.describe().constData());
}

LANTERN_TEST_SUITE(TestCliSentinel);

} // namespace tst_cli_sentinel

#include "tst_cli_sentinel.moc"
