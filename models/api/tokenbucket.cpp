#include "api/tokenbucket.h"

#include <algorithm>
#include <cmath>

namespace lantern {

TokenBucket::TokenBucket(RateLimit limit) : m_limit(limit), m_tokens(limit.burst)
{
}

bool TokenBucket::take(qint64 nowNs, int *retryAfterS)
{
    if (m_limit.unlimited())
        return true;
    const std::lock_guard lock(m_mutex);
    if (m_lastNs >= 0 && nowNs > m_lastNs)
        m_tokens = std::min<double>(m_limit.burst, m_tokens + double(nowNs - m_lastNs) * m_limit.perSecond / 1e9);
    m_lastNs = std::max(m_lastNs, nowNs);
    if (m_tokens >= 1.0) {
        m_tokens -= 1.0;
        return true;
    }
    if (retryAfterS)
        *retryAfterS = std::max(1, int(std::ceil((1.0 - m_tokens) / m_limit.perSecond)));
    return false;
}

} // namespace lantern
