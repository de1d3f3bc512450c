#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QDate>
#include <QString>

namespace lantern {

/** Every Redis key Lantern uses, in one place (DESIGN §3).
    Check-in keys carry the hash tag {ck:S} with S = uid mod shards, so one user's bitmaps, the
    shard's day sets and its log queue share a cluster slot and one script may touch them all. */
class KeySchema final {
    Q_DECLARE_TR_FUNCTIONS(lantern::KeySchema)

public:
    static constexpr int DefaultShards = 16;

    /** Throws InvalidInputError for a prefix with braces or spaces, or shards outside 1..16384. */
    explicit KeySchema(const QString &prefix = QStringLiteral("lt:"), int shards = DefaultShards);

    int shards() const { return m_shards; }
    int shardOf(qint64 uid) const { return static_cast<int>(uid % m_shards); }
    const QByteArray &prefix() const { return m_prefix; }

    QByteArray signBits(qint64 uid, QDate month) const;      // bit d-1 = day d signed (normal or make-up)
    QByteArray makeupBits(qint64 uid, QDate month) const;    // bit d-1 = day d was a make-up
    QByteArray daySet(int shard, QDate day) const;           // uids of the shard that signed that day
    QByteArray checkinQueue(int shard) const;                // log entries awaiting persistence
    QByteArray checkinBackup(int shard, const QString &workerId) const;  // a worker's in-flight entries
    QByteArray checkinDeadLetter(int shard) const;           // entries that cannot be persisted

    // Campaign keys carry the hash tag {cp:ID}: one campaign's keys share a slot.
    QByteArray campaignMeta(qint64 campaignId) const;      // hash: status, max_attempts, grabbed_*
    QByteArray campaignPool(qint64 campaignId) const;      // list of "seq:amount", next on the left
    QByteArray campaignDraws(qint64 campaignId) const;     // hash uid -> "seq:amount"
    QByteArray campaignAttempts(qint64 campaignId) const;  // hash uid -> grab attempts
    QByteArray campaignTasks(qint64 campaignId) const;     // payout tasks awaiting a worker
    QByteArray campaignBackup(qint64 campaignId, const QString &workerId) const;
    QByteArray campaignDeadLetter(qint64 campaignId) const;
    QByteArray campaignRefused(qint64 campaignId) const;  // set of "seq:uid" grabs the ledger refused, already undone here
    QByteArray campaignRepairLock(qint64 campaignId) const;  // string with a TTL: grabs wait while a repair runs
    QByteArray campaignRepairStaging(qint64 campaignId, const QByteArray &what) const;  // pool or draws being rebuilt
    QByteArray campaignSet() const;  // ids of launched campaigns whose task queues workers drain

    QByteArray workerHeartbeat(const QString &workerId) const;
    QByteArray workerPayouts(const QString &workerId) const;  // hash of its payout figures, renewed with each beat
    QByteArray workerSet() const;                            // ids of workers that ever claimed work
    QByteArray featureSwitches() const;                      // hash feature -> "off" (the API's kill switches)

    /** Throws InvalidInputError unless id is 1..64 chars of [A-Za-z0-9_.-]. */
    static void validateWorkerId(const QString &workerId);

private:
    QByteArray checkinTag(int shard) const;
    QByteArray campaignTag(qint64 campaignId) const;

    QByteArray m_prefix;
    int m_shards;
};

} // namespace lantern
