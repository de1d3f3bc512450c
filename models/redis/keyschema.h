#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QDate>
#include <QString>

namespace lantern {

/** Every Redis key Lantern uses, in one place (DESIGN §3).
    Check-in keys carry the hash tag {ck:S} with S = uid mod shards, so one user's month words,
    the shard's block list and its log queue share a cluster slot and one script may touch them
    all. The check-in layout (docs/decisions.md, "Check-in bits in blocks"): a uid below
    denseUids() is dense and owns the 32 bits at slot (uid / shards) mod 65,533 of its shard's
    month block number (uid / shards) / 65,533; any other uid is sparse and keeps its month word
    in a field of one of its shard's sparse hashes for the month. */
class KeySchema final {
    Q_DECLARE_TR_FUNCTIONS(lantern::KeySchema)

public:
    static constexpr int DefaultShards = 16;
    /** uids 0 .. 2^27-1 are dense by default: at most ~2,050 blocks of 256 KiB a month (512 MiB),
        whatever the uids, so a stray uid costs one block at worst (docs/decisions.md). */
    static constexpr qint64 DefaultDenseUids = qint64(1) << 27;

    /** Throws InvalidInputError for a prefix with braces or spaces, shards outside 1..16384, or
        denseUids outside 0..2^40. */
    explicit KeySchema(const QString &prefix = QStringLiteral("lt:"), int shards = DefaultShards, qint64 denseUids = DefaultDenseUids);

    int shards() const { return m_shards; }
    int shardOf(qint64 uid) const { return static_cast<int>(uid % m_shards); }
    const QByteArray &prefix() const { return m_prefix; }
    qint64 denseUids() const { return m_denseUids; }

    // The check-in layout: everything check-in keeps in Redis besides its log queues.
    QByteArray monthBlock(int shard, qint64 block, QDate month) const;   // string, 32 bits per user: bit 31 - (d-1) of its word = day d signed
    QByteArray makeupMarks(int shard, qint64 block, int group, QDate month) const;  // hash slot -> make-up word (same bit order), users of the group with make-ups
    QByteArray monthBlocks(int shard, QDate month) const;                // set of the block numbers the shard wrote that month
    QByteArray sparseMonth(int shard, int bucket, QDate month) const;    // hash uid -> sign word, "m<uid>" -> make-up word, a bucket of the shard's sparse users

    // The layout before issue 11, read (and removed) by `lanternd migrate-redis` only.
    QByteArray signBits(qint64 uid, QDate month) const;      // legacy: bit d-1 = day d signed (normal or make-up)
    QByteArray makeupBits(qint64 uid, QDate month) const;    // legacy: bit d-1 = day d was a make-up
    QByteArray daySet(int shard, QDate day) const;           // legacy: uids of the shard that signed that day
    QByteArray checkinTagPattern() const;                    // legacy keys' SCAN pattern prefix: "<prefix>{ck:*}:"
    QByteArray checkinQueue(int shard) const;                // log entries awaiting persistence
    QByteArray checkinBackup(int shard, const QString &workerId) const;  // a worker's in-flight entries
    QByteArray checkinDeadLetter(int shard) const;           // entries that cannot be persisted

    // Campaign keys carry the hash tag {cp:POOL}: one pool's keys share a slot. A campaign is one
    // pool named by its id ("42"), or K sub-pools (campaign create --pools K): "42" and K-1 more
    // named "42.N" with N chosen so the pools land on different masters (CampaignPools).
    QByteArray campaignMeta(const QByteArray &pool) const;      // hash: status, max_attempts, count, grabbed_*, loaded_seq, pools
    QByteArray campaignPool(const QByteArray &pool) const;      // list of "seq:amount", next on the left
    QByteArray campaignDraws(const QByteArray &pool) const;     // hash uid -> "seq:amount", for the users whose home pool it is
    QByteArray campaignAttempts(const QByteArray &pool) const;  // hash uid -> grab attempts
    QByteArray campaignTasks(const QByteArray &pool) const;     // payout tasks awaiting a worker
    QByteArray campaignBackup(const QByteArray &pool, const QString &workerId) const;
    QByteArray campaignDeadLetter(const QByteArray &pool) const;
    QByteArray campaignRefused(const QByteArray &pool) const;  // set of "seq:uid" grabs the ledger refused, already undone here
    QByteArray campaignRepairLock(const QByteArray &pool) const;  // string with a TTL: grabs wait while a repair runs
    QByteArray campaignRepairStaging(const QByteArray &pool, const QByteArray &what) const;  // pool or draws being rebuilt
    QByteArray campaignLent(const QByteArray &pool) const;  // hash "seq:amount" -> "home|uid|ms": envelopes on their way to a user of another pool

    // A campaign's first (or only) pool is named by its id.
    QByteArray campaignMeta(qint64 campaignId) const { return campaignMeta(QByteArray::number(campaignId)); }
    QByteArray campaignPool(qint64 campaignId) const { return campaignPool(QByteArray::number(campaignId)); }
    QByteArray campaignDraws(qint64 campaignId) const { return campaignDraws(QByteArray::number(campaignId)); }
    QByteArray campaignAttempts(qint64 campaignId) const { return campaignAttempts(QByteArray::number(campaignId)); }
    QByteArray campaignTasks(qint64 campaignId) const { return campaignTasks(QByteArray::number(campaignId)); }
    QByteArray campaignBackup(qint64 campaignId, const QString &workerId) const { return campaignBackup(QByteArray::number(campaignId), workerId); }
    QByteArray campaignDeadLetter(qint64 campaignId) const { return campaignDeadLetter(QByteArray::number(campaignId)); }
    QByteArray campaignRefused(qint64 campaignId) const { return campaignRefused(QByteArray::number(campaignId)); }
    QByteArray campaignRepairLock(qint64 campaignId) const { return campaignRepairLock(QByteArray::number(campaignId)); }
    QByteArray campaignRepairStaging(qint64 campaignId, const QByteArray &what) const
    {
        return campaignRepairStaging(QByteArray::number(campaignId), what);
    }
    /** Pool names of launched campaigns, whose task queues workers drain: "42" for a campaign of
        one pool, "42", "42.7", ... for one of sub-pools. */
    QByteArray campaignSet() const;
    /** Pool names a worker moved out of campaignSet() once their campaign was closed and held
        nothing any more (PoolRetirement): nothing reads or drains them again. */
    QByteArray retiredCampaignSet() const;
    /** A string with a TTL: the worker retiring drained pools now (one at a time). */
    QByteArray retirementLock() const;

    QByteArray workerHeartbeat(const QString &workerId) const;
    QByteArray workerPayouts(const QString &workerId) const;  // hash of its payout figures, renewed with each beat
    QByteArray workerSet() const;                            // ids of workers that ever claimed work
    QByteArray featureSwitches() const;                      // hash feature -> "off" (the API's kill switches)
    QByteArray ledgerCheck() const;      // string with a TTL: the workers' last ledger check, a line per live campaign (LedgerBalanceCheck)
    QByteArray ledgerCheckTurn() const;  // string with a TTL: the worker whose turn the ledger check is
    QByteArray keptMonthStats(QDate month) const;  // string with a TTL: a month's check-in figures as a worker read them (KeptMonthStats)
    QByteArray keptMonthStatsTurn() const;         // string with a TTL: the worker whose turn reading them is

    /** Throws InvalidInputError unless id is 1..64 chars of [A-Za-z0-9_.-]. */
    static void validateWorkerId(const QString &workerId);

private:
    QByteArray checkinTag(int shard) const;
    QByteArray campaignTag(const QByteArray &pool) const;

    QByteArray m_prefix;
    int m_shards;
    qint64 m_denseUids;
};

} // namespace lantern
