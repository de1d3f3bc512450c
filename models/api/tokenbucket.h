#pragma once

#include "api/apilimits.h"

#include <mutex>

namespace lantern {

/** A token bucket shared by every server thread (the seeds' backend limiter): `perSecond` tokens
    refill each second up to `burst`; a request takes one or is told how long to wait. */
class TokenBucket final {
public:
    explicit TokenBucket(RateLimit limit = {});

    /** Takes a token at `nowNs` (a monotonic clock). When none is left returns false and sets
        `retryAfterS` to the whole seconds until one will be (at least 1). */
    bool take(qint64 nowNs, int *retryAfterS);
    RateLimit limit() const { return m_limit; }

private:
    RateLimit m_limit;
    std::mutex m_mutex;
    double m_tokens;
    qint64 m_lastNs = -1;
};

} // namespace lantern
