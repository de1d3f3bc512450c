// The payout gateway (DESIGN §4). The simulated provider on a real private Redis: a key is paid
// once however often it is sent, injected failures before and after paying, retries until paid
// leave an exact ledger, also with several workers at once, and its knobs. The HTTP provider
// against a real HTTP/1.1 server on 127.0.0.1 running on its own thread: what it sends, which
// answers it retries, timeouts, refusals, and the provider's ledger paying a key once.
#include "core/errors.h"
#include "payout/httppayoutgateway.h"
#include "payout/payoutgateway.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/redisclient.h"
#include "payoutprovider.h"
#include "testservers.h"
#include "testsuite.h"

#include <QElapsedTimer>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpServer>
#include <QTest>
#include <QThread>

#include <memory>

namespace tst_payout {

using namespace lantern;
using namespace std::chrono_literals;
using Status = PayoutResult::Status;

namespace {

PayoutRequest envelopeRequest(qint64 campaign, qint64 seq, qint64 amountCents, qint64 uid = 1000)
{
    return {QStringLiteral("cp:%1:%2").arg(campaign).arg(seq), campaign, seq, uid, amountCents};
}

const char *statusName(Status status)
{
    switch (status) {
    case Status::Paid:
        return "Paid";
    case Status::RetryableFailure:
        return "RetryableFailure";
    case Status::PermanentFailure:
        return "PermanentFailure";
    }
    return "?";
}

/** A port on 127.0.0.1 where nothing listens (bound, then released). */
quint16 closedPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 1;
    const quint16 port = probe.serverPort();
    probe.close();
    return port;
}

} // namespace

using ProviderThread = lantern::test::PayoutProvider;
using lantern::test::SeenRequest;

namespace {

HttpPayoutOptions fastOptions(const QUrl &endpoint, int attempts = 3)
{
    HttpPayoutOptions options;
    options.endpoint = endpoint;
    options.timeout = 300ms;
    options.attempts = attempts;
    options.backoff = 1ms;
    return options;
}

} // namespace

// ---------------------------------------------------------------------------------------------

class TestPayout : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    // Simulated provider
    void simulatedPaysAKeyOnce();
    void simulatedFailuresBeforeAndAfterPaying();
    void simulatedRetriesUntilPaidLeaveAnExactLedger();
    void simulatedWorkersShareOneLedger();
    void simulatedRefusesAKeyReusedForAnotherAmount();
    void simulatedRefusesInvalidRequests_data();
    void simulatedRefusesInvalidRequests();
    void simulatedDelaysEveryCall();
    void simulatedUnreachableRedisIsRetryable();
    void simulatedRedisErrorIsRetryable();
    void knobsFromEnvironment_data();
    void knobsFromEnvironment();
    void knobsReadTheProcessEnvironment();

    // HTTP provider
    void httpSendsKeyHeaderAndJsonBody();
    void httpAnswers_data();
    void httpAnswers();
    void httpSameKeyTwiceIsPaidOnce();
    void httpConnectionRefusedIsRetryable();
    void httpWorksOnThreadsWithoutEventLoop();
    void httpRejectsBadOptions_data();
    void httpRejectsBadOptions();

    void factoryChoosesTheProvider();

private:
    RedisUrl m_url;
    QByteArray m_prefix;
    std::unique_ptr<RedisClient> m_redis;
};

void TestPayout::initTestCase()
{
    m_url = test::redisUrl();
}

void TestPayout::init()
{
    m_prefix = test::uniquePrefix().toUtf8();
    m_redis = std::make_unique<RedisClient>(m_url);
}

void TestPayout::cleanup()
{
    m_redis->command({"DEL", m_prefix + "payoutsim:ledger", m_prefix + "payoutsim:calls"});
    m_redis.reset();
}

void TestPayout::simulatedPaysAKeyOnce()
{
    SimulatedPayoutGateway gateway(*m_redis, m_prefix, {}, 1);
    const PayoutRequest request = envelopeRequest(7, 3, 125);
    const PayoutResult first = gateway.pay(request);
    const PayoutResult second = gateway.pay(request);

    QCOMPARE(statusName(first.status), "Paid");
    QCOMPARE(statusName(second.status), "Paid");
    QVERIFY(!first.providerRef.isEmpty());
    QCOMPARE(second.providerRef, first.providerRef);
    QVERIFY(first.error.isEmpty());
    QCOMPARE(gateway.ledgerSize(), 1);
    QCOMPARE(gateway.ledgerTotalCents(), 125);
    QCOMPARE(gateway.paidAmount(request.idempotencyKey), std::optional<qint64>(125));
    QCOMPARE(gateway.paidAmount(QStringLiteral("cp:7:4")), std::nullopt);
    QCOMPARE(m_redis->command({"HGET", gateway.callsKey(), "cp:7:3"}).toInteger(), 2);
    QCOMPARE(gateway.ledgerKey(), m_prefix + "payoutsim:ledger");
}

void TestPayout::simulatedFailuresBeforeAndAfterPaying()
{
    constexpr int Keys = 200;
    SimulatedPayoutGateway failing(*m_redis, m_prefix, {1.0, 0}, 7);
    QHash<QString, QByteArray> recorded;  // key -> ledger entry written by a call that reported failure
    int notRecorded = 0;
    for (int seq = 1; seq <= Keys; ++seq) {
        const PayoutRequest request = envelopeRequest(9, seq, 100 + seq);
        const PayoutResult result = failing.pay(request);
        QCOMPARE(statusName(result.status), "RetryableFailure");
        QVERIFY(result.providerRef.isEmpty());
        QVERIFY(!result.error.isEmpty());
        if (const auto amount = failing.paidAmount(request.idempotencyKey)) {
            QCOMPARE(*amount, request.amountCents);  // the answer was lost, the payment was not
            recorded.insert(request.idempotencyKey, m_redis->command({"HGET", failing.ledgerKey(), request.idempotencyKey.toUtf8()}).toBytes());
        } else {
            ++notRecorded;
        }
    }
    // Each half has ~100 of the 200 keys (the seed is fixed, so these bounds never flake).
    QVERIFY2(recorded.size() > 50 && notRecorded > 50, qPrintable(QStringLiteral("%1 after, %2 before").arg(recorded.size()).arg(notRecorded)));
    QCOMPARE(failing.ledgerSize(), recorded.size());

    // The provider recovers; the caller retries every key with the same idempotency key.
    SimulatedPayoutGateway healthy(*m_redis, m_prefix, {}, 8);
    for (int seq = 1; seq <= Keys; ++seq) {
        const PayoutRequest request = envelopeRequest(9, seq, 100 + seq);
        const PayoutResult retry = healthy.pay(request);
        QCOMPARE(statusName(retry.status), "Paid");
        if (recorded.contains(request.idempotencyKey))  // paid back then: same entry, same ref
            QCOMPARE(QByteArray::number(request.amountCents) + '|' + retry.providerRef.toUtf8(), recorded.value(request.idempotencyKey));
        QCOMPARE(m_redis->command({"HGET", healthy.callsKey(), request.idempotencyKey.toUtf8()}).toInteger(), 2);
    }
    QCOMPARE(healthy.ledgerSize(), Keys);
    QCOMPARE(healthy.ledgerTotalCents(), Keys * 100 + Keys * (Keys + 1) / 2);
}

void TestPayout::simulatedRetriesUntilPaidLeaveAnExactLedger()
{
    constexpr int Keys = 500;
    constexpr int MaxCalls = 100;  // P(30% failures 100 times in a row) is nil; a loop that never ends is a bug
    SimulatedPayoutGateway gateway(*m_redis, m_prefix, {0.3, 0}, 42);
    qint64 expectedCents = 0;
    int failures = 0;
    QSet<QString> refs;
    for (int seq = 1; seq <= Keys; ++seq) {
        const PayoutRequest request = envelopeRequest(11, seq, seq * 3 + 1);
        expectedCents += request.amountCents;
        PayoutResult result;
        int calls = 0;
        do {
            result = gateway.pay(request);
            ++calls;
        } while (result.status == Status::RetryableFailure && calls < MaxCalls);
        QCOMPARE(statusName(result.status), "Paid");
        failures += calls - 1;
        refs.insert(result.providerRef);
    }
    QCOMPARE(gateway.ledgerSize(), Keys);
    QCOMPARE(gateway.ledgerTotalCents(), expectedCents);
    QCOMPARE(refs.size(), Keys);
    // 0.3 / 0.7 failures per payment on average: about 214 (fixed seed, wide bounds).
    QVERIFY2(failures > 120 && failures < 320, qPrintable(QString::number(failures)));
}

void TestPayout::simulatedWorkersShareOneLedger()
{
    // Four workers, each with its own connection and gateway, all paying the same 100 keys.
    constexpr int Workers = 4;
    constexpr int Keys = 100;
    std::vector<QHash<QString, QString>> refs(Workers);  // per worker: key -> ref it was told
    std::vector<std::unique_ptr<QThread>> threads;
    for (int w = 0; w < Workers; ++w) {
        threads.emplace_back(QThread::create([this, w, &refs] {
            RedisClient redis(m_url);
            SimulatedPayoutGateway gateway(redis, m_prefix, {0.3, 0}, 100 + w);
            for (int seq = 1; seq <= Keys; ++seq) {
                const PayoutRequest request = envelopeRequest(12, seq, 50 + seq);
                for (int calls = 0; calls < 100; ++calls) {
                    const PayoutResult result = gateway.pay(request);
                    if (result.status == Status::Paid) {
                        refs[w].insert(request.idempotencyKey, result.providerRef);
                        break;
                    }
                }
            }
        }));
        threads.back()->start();
    }
    for (const auto &thread : threads)
        QVERIFY(thread->wait(QDeadlineTimer(60s)));

    SimulatedPayoutGateway reader(*m_redis, m_prefix, {}, 0);
    QCOMPARE(reader.ledgerSize(), Keys);
    QCOMPARE(reader.ledgerTotalCents(), Keys * 50 + Keys * (Keys + 1) / 2);
    for (int w = 0; w < Workers; ++w) {
        QCOMPARE(refs[w].size(), Keys);
        QCOMPARE(refs[w], refs[0]);  // every worker was told of the one payment per key
    }
}

void TestPayout::simulatedRefusesAKeyReusedForAnotherAmount()
{
    SimulatedPayoutGateway gateway(*m_redis, m_prefix, {}, 3);
    QCOMPARE(statusName(gateway.pay(envelopeRequest(5, 1, 300)).status), "Paid");
    const PayoutResult reused = gateway.pay(envelopeRequest(5, 1, 301));
    QCOMPARE(statusName(reused.status), "PermanentFailure");
    QVERIFY(reused.error.contains(QLatin1String("cp:5:1")));
    QCOMPARE(gateway.paidAmount(QStringLiteral("cp:5:1")), std::optional<qint64>(300));
    QCOMPARE(gateway.ledgerSize(), 1);
}

void TestPayout::simulatedRefusesInvalidRequests_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<qint64>("amount");
    QTest::newRow("empty key -> refused") << QString() << qint64(100);
    QTest::newRow("zero amount -> refused") << QStringLiteral("cp:1:1") << qint64(0);
    QTest::newRow("negative amount -> refused") << QStringLiteral("cp:1:2") << qint64(-5);
    QTest::newRow("key over 255 characters -> refused") << QString(256, QLatin1Char('k')) << qint64(100);
}

void TestPayout::simulatedRefusesInvalidRequests()
{
    QFETCH(QString, key);
    QFETCH(qint64, amount);
    SimulatedPayoutGateway gateway(*m_redis, m_prefix, {}, 4);
    const PayoutResult result = gateway.pay({key, 1, 1, 1000, amount});
    QCOMPARE(statusName(result.status), "PermanentFailure");
    QVERIFY(!result.error.isEmpty());
    QCOMPARE(gateway.ledgerSize(), 0);
}

void TestPayout::simulatedDelaysEveryCall()
{
    SimulatedPayoutGateway gateway(*m_redis, m_prefix, {0.0, 40}, 5);
    QElapsedTimer elapsed;
    elapsed.start();
    QCOMPARE(statusName(gateway.pay(envelopeRequest(6, 1, 10)).status), "Paid");
    QCOMPARE(statusName(gateway.pay(envelopeRequest(6, 1, 10)).status), "Paid");
    QVERIFY(elapsed.elapsed() >= 80);
}

void TestPayout::simulatedUnreachableRedisIsRetryable()
{
    RedisUrl nowhere = m_url;
    nowhere.host = QStringLiteral("127.0.0.1");
    nowhere.port = closedPort();
    RedisClient redis(nowhere, {200ms, 200ms});
    SimulatedPayoutGateway gateway(redis, m_prefix, {}, 6);
    const PayoutResult result = gateway.pay(envelopeRequest(6, 2, 10));
    QCOMPARE(statusName(result.status), "RetryableFailure");
    QVERIFY(!result.error.isEmpty());
}

void TestPayout::simulatedRedisErrorIsRetryable()
{
    // Both keys hold strings: every hash command gets WRONGTYPE, before or after "paying".
    m_redis->command({"SET", m_prefix + "payoutsim:ledger", "not a hash"});
    m_redis->command({"SET", m_prefix + "payoutsim:calls", "not a hash"});
    for (const double failRate : {0.0, 1.0}) {
        SimulatedPayoutGateway gateway(*m_redis, m_prefix, {failRate, 0}, 9);
        for (int seq = 1; seq <= 10; ++seq) {
            const PayoutResult result = gateway.pay(envelopeRequest(6, seq, 10));
            QCOMPARE(statusName(result.status), "RetryableFailure");
            QVERIFY2(result.error.contains(QLatin1String("WRONGTYPE")), qPrintable(result.error));
        }
    }
}

void TestPayout::knobsFromEnvironment_data()
{
    QTest::addColumn<QString>("failRate");  // null: unset
    QTest::addColumn<QString>("delayMs");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<double>("expectedFailRate");
    QTest::addColumn<int>("expectedDelayMs");

    QTest::newRow("unset -> never fails, no delay") << QString() << QString() << true << 0.0 << 0;
    QTest::newRow("empty -> defaults") << QStringLiteral("") << QStringLiteral(" ") << true << 0.0 << 0;
    QTest::newRow("0.3 and 250") << QStringLiteral("0.3") << QStringLiteral("250") << true << 0.3 << 250;
    QTest::newRow("bounds 0 and 1 accepted") << QStringLiteral("1") << QStringLiteral("0") << true << 1.0 << 0;
    QTest::newRow("spaces trimmed") << QStringLiteral(" 0.5 ") << QStringLiteral(" 60000 ") << true << 0.5 << 60000;
    QTest::newRow("rate 'abc' -> rejected") << QStringLiteral("abc") << QString() << false << 0.0 << 0;
    QTest::newRow("rate -0.1 -> rejected") << QStringLiteral("-0.1") << QString() << false << 0.0 << 0;
    QTest::newRow("rate 1.5 -> rejected") << QStringLiteral("1.5") << QString() << false << 0.0 << 0;
    QTest::newRow("rate nan -> rejected") << QStringLiteral("nan") << QString() << false << 0.0 << 0;
    QTest::newRow("rate 0,5 (comma) -> rejected") << QStringLiteral("0,5") << QString() << false << 0.0 << 0;
    QTest::newRow("rate 30% -> rejected") << QStringLiteral("30%") << QString() << false << 0.0 << 0;
    QTest::newRow("delay 'abc' -> rejected") << QString() << QStringLiteral("abc") << false << 0.0 << 0;
    QTest::newRow("delay -1 -> rejected") << QString() << QStringLiteral("-1") << false << 0.0 << 0;
    QTest::newRow("delay 1.5 -> rejected") << QString() << QStringLiteral("1.5") << false << 0.0 << 0;
    QTest::newRow("delay over a minute -> rejected") << QString() << QStringLiteral("60001") << false << 0.0 << 0;
}

void TestPayout::knobsFromEnvironment()
{
    QFETCH(QString, failRate);
    QFETCH(QString, delayMs);
    QFETCH(bool, valid);
    QProcessEnvironment environment;
    if (!failRate.isNull())
        environment.insert(QStringLiteral("LANTERN_PAYOUT_FAIL_RATE"), failRate);
    if (!delayMs.isNull())
        environment.insert(QStringLiteral("LANTERN_PAYOUT_DELAY_MS"), delayMs);
    if (!valid) {
        try {
            SimulatedPayoutGateway::knobsFromEnvironment(environment);
            QFAIL("malformed knob accepted");
        } catch (const InvalidInputError &error) {
            QVERIFY2(error.message().contains(QLatin1String("LANTERN_PAYOUT_")), qPrintable(error.message()));
        }
        return;
    }
    const SimulationKnobs knobs = SimulatedPayoutGateway::knobsFromEnvironment(environment);
    QTEST(knobs.failRate, "expectedFailRate");
    QTEST(knobs.delayMs, "expectedDelayMs");
}

void TestPayout::knobsReadTheProcessEnvironment()
{
    qputenv("LANTERN_PAYOUT_FAIL_RATE", "0.25");
    qputenv("LANTERN_PAYOUT_DELAY_MS", "7");
    const SimulationKnobs knobs = SimulatedPayoutGateway::knobsFromEnvironment();
    qputenv("LANTERN_PAYOUT_FAIL_RATE", "1.5");
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, SimulatedPayoutGateway::knobsFromEnvironment());
    qunsetenv("LANTERN_PAYOUT_FAIL_RATE");
    qunsetenv("LANTERN_PAYOUT_DELAY_MS");
    QCOMPARE(knobs.failRate, 0.25);
    QCOMPARE(knobs.delayMs, 7);
}

// ---------------------------------------------------------------------------------------------

void TestPayout::httpSendsKeyHeaderAndJsonBody()
{
    ProviderThread provider;
    QVERIFY(provider.port() != 0);
    HttpPayoutGateway gateway(fastOptions(provider.url()));
    constexpr qint64 BigUid = (qint64(1) << 53) + 1;  // not representable as a double
    const PayoutResult result = gateway.pay({QStringLiteral("cp:7:3"), 7, 3, BigUid, 1999});

    QCOMPARE(statusName(result.status), "Paid");
    QCOMPARE(result.providerRef, QStringLiteral("prov-1"));
    QVERIFY(result.error.isEmpty());
    const QList<SeenRequest> seen = provider.seen();
    QCOMPARE(seen.size(), 1);
    QCOMPARE(seen[0].method, QByteArray("POST"));
    QCOMPARE(seen[0].path, QByteArray("/v1/payouts"));
    QCOMPARE(seen[0].idempotencyKey, QByteArray("cp:7:3"));
    QCOMPARE(seen[0].contentType, QByteArray("application/json"));
    const QJsonObject body = QJsonDocument::fromJson(seen[0].body).object();
    QCOMPARE(body.size(), 5);
    QCOMPARE(body.value(QLatin1String("idempotency_key")).toString(), QStringLiteral("cp:7:3"));
    QCOMPARE(body.value(QLatin1String("campaign_id")).toInteger(), 7);
    QCOMPARE(body.value(QLatin1String("seq")).toInteger(), 3);
    QCOMPARE(body.value(QLatin1String("uid")).toInteger(), BigUid);
    QCOMPARE(body.value(QLatin1String("amount_cents")).toInteger(), 1999);
    QVERIFY2(seen[0].body.contains("\"uid\":9007199254740993"), seen[0].body.constData());
}

void TestPayout::httpAnswers_data()
{
    QTest::addColumn<int>("status");  // what the provider answers first (0: nothing)
    QTest::addColumn<int>("times");   // how many times, before it pays
    QTest::addColumn<int>("attempts");
    QTest::addColumn<Status>("expected");
    QTest::addColumn<int>("requestsSeen");

    QTest::newRow("200 at once -> paid, 1 request") << 200 << 0 << 3 << Status::Paid << 1;
    QTest::newRow("503 once, then 200 -> paid on the 2nd") << 503 << 1 << 3 << Status::Paid << 2;
    QTest::newRow("503 twice, then 200 -> paid on the 3rd") << 503 << 2 << 3 << Status::Paid << 3;
    QTest::newRow("503 every time -> retryable after 3") << 503 << 3 << 3 << Status::RetryableFailure << 3;
    QTest::newRow("503 with 1 attempt -> retryable after 1") << 503 << 1 << 1 << Status::RetryableFailure << 1;
    QTest::newRow("500 once -> retried, paid") << 500 << 1 << 3 << Status::Paid << 2;
    QTest::newRow("502 once -> retried, paid") << 502 << 1 << 3 << Status::Paid << 2;
    QTest::newRow("429 once -> retried, paid") << 429 << 1 << 3 << Status::Paid << 2;
    QTest::newRow("408 once -> retried, paid") << 408 << 1 << 3 << Status::Paid << 2;
    QTest::newRow("200 without ref -> retried, paid") << 200 << 1 << 3 << Status::Paid << 2;
    QTest::newRow("stall once -> timeout, retried, paid") << 0 << 1 << 3 << Status::Paid << 2;
    QTest::newRow("stall always -> retryable after 3 timeouts") << 0 << 99 << 3 << Status::RetryableFailure << 3;
    QTest::newRow("400 -> permanent, 1 request") << 400 << 99 << 3 << Status::PermanentFailure << 1;
    QTest::newRow("404 -> permanent, 1 request") << 404 << 99 << 3 << Status::PermanentFailure << 1;
    QTest::newRow("409 -> permanent, 1 request") << 409 << 99 << 3 << Status::PermanentFailure << 1;
    QTest::newRow("422 -> permanent, 1 request") << 422 << 99 << 3 << Status::PermanentFailure << 1;
    QTest::newRow("302 -> permanent, not followed") << 302 << 99 << 3 << Status::PermanentFailure << 1;
}

void TestPayout::httpAnswers()
{
    QFETCH(int, status);
    QFETCH(int, times);
    QFETCH(int, attempts);
    QFETCH(Status, expected);
    QFETCH(int, requestsSeen);

    ProviderThread provider({status, times});
    HttpPayoutGateway gateway(fastOptions(provider.url(), attempts));
    const PayoutResult result = gateway.pay(envelopeRequest(3, 8, 500));

    QCOMPARE(statusName(result.status), statusName(expected));
    QCOMPARE(provider.seen().size(), requestsSeen);
    for (const SeenRequest &seen : provider.seen())
        QCOMPARE(seen.idempotencyKey, QByteArray("cp:3:8"));  // every retry carries the same key
    QCOMPARE(provider.ledger().size(), expected == Status::Paid ? 1 : 0);
    if (expected == Status::Paid) {
        QCOMPARE(result.providerRef, QString::fromUtf8(provider.ledger().value("cp:3:8")));
    } else {
        QVERIFY(result.providerRef.isEmpty());
        QVERIFY(!result.error.isEmpty());
        if (status != 0)
            QVERIFY2(result.error.contains(QString::number(status)), qPrintable(result.error));
    }
}

void TestPayout::httpSameKeyTwiceIsPaidOnce()
{
    ProviderThread provider;
    HttpPayoutGateway gateway(fastOptions(provider.url()));
    HttpPayoutGateway otherWorker(fastOptions(provider.url()));
    const PayoutResult first = gateway.pay(envelopeRequest(4, 1, 700));
    const PayoutResult again = otherWorker.pay(envelopeRequest(4, 1, 700));
    const PayoutResult other = gateway.pay(envelopeRequest(4, 2, 800));

    QCOMPARE(statusName(first.status), "Paid");
    QCOMPARE(statusName(again.status), "Paid");
    QCOMPARE(statusName(other.status), "Paid");
    QCOMPARE(again.providerRef, first.providerRef);
    QVERIFY(other.providerRef != first.providerRef);
    QCOMPARE(provider.seen().size(), 3);
    QCOMPARE(provider.ledger().size(), 2);
}

void TestPayout::httpConnectionRefusedIsRetryable()
{
    HttpPayoutGateway gateway(fastOptions(QUrl(QStringLiteral("http://127.0.0.1:%1/pay").arg(closedPort())), 2));
    const PayoutResult result = gateway.pay(envelopeRequest(2, 1, 100));
    QCOMPARE(statusName(result.status), "RetryableFailure");
    QVERIFY(!result.error.isEmpty());
}

void TestPayout::httpWorksOnThreadsWithoutEventLoop()
{
    // Worker threads run no event loop; four of them share one gateway instance.
    constexpr int Threads = 4;
    constexpr int PerThread = 10;
    ProviderThread provider({503, 5});  // a few of the first requests fail, whoever sends them
    HttpPayoutGateway gateway(fastOptions(provider.url(), 10));
    std::vector<QList<PayoutResult>> results(Threads);
    std::vector<std::unique_ptr<QThread>> threads;
    for (int t = 0; t < Threads; ++t) {
        threads.emplace_back(QThread::create([&gateway, &results, t] {
            for (int i = 0; i < PerThread; ++i)
                results[t] << gateway.pay(envelopeRequest(20 + t, i + 1, 10 + i));
        }));
        threads.back()->start();
    }
    for (const auto &thread : threads)
        QVERIFY(thread->wait(QDeadlineTimer(60s)));

    for (const QList<PayoutResult> &perThread : results) {
        QCOMPARE(perThread.size(), PerThread);
        for (const PayoutResult &result : perThread)
            QCOMPARE(statusName(result.status), "Paid");
    }
    QCOMPARE(provider.ledger().size(), Threads * PerThread);
    QCOMPARE(provider.seen().size(), Threads * PerThread + 5);
}

void TestPayout::httpRejectsBadOptions_data()
{
    QTest::addColumn<QString>("endpoint");
    QTest::addColumn<int>("attempts");
    QTest::addColumn<int>("timeoutMs");
    QTest::newRow("ftp scheme") << QStringLiteral("ftp://127.0.0.1/pay") << 3 << 1000;
    QTest::newRow("no scheme") << QStringLiteral("127.0.0.1:8080/pay") << 3 << 1000;
    QTest::newRow("empty") << QString() << 3 << 1000;
    QTest::newRow("no host") << QStringLiteral("http:///pay") << 3 << 1000;
    QTest::newRow("zero attempts") << QStringLiteral("http://127.0.0.1/pay") << 0 << 1000;
    QTest::newRow("zero timeout") << QStringLiteral("http://127.0.0.1/pay") << 3 << 0;
}

void TestPayout::httpRejectsBadOptions()
{
    QFETCH(QString, endpoint);
    QFETCH(int, attempts);
    QFETCH(int, timeoutMs);
    HttpPayoutOptions options;
    options.endpoint = QUrl(endpoint);
    options.attempts = attempts;
    options.timeout = std::chrono::milliseconds(timeoutMs);
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, HttpPayoutGateway{options});
}

void TestPayout::factoryChoosesTheProvider()
{
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("LANTERN_PAYOUT_FAIL_RATE"), QStringLiteral("0"));
    std::unique_ptr<PayoutGateway> gateway = makePayoutGateway(*m_redis, m_prefix, environment);
    QVERIFY(dynamic_cast<SimulatedPayoutGateway *>(gateway.get()));
    QCOMPARE(statusName(gateway->pay(envelopeRequest(1, 1, 100)).status), "Paid");
    QCOMPARE(m_redis->command({"HLEN", m_prefix + "payoutsim:ledger"}).toInteger(), 1);

    environment.insert(QStringLiteral("LANTERN_PAYOUT_FAIL_RATE"), QStringLiteral("abc"));
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, makePayoutGateway(*m_redis, m_prefix, environment));

    environment.insert(QStringLiteral("LANTERN_PAYOUT_URL"), QStringLiteral("https://payouts.example.com/v1/payouts"));
    gateway = makePayoutGateway(*m_redis, m_prefix, environment);  // the knobs are the simulator's only
    const auto *http = dynamic_cast<HttpPayoutGateway *>(gateway.get());
    QVERIFY(http);
    QCOMPARE(http->options().endpoint, QUrl(QStringLiteral("https://payouts.example.com/v1/payouts")));
    QCOMPARE(http->options().timeout, HttpPayoutOptions{}.timeout);  // LANTERN_PAYOUT_TIMEOUT_MS unset: the default

    environment.insert(QStringLiteral("LANTERN_PAYOUT_TIMEOUT_MS"), QStringLiteral("45000"));
    gateway = makePayoutGateway(*m_redis, m_prefix, environment);
    QCOMPARE(dynamic_cast<HttpPayoutGateway *>(gateway.get())->options().timeout, std::chrono::milliseconds(45000));
    for (const QString &bad : {QStringLiteral("0"), QStringLiteral("-5"), QStringLiteral("1.5"), QStringLiteral("3s"), QStringLiteral("600001")}) {
        environment.insert(QStringLiteral("LANTERN_PAYOUT_TIMEOUT_MS"), bad);
        QVERIFY_THROWS_EXCEPTION(InvalidInputError, makePayoutGateway(*m_redis, m_prefix, environment));
    }
    environment.remove(QStringLiteral("LANTERN_PAYOUT_TIMEOUT_MS"));

    environment.insert(QStringLiteral("LANTERN_PAYOUT_URL"), QStringLiteral("payouts.example.com"));
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, makePayoutGateway(*m_redis, m_prefix, environment));
}

LANTERN_TEST_SUITE(TestPayout);

} // namespace tst_payout

#include "tst_payout.moc"
