// The console's words for a Redis that cannot serve yet (issue 15): while a redis-server of the
// test's own really loads its dataset, what a view's request meets is explained as "Redis is
// loading", not as a refusal or an outage, and the connection test (whose figures feed the status
// bar) says the same. Once loaded, the same checks succeed.
#include "privateredis.h"

#include "console/common/connectionerrors.h"
#include "console/connections/connectiontester.h"
#include "redis/redisclient.h"
#include "testsuite.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

namespace tst_connectionerrors {

using namespace lantern;
using namespace lantern::test;

namespace {

constexpr int FillerKeys = 4000;  // minutes of loading at 50 ms a key, unless finishLoading()

} // namespace

class TestConnectionErrors final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void loadingRedisIsExplained();
    void connectionTestSaysLoading();
    void cleanupTestCase();

private:
    QTemporaryDir m_dir;
    std::unique_ptr<PrivateRedis> m_server;
    Config m_config;
};

void TestConnectionErrors::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_server = std::make_unique<PrivateRedis>();
    m_server->fill(FillerKeys);
    m_server->stop();
    m_server->start(PrivateRedis::slowLoading());
    QVERIFY(m_server->isLoading());
    m_config = Config::resolve({{QStringLiteral("redis"), m_server->urlText()},
                                {QStringLiteral("db"), QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("console.db"))}});
}

void TestConnectionErrors::loadingRedisIsExplained()
{
    LazyConnections connections(m_config);
    RedisClient &redis = connections.redis();
    PlainFailure failure;
    try {
        redis.command({QByteArrayLiteral("GET"), QByteArrayLiteral("anything")});
        QFAIL("a loading Redis answered GET");
    } catch (const std::exception &error) {
        failure = ConnectionErrors::explain(error, m_config, connections);
    }
    QVERIFY(m_server->isLoading());
    QVERIFY2(failure.message.contains(QLatin1String("is loading its dataset")), qPrintable(failure.message));
    QVERIFY2(failure.message.contains(m_server->urlText()), qPrintable(failure.message));
    QVERIFY2(failure.detail.contains(QLatin1String("loading")), qPrintable(failure.detail));
    // Loading is no broken connection: the client is kept.
    QVERIFY(&connections.redis() == &redis);
    QVERIFY(redis.isConnected());
}

void TestConnectionErrors::connectionTestSaysLoading()
{
    ConnectionTester tester;
    QSignalSpy checked(&tester, &ConnectionTester::checked);
    tester.check(1, m_config);
    QCOMPARE(checked.size(), 1);
    const auto loading = checked.takeFirst().at(1).value<ConnectionCheck>();
    QVERIFY(m_server->isLoading());
    QVERIFY(!loading.redisOk);
    QVERIFY2(loading.redisFailure.message.contains(QLatin1String("is loading its dataset")), qPrintable(loading.redisFailure.message));
    QCOMPARE(loading.redisStatus, ConnectionErrors::tr("is loading"));

    m_server->finishLoading();
    tester.check(2, m_config);
    QCOMPARE(checked.size(), 1);
    const auto loaded = checked.takeFirst().at(1).value<ConnectionCheck>();
    QVERIFY2(loaded.redisOk, qPrintable(loaded.redisFailure.detail));
    QVERIFY(loaded.redisStatus.isEmpty());
}

void TestConnectionErrors::cleanupTestCase()
{
    m_server.reset();
}

LANTERN_TEST_SUITE(TestConnectionErrors);

} // namespace tst_connectionerrors

#include "tst_connectionerrors.moc"
