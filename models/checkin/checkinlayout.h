#pragma once

#include "checkin/monthbits.h"

#include <QByteArrayList>
#include <QCoreApplication>
#include <QDate>

#include <utility>

namespace lantern {

class KeySchema;
struct RedisValue;

/** Where one user's check-in month lives (KeySchema's layout): a dense uid's 32-bit word in a
    month block, or a sparse uid's field in its shard's sparse hash. */
struct UserPlace {
    qint64 uid = 0;
    int shard = 0;
    bool dense = false;
    qint64 block = 0;  // dense only
    int slot = 0;      // dense only: the word's index in the block
    int bucket = 0;    // sparse only: which of the shard's sparse hashes
};

/** The block layout of check-in bits (docs/decisions.md, "Check-in bits in blocks"): a user's
    month is one 32-bit word, bit 31 for day 1 down to bit 1 for day 31 (so `BITFIELD GET u32`
    and SETBIT at slot * 32 + day - 1 agree); make-up days are a word of the same order in a hash
    holding only the users who have one. Builds the read commands and names the keys of one
    user-month for scripts; reads no data itself. */
class CheckinLayout final {
    Q_DECLARE_TR_FUNCTIONS(lantern::CheckinLayout)

public:
    /** Words per block: a block is created whole (checkin.lua), 262,132 bytes, which with its
        sds header (9) and NUL fills jemalloc's 256 KiB size class exactly (65,536 words would
        take the 320 KiB class; grown by SETBIT it would be doubled). */
    static constexpr int BlockUsers = 65533;
    static constexpr int WordBytes = 4;
    static constexpr int BlockBytes = BlockUsers * WordBytes;
    /** Make-up marks of a block are split in hashes of 1,024 slots each, so that at up to 128
        users with make-ups per group (12 % of them) a hash stays a listpack (Redis's default
        hash-max-listpack-entries), ~10 bytes a mark instead of ~75 in a hash table. */
    static constexpr int MakeupGroupUsers = 1024;
    static constexpr int MakeupGroups = (BlockUsers + MakeupGroupUsers - 1) / MakeupGroupUsers;
    /** Sparse users of a shard-month are spread over 1,024 hashes by a multiplicative hash of the
        uid (snowflake ids share their low bits), so up to ~2M sparse users a month (128 per hash,
        Redis's default hash-max-listpack-entries) each hash stays a listpack. */
    static constexpr int SparseBucketBits = 10;
    static constexpr int SparseBuckets = 1 << SparseBucketBits;

    explicit CheckinLayout(const KeySchema &keys) : m_keys(keys) {}

    UserPlace place(qint64 uid) const;
    /** The uid whose word is `slot` of `block` in `shard`. */
    qint64 denseUid(int shard, qint64 block, int slot) const;

    QByteArray signKey(const UserPlace &user, QDate month) const;    // the block, or the sparse hash
    QByteArray makeupKey(const UserPlace &user, QDate month) const;  // the make-up hash, or the sparse hash
    /** signKey and makeupKey together: a sparse user's two are one key, built once. */
    std::pair<QByteArray, QByteArray> signAndMakeupKeys(const UserPlace &user, QDate month) const;
    QByteArray makeupField(const UserPlace &user) const;             // slot, or "m<uid>"

    /** One command reading the user's sign word of `month` (BITFIELD GET u32, or HGET). */
    QByteArrayList readSign(qint64 uid, QDate month) const;
    /** One command reading the user's make-up word of `month` (HGET). */
    QByteArrayList readMakeup(qint64 uid, QDate month) const;
    /** The word a read command above replied; throws RedisReplyError for an error reply. */
    static quint32 word(const RedisValue &reply);
    /** word(reply) as the month's bits. */
    static MonthBits bits(QDate month, const RedisValue &reply);

    /** Commands that make `bits` the user's sign word of bits.month, whatever it held (no make-up
        mark, no log entry): for tests and benches seeding a store. */
    QList<QByteArrayList> setMonth(qint64 uid, const MonthBits &bits) const;

    /** The scripts' place argument: "<block>:<slot>:<block bytes>" for a dense uid, empty for a
        sparse one. */
    static QByteArray placeArgument(const UserPlace &user);

private:
    const KeySchema &m_keys;
};

} // namespace lantern
