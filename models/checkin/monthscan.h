#pragma once

#include <QDate>
#include <QList>

#include <functional>

namespace lantern {

class KeySchema;
class RedisClient;

/** One user's month word (CheckinLayout: bit 31 = day 1). */
struct UserWord {
    qint64 uid = 0;
    quint32 word = 0;
};

/** One round of a MonthScan: the users of a uid range (dense) or of a batch of sparse hashes
    whose word is not zero. */
struct MonthRound {
    QList<UserWord> words;
    bool dense = true;
    qint64 firstUid = 0;  // dense: every uid of the round lies in [firstUid, endUid)
    qint64 endUid = 0;
};

/** Streams a month of the check-in block layout with bounded memory and no SCAN: the block
    numbers come from each shard's block set, the words from GETRANGE of ChunkUsers words of
    every shard's block at once (one pipeline a round), a block's make-up marks from its groups
    (HGETALL of each, one pipeline), the sparse users from HGETALL of BucketsPerRound of a
    shard's sparse hashes a round. */
class MonthScan final {
public:
    static constexpr int ChunkUsers = 4096;  // words per shard per round: 16 KiB
    static constexpr int BucketsPerRound = 128;  // sparse hashes per round: ~60 users each at 1M sparse users a month

    using Take = std::function<void(const MonthRound &round)>;

    MonthScan(RedisClient &redis, const KeySchema &keys, QDate month);

    /** Every user with a signed day in the month: dense users by ascending uid range, then the
        sparse ones. */
    void signWords(const Take &take);
    /** Every user with a make-up mark in the month (words of make-up days). */
    void makeupWords(const Take &take);

private:
    /** The block numbers any shard wrote in the month, ascending, and which shards wrote each. */
    QList<std::pair<qint64, QList<int>>> blocks();
    /** The sparse users' sign words, or their make-up words. */
    void sparseWords(bool makeups, const Take &take);

    RedisClient &m_redis;
    const KeySchema &m_keys;
    QDate m_month;
};

} // namespace lantern
