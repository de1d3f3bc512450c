#pragma once

#include "campaignstate.h"
#include "livereshard.h"
#include "phasefigures.h"

#include "redis/redisurl.h"

#include <functional>
#include <vector>

namespace lantern {
class KeySchema;
}

namespace lantern::bench {

/** A grab storm through the library (GrabService, one blocking RedisClient per client thread)
    while the campaign's slot moves to another master (LiveReshard), started once a third of the
    grabs are answered. Every client-visible error is counted, not thrown, and every grab's
    redirects are read from its client's RedisClient::routingStats(). */
struct ReshardStormFigures {
    PhaseFigures load;
    qint64 grabs = 0;
    qint64 tookRedirect = 0;  // grabs whose client followed at least one MOVED/ASK or waited out a TRYAGAIN
    qint64 moved = 0;
    qint64 asked = 0;
    qint64 retried = 0;
    qint64 errors = 0;        // grabs that threw (client-visible)
    qint64 ok = 0;            // "ok" answers
    qint64 okCents = 0;       // their amounts
    qint64 answeredWhenMoved = 0;  // grabs answered when the last SETSLOT NODE was done
    LiveReshard::Move move;
};

ReshardStormFigures runGrabsDuringReshard(const RedisUrl &cluster, int clients, const std::vector<qint64> &uids, const KeySchema &keys,
                                          qint64 campaignId, int slot);

} // namespace lantern::bench
