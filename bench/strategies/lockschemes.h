#pragma once

#include "preparedstatement.h"
#include "scheme.h"

#include <memory>
#include <optional>
#include <random>

namespace lantern {
class RedisClient;
class SqlConnection;
}

namespace lantern::bench {

/** Schemes 1-3: no envelopes exist before a grab; the campaign row keeps the remaining count and
    cents, and each grab draws its amount from them (double mean: 1 cent to twice the remaining
    mean, leaving every later envelope its cent; the last takes the rest), then decrements the row
    and inserts the grab row (primary key campaign + uid), in one transaction. */
class ComputedSplitClient : public SchemeClient {
protected:
    ComputedSplitClient(const DbUrl &db, qint64 campaignId, GrabTally &tally);
    ~ComputedSplitClient() override;

    /** The campaign row as `statement` (a plain read or FOR UPDATE) returns it. */
    struct CampaignRow {
        qint64 remainingCount = 0;
        qint64 remainingCents = 0;
        qint64 minCents = 1;
        qint64 version = 0;
    };
    CampaignRow readRow(PreparedStatement &statement);
    /** The scheme's own check that the user has no envelope yet (a plain read). */
    bool userHolds(qint64 uid);
    qint64 draw(const CampaignRow &row);
    /** INSERT of the grab row in the caller's transaction; false (counted) when the user's key
        was taken meanwhile: the unique key stopped what the scheme's own check let through. */
    bool insertGrab(qint64 uid, qint64 amountCents);
    /** The answers a locking scheme gives before it locks (plain reads): the user's envelope,
        then sold out. */
    std::optional<GrabAnswer> answerBeforeLocking(qint64 uid);
    /** In the caller's transaction, `row` read under its lock: sold out, or the amount drawn, the
        row decremented and the grab inserted; commits, or rolls back when the user's key was
        taken meanwhile (already). */
    GrabAnswer grantUnderLock(const CampaignRow &row, qint64 uid);

    std::unique_ptr<SqlConnection> m_sql;
    qint64 m_campaignId;
    GrabTally &m_tally;
    std::mt19937_64 m_rng;
    PreparedStatement m_userHolds;
    PreparedStatement m_read;
    PreparedStatement m_insert;
    PreparedStatement m_setRemaining;
};

/** 1: a Redis lock per campaign (SET NX PX with a token, compare-and-delete to release), then the
    grab in SQL: every grab of the campaign serialized. */
class DistributedLockClient final : public ComputedSplitClient {
public:
    DistributedLockClient(RedisClient &redis, const DbUrl &db, QByteArray lockKey, qint64 campaignId, const SchemeOptions &options,
                          GrabTally &tally);
    GrabAnswer grab(qint64 uid) override;

private:
    bool acquire(const QByteArray &token);
    void release(const QByteArray &token);

    RedisClient &m_redis;
    QByteArray m_lockKey;
    SchemeOptions m_options;
};

/** 2: read the campaign row with its version, draw, update where the version still matches;
    retry a changed version up to the bound. */
class OptimisticLockClient final : public ComputedSplitClient {
public:
    OptimisticLockClient(const DbUrl &db, qint64 campaignId, const SchemeOptions &options, GrabTally &tally);
    GrabAnswer grab(qint64 uid) override;

private:
    SchemeOptions m_options;
    PreparedStatement m_setIfVersion;
};

/** 3: SELECT ... FOR UPDATE on the campaign row inside the transaction. */
class PessimisticLockClient final : public ComputedSplitClient {
public:
    PessimisticLockClient(const DbUrl &db, qint64 campaignId, GrabTally &tally);
    GrabAnswer grab(qint64 uid) override;

private:
    PreparedStatement m_readForUpdate;
};

} // namespace lantern::bench
