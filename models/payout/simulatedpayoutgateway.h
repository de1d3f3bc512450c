#pragma once

#include "payout/payoutgateway.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QProcessEnvironment>

#include <optional>
#include <random>

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
    any number of instances (one per worker) may share the ledger. */
class SimulatedPayoutGateway final : public PayoutGateway {
    Q_DECLARE_TR_FUNCTIONS(lantern::SimulatedPayoutGateway)

public:
    static constexpr int MaxDelayMs = 60000;

    /** Throws InvalidInputError for knobs outside their ranges. `seed` fixes the failure pattern. */
    SimulatedPayoutGateway(RedisClient &redis, QByteArray prefix, SimulationKnobs knobs, quint64 seed);

    PayoutResult pay(const PayoutRequest &request) override;

    /** What the provider's ledger says about a key (for recovery and verify): the amount paid, or nullopt. */
    std::optional<qint64> paidAmount(const QString &idempotencyKey);
    /** Payments in the ledger (HLEN) and their sum in cents (HSCAN, never KEYS or HGETALL). */
    qint64 ledgerSize();
    qint64 ledgerTotalCents();

    QByteArray ledgerKey() const { return m_prefix + "payoutsim:ledger"; }
    QByteArray callsKey() const { return m_prefix + "payoutsim:calls"; }

    /** Reads LANTERN_PAYOUT_FAIL_RATE and LANTERN_PAYOUT_DELAY_MS (unset or empty: the default);
        throws InvalidInputError for malformed values, naming the variable. */
    static SimulationKnobs knobsFromEnvironment(const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment());

private:
    /** Uniform on [0, 1) from the top 53 bits of one draw: the same on every platform. */
    double nextUnit();

    RedisClient &m_redis;
    QByteArray m_prefix;
    SimulationKnobs m_knobs;
    std::mt19937_64 m_random;
};

} // namespace lantern
