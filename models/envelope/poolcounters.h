#pragma once

#include <QByteArray>
#include <QByteArrayList>

namespace lantern {

class KeySchema;
struct RedisValue;

/** What a pool's meta hash in Redis says of its grabs: the one place that names its counter
    fields for reading (the launch, grab.lua and the repair write them). A pool the hash does not
    hold (never launched, retired, or lost by Redis) has an empty status and zero counters. */
struct PoolCounters {
    QByteArray status;         // "live", "paused", "closed"; empty: not in Redis
    qint64 grabbedCount = 0;   // envelopes handed out of this pool
    qint64 grabbedCents = 0;   // their sum
    qint64 count = 0;          // envelopes dealt to the pool at launch
    qint64 borrowedCount = 0;  // envelopes this pool lent out to others (sub-pools)

    bool inRedis() const { return !status.isEmpty(); }

    /** The HMGET that reads `pool`'s counters, for a pipeline of the caller's. */
    static QByteArrayList readCommand(const KeySchema &keys, const QByteArray &pool);
    /** Its reply; throws RedisReplyError (ForbiddenError for an ACL refusal) for an error reply or
        one of another shape. */
    static PoolCounters fromReply(const RedisValue &reply);
};

} // namespace lantern
