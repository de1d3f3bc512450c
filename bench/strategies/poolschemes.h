#pragma once

#include "preparedstatement.h"
#include "scheme.h"

#include <memory>
#include <random>

namespace lantern {
class GrabService;
class KeySchema;
class RedisClient;
class SqlConnection;
}

namespace lantern::bench {

/** 4: the envelopes pre-split and written as rows at creation (strategy_envelope, uid NULL while
    free, unique per campaign and uid); a grab picks the first free row at or after a random seq
    and takes it where it is still free; a row taken meanwhile is retried, up to the bound. */
class PreallocatedRowsClient final : public SchemeClient {
public:
    PreallocatedRowsClient(const DbUrl &db, qint64 campaignId, const SchemeOptions &options, GrabTally &tally);
    ~PreallocatedRowsClient() override;
    GrabAnswer grab(qint64 uid) override;

private:
    /** The first free seq at or after `from`, 0 when none. */
    qint64 firstFreeFrom(qint64 from);

    std::unique_ptr<SqlConnection> m_sql;
    qint64 m_campaignId;
    SchemeOptions m_options;
    GrabTally &m_tally;
    std::mt19937_64 m_rng;
    qint64 m_count = 0;
    PreparedStatement m_userHolds;
    PreparedStatement m_firstFree;
    PreparedStatement m_take;
};

/** 5: the pre-split envelopes ("seq:amount") in a Redis list; a grab LPOPs one and INSERTs its
    grab row at once. Between the two, the envelope exists nowhere but in this process. */
class RedisQueueClient final : public SchemeClient {
public:
    RedisQueueClient(RedisClient &redis, const DbUrl &db, QByteArray poolKey, qint64 campaignId, GrabTally &tally);
    ~RedisQueueClient() override;
    GrabAnswer grab(qint64 uid) override;

private:
    RedisClient &m_redis;
    std::unique_ptr<SqlConnection> m_sql;
    QByteArray m_poolKey;
    qint64 m_campaignId;
    GrabTally &m_tally;
    PreparedStatement m_userHolds;
    PreparedStatement m_insert;
};

/** 6: Lantern's GrabService (grab.lua); persistence is the workers' (lanternd work). */
class LanternPathClient final : public SchemeClient {
public:
    LanternPathClient(RedisClient &redis, const KeySchema &keys, qint64 campaignId);
    ~LanternPathClient() override;
    GrabAnswer grab(qint64 uid) override;

private:
    std::unique_ptr<GrabService> m_service;
    qint64 m_campaignId;
};

} // namespace lantern::bench
