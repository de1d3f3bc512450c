#pragma once

#include "payout/payoutgateway.h"
#include "redis/redisvalue.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QProcessEnvironment>

#include <QPointer>

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <random>

class QTimer;

namespace lantern {

class RedisClient;

/** How the simulated provider misbehaves: LANTERN_PAYOUT_FAIL_RATE (0..1), LANTERN_PAYOUT_DELAY_MS. */
struct SimulationKnobs {
    double failRate = 0.0;  // probability that one pay() call fails
    int delayMs = 0;        // added latency of every pay() call
};

/** The default provider: keeps its own ledger in Redis (hash <prefix>payoutsim:ledger, key ->
    "amount_cents|ref", written with HSETNX so a key is paid once; plus <prefix>payoutsim:calls, hash
    key -> times pay() was called), sleeps delayMs, and fails with probability failRate — half of the
    failures AFTER recording the payment (the response was "lost": the realistic case idempotency
    keys exist for), half before. Like the RedisClient it borrows, one instance serves one thread;
    any number of instances (one per worker) may share the ledger. start() behaves like a remote
    provider serving many calls at once: each call is answered delayMs after it started, and the
    calls due at the same moment share one Redis pipeline. */
class SimulatedPayoutGateway final : public PayoutGateway {
    Q_DECLARE_TR_FUNCTIONS(lantern::SimulatedPayoutGateway)

public:
    static constexpr int MaxDelayMs = 60000;

    /** Throws InvalidInputError for knobs outside their ranges. `seed` fixes the failure pattern. */
    SimulatedPayoutGateway(RedisClient &redis, QByteArray prefix, SimulationKnobs knobs, quint64 seed);
    ~SimulatedPayoutGateway() override;
    Q_DISABLE_COPY_MOVE(SimulatedPayoutGateway)

    PayoutResult pay(const PayoutRequest &request) override;
    void start(const PayoutRequest &request, QObject *context, Done done) override;

    /** What the provider's ledger says about a key (for recovery and verify): the amount paid, or nullopt. */
    std::optional<qint64> paidAmount(const QString &idempotencyKey);
    /** paidAmount() of each key, in their order, in one HMGET. */
    QList<std::optional<qint64>> paidAmounts(const QStringList &idempotencyKeys);
    /** Payments in the ledger (HLEN) and their sum in cents (HSCAN, never KEYS or HGETALL). */
    qint64 ledgerSize();
    qint64 ledgerTotalCents();

    QByteArray ledgerKey() const { return m_prefix + "payoutsim:ledger"; }
    QByteArray callsKey() const { return m_prefix + "payoutsim:calls"; }

    /** Reads LANTERN_PAYOUT_FAIL_RATE and LANTERN_PAYOUT_DELAY_MS (unset or empty: the default);
        throws InvalidInputError for malformed values, naming the variable. */
    static SimulationKnobs knobsFromEnvironment(const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment());

private:
    using Clock = std::chrono::steady_clock;
    /** A call started and not answered yet. */
    struct Call {
        Clock::time_point due;
        PayoutRequest request;
        QPointer<QObject> context;
        Done done;
    };
    /** How one call ends, drawn when it is served: fails before paying, pays and loses the
        answer, or pays and answers. `ref` is the reference it offers if it pays. */
    struct Fate {
        bool failBeforePaying = false;
        bool loseAnswer = false;
        QByteArray ref;
    };

    /** Uniform on [0, 1) from the top 53 bits of one draw: the same on every platform. */
    double nextUnit();
    Fate drawFate();
    /** The result of a call that reached the ledger: the HGET reply of its key. */
    PayoutResult settle(const PayoutRequest &request, const Fate &fate, const RedisValue &paid) const;
    /** Serves every call that is due, in one pipeline, then waits for the next. */
    void serveDue();
    void armTimer();

    RedisClient &m_redis;
    QByteArray m_prefix;
    SimulationKnobs m_knobs;
    std::mt19937_64 m_random;
    std::deque<Call> m_calls;        // started by start(), in the order they fall due
    std::unique_ptr<QTimer> m_timer;  // made by the first start(), on its thread
};

} // namespace lantern
