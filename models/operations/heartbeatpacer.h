#pragma once

#include "operations/workerheartbeat.h"

#include <functional>

namespace lantern {

class RedisClient;

/** Renews a worker's heartbeat, with its payout figures, when a third of its TTL has passed.
    A failed beat throws and is not retried before the next third either, so a caller polling it
    (every step, every 250 ms while payouts are in flight, while it waits out an outage) never
    hammers a dead Redis. */
class HeartbeatPacer final {
public:
    HeartbeatPacer(WorkerHeartbeat &heartbeat, RedisClient &redis, std::function<WorkerPayoutFigures()> figures);

    /** Beats when a third of the TTL has passed since the last beat (or there was none). */
    void operator()();

private:
    WorkerHeartbeat &m_heartbeat;
    RedisClient &m_redis;
    std::function<WorkerPayoutFigures()> m_figures;
    qint64 m_lastBeatMs = 0;
};

} // namespace lantern
