#pragma once

#include <QByteArrayList>

namespace lantern {

class KeySchema;
class RedisClient;

/** Keeps the set of launched pools (KeySchema::campaignSet()) to the pools that can still hold
    work (issue 26). Everything that goes over every launched pool — the workers' claims, the
    Queues and Recovery views, `lanternd queues`, `verify`, recovery — reads that set, so at a
    company with 10,000 past campaigns and 1,000 workers it cost workers x campaigns commands per
    read. A pool is retired (moved to KeySchema::retiredCampaignSet()) once its campaign is closed
    and it holds nothing: no task queued, no dead letter, no envelope lent, and no known worker's
    backup list holds one of its tasks. Nothing can put work back into such a pool (a closed
    campaign takes no grab; dead-letter retries and recovery only move what a list holds), and a
    campaign repair adds its pools to the set again. Workers run it as they pass by, one worker at
    a time (a lock with a TTL), a bounded number of pools per run. */
class PoolRetirement final {
public:
    /** Pools looked at in depth (every known worker's backup list) per run. */
    static constexpr int DefaultLimit = 100;
    /** How long one worker holds the retirement to itself, and how often a worker tries. */
    static constexpr int LockSeconds = 60;

    PoolRetirement(RedisClient &redis, const KeySchema &keys) : m_redis(redis), m_keys(keys) {}

    /** Retires up to `limit` drained pools of closed campaigns; returns their names. A few round
        trips; with `lock`, does nothing while another worker holds it. */
    QByteArrayList run(int limit = DefaultLimit, bool lock = true);

private:
    RedisClient &m_redis;
    const KeySchema &m_keys;
};

} // namespace lantern
