#pragma once

#include <QtGlobal>

namespace lantern {
class KeySchema;
class RedisClient;
}

namespace lantern::bench {

/** A campaign as Redis has it after a phase, read back to check exact counts and sums. */
struct CampaignState {
    qint64 grabbedCount = 0;  // meta hash
    qint64 grabbedCents = 0;  // meta hash
    qint64 draws = 0;         // HLEN draws: users holding an envelope
    qint64 envelopes = 0;     // distinct envelopes among the draws
    qint64 drawnCents = 0;    // sum of the draws' amounts
    qint64 pool = 0;          // envelopes left
    qint64 tasks = 0;         // payout tasks queued
};

/** HMGET of the meta hash, HLEN and HSCAN of the draws, LLEN of the pool and the tasks. */
CampaignState readCampaignState(RedisClient &redis, const KeySchema &keys, qint64 campaignId);

} // namespace lantern::bench
