#pragma once

namespace lantern {

/** A token bucket's shape for one API endpoint: `perSecond` tokens refill every second, up to
    `burst`. perSecond 0 means unlimited. */
struct RateLimit {
    int perSecond = 0;
    int burst = 0;
    bool unlimited() const { return perSecond == 0; }
};

/** The HTTP API's limits (DESIGN §5 settings rate-checkin, rate-calendar, rate-grab, rate-campaign:
    "R" or "R/B" requests per second and burst; 0 = unlimited, the default). */
struct ApiLimits {
    RateLimit checkin;
    RateLimit calendar;
    RateLimit grab;
    RateLimit campaign;
};

} // namespace lantern
