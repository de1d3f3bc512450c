#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QProcessEnvironment>
#include <QString>

#include <chrono>
#include <functional>
#include <memory>

class QObject;

namespace lantern {

class RedisClient;

/** One payment to one user. The idempotency key is the caller's business key for the payment
    ("cp:<campaign>:<seq>" for an envelope): the same key always means the same payment. */
struct PayoutRequest {
    QString idempotencyKey;
    qint64 campaignId = 0;
    qint64 seq = 0;
    qint64 uid = 0;
    qint64 amountCents = 0;
};

struct PayoutResult {
    enum class Status {
        Paid,              // the provider confirmed the payment (now or on an earlier call)
        RetryableFailure,  // unknown or transient: the payment may or may not have happened; retry the same key
        PermanentFailure,  // the provider refused the request; retrying the same request will not help
    };
    Status status = Status::RetryableFailure;
    QString providerRef;  // set when Paid
    QString error;        // plain words when not Paid

    static PayoutResult failure(Status status, const QString &error) { return {status, {}, error}; }
};

/** A third-party payout provider. pay() blocks (workers call it from their own threads) and is
    safe to call again with the same idempotency key: the provider pays a key at most once.
    Provider trouble (unreachable, slow, refusing) comes back as a result, never as an exception.
    start() is the concurrent form: one attempt, answered later on the calling thread's event loop,
    so one thread keeps many calls in flight (PayoutDispatcher). */
class PayoutGateway {
    Q_DECLARE_TR_FUNCTIONS(lantern::PayoutGateway)

public:
    using Done = std::function<void(const PayoutResult &)>;

    virtual ~PayoutGateway() = default;
    virtual PayoutResult pay(const PayoutRequest &request) = 0;

    /** Starts one attempt at `request` and returns at once. `done` runs exactly once on this
        thread's event loop (never inside start()) unless `context` is destroyed first, which
        also gives up the call. Every start() of one gateway comes from one thread. The default
        runs pay() from the event loop: correct, but one call at a time. */
    virtual void start(const PayoutRequest &request, QObject *context, Done done);
    /** How many calls start() can usefully have in flight at once (0: no limit of its own). */
    virtual int concurrency() const { return 0; }

    /** Why a request cannot be sent to any provider (empty key, amount not positive), or empty. */
    static QString validate(const PayoutRequest &request);
};

/** Payout calls one worker has out at once unless told otherwise (lanternd work --in-flight): at a
    provider's 100 ms with a fifth of the calls failing, 128 calls pay up to 1024 envelopes a
    second, 64 at most 512 (docs/decisions.md, "Payouts in flight: 128 by default"). */
inline constexpr int DefaultPayoutsInFlight = 128;

/** LANTERN_PAYOUT_URL set -> HTTP provider with LANTERN_PAYOUT_CONNECTIONS keep-alive connections
    (default `connections`, the worker's payouts in flight) and LANTERN_PAYOUT_TIMEOUT_MS per
    attempt (default HttpPayoutOptions::timeout); otherwise the simulated one with
    knobsFromEnvironment(), on `redis` under `prefix`. Throws InvalidInputError for a malformed URL
    or knob. */
std::unique_ptr<PayoutGateway> makePayoutGateway(RedisClient &redis, const QByteArray &prefix,
                                                 const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment(),
                                                 int connections = DefaultPayoutsInFlight);
/** LANTERN_PAYOUT_CONNECTIONS (1..1024), or `fallback` when unset or empty; throws InvalidInputError. */
int payoutConnections(const QProcessEnvironment &environment, int fallback);

/** The longest LANTERN_PAYOUT_TIMEOUT_MS: ten minutes. */
inline constexpr int MaxPayoutTimeoutMs = 600'000;
/** LANTERN_PAYOUT_TIMEOUT_MS (1..MaxPayoutTimeoutMs), or `fallback` when unset or empty; throws InvalidInputError. */
std::chrono::milliseconds payoutTimeout(const QProcessEnvironment &environment, std::chrono::milliseconds fallback);

} // namespace lantern
