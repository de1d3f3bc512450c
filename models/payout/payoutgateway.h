#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QProcessEnvironment>
#include <QString>

#include <memory>

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
    Provider trouble (unreachable, slow, refusing) comes back as a result, never as an exception. */
class PayoutGateway {
    Q_DECLARE_TR_FUNCTIONS(lantern::PayoutGateway)

public:
    virtual ~PayoutGateway() = default;
    virtual PayoutResult pay(const PayoutRequest &request) = 0;

    /** Why a request cannot be sent to any provider (empty key, amount not positive), or empty. */
    static QString validate(const PayoutRequest &request);
};

/** LANTERN_PAYOUT_URL set -> HTTP provider; otherwise the simulated one with knobsFromEnvironment(),
    on `redis` under `prefix`. Throws InvalidInputError for a malformed URL or knob. */
std::unique_ptr<PayoutGateway> makePayoutGateway(RedisClient &redis, const QByteArray &prefix,
                                                 const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment());

} // namespace lantern
