// Payouts in flight at once (issue 12): the dispatcher's window, its retries with the same key,
// the shared rate limit, the heartbeat kept while payouts are out; the simulated provider serving
// many calls together; the HTTP provider past Qt's 6 connections per host, over keep-alive, against
// a real HTTP/1.1 server on its own thread. Real Redis throughout.
#include "payout/httppayoutgateway.h"
#include "payout/payoutdispatcher.h"
#include "payout/payoutratelimit.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/redisclient.h"
#include "payoutprovider.h"
#include "testservers.h"
#include "testsuite.h"

#include <QHash>
#include <QSet>
#include <QTest>
#include <QThread>

#include <atomic>

#include <memory>

namespace tst_payoutconcurrency {

using namespace lantern;
using namespace std::chrono_literals;
using lantern::test::PayoutProvider;
using Status = PayoutResult::Status;

namespace {

PayoutRequest request(qint64 campaign, qint64 seq, qint64 amountCents = 100)
{
    return {QStringLiteral("cp:%1:%2").arg(campaign).arg(seq), campaign, seq, 1000 + seq, amountCents};
}

HttpPayoutOptions httpOptions(const QUrl &endpoint, int connections)
{
    HttpPayoutOptions options;
    options.endpoint = endpoint;
    options.timeout = 10s;  // held answers must not time out while the test looks at them
    options.connections = connections;
    return options;
}

/** Waits until every submitted payout has an outcome and returns them by tag. */
QHash<quint64, PayoutOutcome> drainOutcomes(PayoutDispatcher &dispatcher)
{
    dispatcher.wait({}, QDeadlineTimer(60s));
    QHash<quint64, PayoutOutcome> byTag;
    for (const PayoutOutcome &outcome : dispatcher.takeOutcomes())
        byTag.insert(outcome.tag, outcome);
    return byTag;
}

} // namespace

class TestPayoutConcurrency : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void simulatedServesCallsInFlightTogether();
    void simulatedRetriesUnderConcurrencyLeaveAnExactLedger();
    void dispatcherKeepsWithinItsWindow();
    void httpGoesPastSixConnectionsOverKeepAlive();
    void dispatcherRetriesWithTheSameKey_data();
    void dispatcherRetriesWithTheSameKey();
    void keepAliveRunsWhilePayoutsAreInFlight();
    void dispatcherGoneDropsItsAnswers();
    void threadQuitEndsTheWait();
    void rateBucketIsSharedByWorkers();
    void dispatcherWaitsForTokens();
    void rateFromEnvironment_data();
    void rateFromEnvironment();

private:
    QByteArray m_prefix;
    std::unique_ptr<RedisClient> m_redis;
};

void TestPayoutConcurrency::init()
{
    m_prefix = test::uniquePrefix().toUtf8();
    m_redis = std::make_unique<RedisClient>(test::redisUrl());
}

void TestPayoutConcurrency::cleanup()
{
    m_redis->command({"DEL", m_prefix + "payoutsim:ledger", m_prefix + "payoutsim:calls", m_prefix + "payout:rate"});
    m_redis.reset();
}

void TestPayoutConcurrency::simulatedServesCallsInFlightTogether()
{
    // 64 calls started at once against a 50 ms provider are answered together, their ledger
    // writes in a few pipelines instead of one round trip each.
    SimulatedPayoutGateway gateway(*m_redis, m_prefix, {0.0, 50}, 1);
    PayoutDispatcher dispatcher(gateway, {});
    QCOMPARE(dispatcher.window(), DefaultPayoutsInFlight);  // 64 calls fit in the default window
    for (qint64 seq = 1; seq <= 64; ++seq)
        dispatcher.submit(quint64(seq), request(1, seq, 10 + seq));
    const quint64 tripsBefore = m_redis->roundTrips();
    const QHash<quint64, PayoutOutcome> outcomes = drainOutcomes(dispatcher);
    const quint64 trips = m_redis->roundTrips() - tripsBefore;

    QVERIFY2(trips <= 8, qPrintable(QString::number(trips)));
    QCOMPARE(outcomes.size(), 64);
    for (const PayoutOutcome &outcome : outcomes) {
        QCOMPARE(outcome.result.status, Status::Paid);
        QCOMPARE(outcome.calls, 1);
        QCOMPARE(gateway.paidAmount(outcome.request.idempotencyKey), outcome.request.amountCents);
    }
    QCOMPARE(gateway.ledgerSize(), 64);
    QCOMPARE(dispatcher.counts().calls, 64);
    QCOMPARE(dispatcher.counts().paid, 64);
}

void TestPayoutConcurrency::simulatedRetriesUnderConcurrencyLeaveAnExactLedger()
{
    // A third of the calls fail (half of those after paying); unpaid payouts are submitted again
    // until every one is paid: one ledger entry per key, the right total, each told its own ref.
    SimulatedPayoutGateway gateway(*m_redis, m_prefix, {0.3, 2}, 42);
    PayoutDispatchOptions options;
    options.backoff = 1ms;
    PayoutDispatcher dispatcher(gateway, options);
    constexpr qint64 Payouts = 300;
    qint64 total = 0;
    for (qint64 seq = 1; seq <= Payouts; ++seq) {
        dispatcher.submit(quint64(seq), request(2, seq, seq));
        total += seq;
    }
    QHash<QString, QString> refs;
    qint64 rounds = 0;
    while (refs.size() < Payouts && rounds++ < 20) {
        for (const PayoutOutcome &outcome : drainOutcomes(dispatcher)) {
            if (outcome.result.status == Status::Paid)
                refs.insert(outcome.request.idempotencyKey, outcome.result.providerRef);
            else
                dispatcher.submit(outcome.tag, outcome.request);  // unknown: again, same key
        }
    }
    QCOMPARE(refs.size(), Payouts);
    QCOMPARE(gateway.ledgerSize(), Payouts);
    QCOMPARE(gateway.ledgerTotalCents(), total);
    QVERIFY(dispatcher.counts().providerErrors > 0);
    QCOMPARE(QSet<QString>(refs.cbegin(), refs.cend()).size(), Payouts);
}

void TestPayoutConcurrency::dispatcherKeepsWithinItsWindow()
{
    PayoutProvider provider;
    provider.holdAfter(0);  // paid, answers held back
    HttpPayoutGateway gateway(httpOptions(provider.url(), 64));
    PayoutDispatchOptions options;
    options.maxInFlight = 10;
    PayoutDispatcher dispatcher(gateway, options);
    for (qint64 seq = 1; seq <= 30; ++seq)
        dispatcher.submit(quint64(seq), request(3, seq));
    dispatcher.wait({}, QDeadlineTimer(0));  // starts the first calls
    QTRY_COMPARE_WITH_TIMEOUT(provider.held(), 10, 10000);
    QCOMPARE(dispatcher.inFlight(), 10);
    QCOMPARE(dispatcher.backlog(), 30);

    provider.release();
    const QHash<quint64, PayoutOutcome> outcomes = drainOutcomes(dispatcher);
    QCOMPARE(outcomes.size(), 30);
    for (const PayoutOutcome &outcome : outcomes)
        QCOMPARE(outcome.result.status, Status::Paid);
    QCOMPARE(provider.maxOpen(), 10);
    QCOMPARE(provider.payments().size(), 30);
}

void TestPayoutConcurrency::httpGoesPastSixConnectionsOverKeepAlive()
{
    // Qt opens 6 connections per host and manager; 64 in flight take 64 connections, spread over
    // 11 managers, and the next 64 calls reuse them.
    PayoutProvider provider;
    provider.holdAfter(0);
    HttpPayoutGateway gateway(httpOptions(provider.url(), 64));
    PayoutDispatcher dispatcher(gateway, {});
    for (qint64 seq = 1; seq <= 64; ++seq)
        dispatcher.submit(quint64(seq), request(4, seq));
    dispatcher.wait({}, QDeadlineTimer(0));
    QTRY_COMPARE_WITH_TIMEOUT(provider.held(), 64, 20000);
    QCOMPARE(provider.connections(), 64);
    provider.release();
    QCOMPARE(drainOutcomes(dispatcher).size(), 64);

    for (qint64 seq = 65; seq <= 128; ++seq)
        dispatcher.submit(quint64(seq), request(4, seq));
    const QHash<quint64, PayoutOutcome> outcomes = drainOutcomes(dispatcher);
    QCOMPARE(outcomes.size(), 64);
    for (const PayoutOutcome &outcome : outcomes)
        QCOMPARE(outcome.result.status, Status::Paid);
    QCOMPARE(provider.connections(), 64);  // kept alive, none opened again
    QCOMPARE(provider.maxOpen(), 64);
    QCOMPARE(provider.payments().size(), 128);
}

void TestPayoutConcurrency::dispatcherRetriesWithTheSameKey_data()
{
    QTest::addColumn<int>("failures");  // 503 answers before the provider pays
    QTest::addColumn<Status>("expected");
    QTest::addColumn<int>("calls");
    QTest::newRow("503 twice, paid on the 3rd call") << 2 << Status::Paid << 3;
    QTest::newRow("503 three times, unknown after 3 calls") << 3 << Status::RetryableFailure << 3;
}

void TestPayoutConcurrency::dispatcherRetriesWithTheSameKey()
{
    QFETCH(int, failures);
    QFETCH(Status, expected);
    QFETCH(int, calls);
    PayoutProvider provider({503, failures});
    HttpPayoutGateway gateway(httpOptions(provider.url(), 4));
    PayoutDispatchOptions options;
    options.backoff = 1ms;
    PayoutDispatcher dispatcher(gateway, options);
    dispatcher.submit(7, request(5, 1));
    const QHash<quint64, PayoutOutcome> outcomes = drainOutcomes(dispatcher);

    QCOMPARE(outcomes.size(), 1);
    QCOMPARE(outcomes.value(7).result.status, expected);
    QCOMPARE(outcomes.value(7).calls, calls);
    QCOMPARE(provider.seen().size(), calls);
    for (const test::SeenRequest &seen : provider.seen())
        QCOMPARE(seen.idempotencyKey, QByteArray("cp:5:1"));
    QCOMPARE(dispatcher.counts().providerErrors, qint64(failures));
}

void TestPayoutConcurrency::keepAliveRunsWhilePayoutsAreInFlight()
{
    // A provider slower than the heartbeat's TTL: the keep-alive (the heartbeat) runs while the
    // calls are out, and the answers come once it has run a few times.
    PayoutProvider provider;
    provider.holdAfter(0);
    HttpPayoutGateway gateway(httpOptions(provider.url(), 8));
    QList<int> inFlightAtBeats;
    PayoutDispatcher *self = nullptr;
    PayoutDispatchOptions options;
    options.keepAlive = [&] {
        inFlightAtBeats << self->inFlight();
        if (inFlightAtBeats.size() == 3)
            provider.release();
    };
    PayoutDispatcher dispatcher(gateway, options);
    self = &dispatcher;
    for (qint64 seq = 1; seq <= 8; ++seq)
        dispatcher.submit(quint64(seq), request(6, seq));
    const QHash<quint64, PayoutOutcome> outcomes = drainOutcomes(dispatcher);

    QCOMPARE(outcomes.size(), 8);
    QVERIFY(inFlightAtBeats.size() >= 3);
    QCOMPARE(inFlightAtBeats.at(2), 8);  // every call was out when the third beat ran
}

void TestPayoutConcurrency::dispatcherGoneDropsItsAnswers()
{
    // A drain that failed is thrown away with calls in flight: their answers are dropped, and the
    // gateway serves the next dispatcher.
    PayoutProvider provider;
    provider.holdAfter(0);
    HttpPayoutGateway http(httpOptions(provider.url(), 8));
    SimulatedPayoutGateway simulated(*m_redis, m_prefix, {0.0, 20}, 3);
    for (PayoutGateway *gateway : {static_cast<PayoutGateway *>(&http), static_cast<PayoutGateway *>(&simulated)}) {
        auto dispatcher = std::make_unique<PayoutDispatcher>(*gateway, PayoutDispatchOptions{});
        for (qint64 seq = 1; seq <= 8; ++seq)
            dispatcher->submit(quint64(seq), request(7, seq));
        dispatcher->wait({}, QDeadlineTimer(0));
        QCOMPARE(dispatcher->inFlight(), 8);
        dispatcher.reset();
    }
    provider.release();

    // The next dispatchers' calls are answered after the dropped ones (the released answers went
    // out first; the simulated provider serves calls in the order they fall due): nothing crashed.
    PayoutDispatcher next(http, {});
    next.submit(1, request(7, 1));
    QCOMPARE(drainOutcomes(next).value(1).result.status, Status::Paid);
    QCOMPARE(provider.payments().value("cp:7:1").requests, 2);  // the same key again: the same payment
    PayoutDispatcher nextSimulated(simulated, {});
    nextSimulated.submit(1, request(7, 9));
    QCOMPARE(drainOutcomes(nextSimulated).value(1).result.status, Status::Paid);
    QCOMPARE(simulated.ledgerSize(), 9);  // the 8 dropped calls were served all the same
}

void TestPayoutConcurrency::threadQuitEndsTheWait()
{
    // A worker thread told to quit (the console's sandbox stopping) while answers are held back:
    // its wait ends with PayoutWaitInterrupted instead of spinning, and the thread finishes.
    PayoutProvider provider;
    provider.holdAfter(0);
    QThread thread;
    QObject worker;
    worker.moveToThread(&thread);
    std::atomic_bool interrupted = false;
    connect(&thread, &QThread::started, &worker, [&provider, &interrupted] {
        HttpPayoutGateway gateway(httpOptions(provider.url(), 4));
        PayoutDispatcher dispatcher(gateway, {});
        for (qint64 seq = 1; seq <= 4; ++seq)
            dispatcher.submit(quint64(seq), request(9, seq));
        try {
            dispatcher.wait({}, QDeadlineTimer(QDeadlineTimer::Forever));
        } catch (const PayoutWaitInterrupted &) {
            interrupted = true;
        }
    });
    thread.start();
    QTRY_COMPARE_WITH_TIMEOUT(provider.held(), 4, 10000);
    thread.quit();
    QVERIFY(thread.wait(QDeadlineTimer(10s)));
    QVERIFY(interrupted);
    worker.moveToThread(QThread::currentThread());
    provider.release();
}

void TestPayoutConcurrency::rateBucketIsSharedByWorkers()
{
    // Two workers' limits on one bucket, 10 calls a second, 5 at most at once; the clock passed in.
    const PayoutRateLimit first(m_prefix, 10, 5);
    const PayoutRateLimit second(m_prefix, 10, 5);
    constexpr qint64 T = 1'000'000;
    PayoutRateLimit::Grant grant = first.take(*m_redis, 3, T);
    QCOMPARE(grant.granted, 3);
    grant = second.take(*m_redis, 5, T);
    QCOMPARE(grant.granted, 2);  // what the first one left
    QCOMPARE(grant.wait.count(), 100);
    grant = first.take(*m_redis, 1, T + 50);
    QCOMPARE(grant.granted, 0);
    QCOMPARE(grant.wait.count(), 50);
    grant = first.take(*m_redis, 4, T + 250);  // 2.5 tokens came back
    QCOMPARE(grant.granted, 2);
    QCOMPARE(grant.wait.count(), 50);
    grant = second.take(*m_redis, 9, T + 10'000);  // a quiet spell refills up to the capacity only
    QCOMPARE(grant.granted, 5);
    QCOMPARE(first.capacity(), 5);
    QCOMPARE(PayoutRateLimit(m_prefix, 200).capacity(), 20);  // a tenth of a second by default
    QCOMPARE(PayoutRateLimit(m_prefix, 3).capacity(), 1);
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, PayoutRateLimit(m_prefix, 0));
}

void TestPayoutConcurrency::dispatcherWaitsForTokens()
{
    // An empty bucket that will not refill before long: nothing is sent; tokens put in it let the
    // payouts go, one call per token.
    const PayoutRateLimit rate(m_prefix, 10, 10);
    const qint64 serverNowMs = m_redis->command({"TIME"}).elements.at(0).toInteger() * 1000;
    m_redis->command({"HSET", rate.key(), "tokens", "0", "at_ms", QByteArray::number(serverNowMs + 3'600'000)});
    SimulatedPayoutGateway gateway(*m_redis, m_prefix, {}, 4);
    PayoutDispatchOptions options;
    options.rate = &rate;
    options.redis = m_redis.get();
    PayoutDispatcher dispatcher(gateway, options);
    for (qint64 seq = 1; seq <= 6; ++seq)
        dispatcher.submit(quint64(seq), request(8, seq));
    dispatcher.wait({}, QDeadlineTimer(300ms));
    QCOMPARE(dispatcher.counts().calls, 0);
    QCOMPARE(dispatcher.backlog(), 6);

    m_redis->command({"HSET", rate.key(), "tokens", "6"});
    QCOMPARE(drainOutcomes(dispatcher).size(), 6);
    QCOMPARE(dispatcher.counts().calls, 6);
    QCOMPARE(m_redis->command({"HGET", rate.key(), "tokens"}).toBytes().toDouble(), 0.0);
}

void TestPayoutConcurrency::rateFromEnvironment_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("expected");  // -1: no limit, -2: rejected
    QTest::newRow("unset: no limit") << QString() << -1.0;
    QTest::newRow("200 calls a second") << QStringLiteral("200") << 200.0;
    QTest::newRow("half a call a second") << QStringLiteral(" 0.5 ") << 0.5;
    QTest::newRow("zero rejected") << QStringLiteral("0") << -2.0;
    QTest::newRow("negative rejected") << QStringLiteral("-5") << -2.0;
    QTest::newRow("words rejected") << QStringLiteral("fast") << -2.0;
    QTest::newRow("comma rejected") << QStringLiteral("0,5") << -2.0;
    QTest::newRow("inf rejected") << QStringLiteral("inf") << -2.0;
}

void TestPayoutConcurrency::rateFromEnvironment()
{
    QFETCH(QString, text);
    QFETCH(double, expected);
    QProcessEnvironment environment;
    if (!text.isNull())
        environment.insert(QStringLiteral("LANTERN_PAYOUT_RATE"), text);
    if (expected == -2.0) {
        QVERIFY_THROWS_EXCEPTION(InvalidInputError, PayoutRateLimit::rateFromEnvironment(environment));
        return;
    }
    const std::optional<double> rate = PayoutRateLimit::rateFromEnvironment(environment);
    QCOMPARE(rate.has_value(), expected > 0);
    if (rate)
        QCOMPARE(*rate, expected);
}

LANTERN_TEST_SUITE(TestPayoutConcurrency);

} // namespace tst_payoutconcurrency

#include "tst_payoutconcurrency.moc"
