#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QProcessEnvironment>

#include <chrono>
#include <optional>

namespace lantern {

class RedisClient;

/** The provider-wide rate of payout calls (LANTERN_PAYOUT_RATE), shared by every worker through a
    token bucket in Redis (payout_rate.lua, key <prefix>payout:rate): a worker takes one token per
    call it sends, several at once in one round trip, and waits when the bucket is empty. */
class PayoutRateLimit final {
    Q_DECLARE_TR_FUNCTIONS(lantern::PayoutRateLimit)

public:
    struct Grant {
        int granted = 0;                  // tokens taken: calls that may go now
        std::chrono::milliseconds wait{0};  // when fewer than wanted: until the next token
    };

    /** `perSecond` calls a second for all workers together; at most `capacity` at once after a
        quiet spell (0: a tenth of a second's worth, at least 1). Throws InvalidInputError for a
        rate outside (0, 1e6] or a negative capacity. */
    PayoutRateLimit(QByteArray prefix, double perSecond, int capacity = 0);

    /** Takes up to `wanted` tokens (one round trip); `nowMs` replaces the server's clock (tests). */
    Grant take(RedisClient &redis, int wanted, std::optional<qint64> nowMs = std::nullopt) const;

    double perSecond() const { return m_perSecond; }
    int capacity() const { return m_capacity; }
    QByteArray key() const { return m_prefix + "payout:rate"; }

    /** LANTERN_PAYOUT_RATE: calls per second (a number, '.' as the decimal point), or nullopt
        when unset or empty (no limit). Throws InvalidInputError naming the variable otherwise. */
    static std::optional<double> rateFromEnvironment(const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment());

private:
    QByteArray m_prefix;
    double m_perSecond;
    int m_capacity;
};

} // namespace lantern
