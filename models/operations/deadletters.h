#pragma once

#include "queue/reliablequeue.h"

#include <QByteArrayList>
#include <QCoreApplication>
#include <QList>
#include <QString>

#include <optional>

namespace lantern {

class KeySchema;
class RedisClient;
class SqlConnection;

/** One dead-letter list and the queue its entries were taken from (both share a hash tag). */
struct DeadLetterList {
    QString name;         // "checkin:<shard>", "payout:<campaign id>", or "payout:<campaign id>.<n>" for a sub-pool
    QByteArray key;
    QByteArray queueKey;
    qint64 depth = 0;
};

/** A bounded slice of a dead-letter list: newest entry first (entries are LPUSHed), oldest
    first, or in an order a caller sorted the whole list into. */
struct DeadLetterPage {
    QString list;
    qint64 offset = 0;    // index of entries.first() in the page's order
    qint64 depth = 0;     // the whole list, read with the slice
    QByteArrayList entries;
    QList<DeadLetterNote> notes;  // one per entry; unknown for entries set aside without one
    QList<qint64> positions;      // one per entry: its place in the list, 1 the newest
};

enum class DeadLetterAction {
    Retry,    // back on its queue, as a new arrival
    Discard,  // dropped
};

/** The dead-letter lists of DESIGN §4 for operators: listing (LLEN, bounded LRANGE pages) and
    retry/discard of exact entries (deadletter_move.lua: LREM of the entry itself, so an entry
    another operator or a concurrent run already took is skipped, never moved twice), or of the
    oldest entries from the list's end for a bulk action (deadletter_take.lua). */
class DeadLetters final {
    Q_DECLARE_TR_FUNCTIONS(lantern::DeadLetters)

public:
    static constexpr int MaxPage = 500;
    /** The deepest list whole() reads: 10,000 entries of a few hundred bytes are a few MB, read
        in one round trip (the notes in a second) and sorted on the console's service thread. */
    static constexpr qint64 SortableDepth = 10'000;

    DeadLetters(RedisClient &redis, const KeySchema &keys);

    /** Every dead-letter list, check-in shards first, then launched campaigns by id, with its
        depth (one pipelined round trip after reading the campaign set). */
    QList<DeadLetterList> lists(bool nonEmptyOnly = true);
    /** Resolves a list's name; throws InvalidInputError for anything else. */
    DeadLetterList list(const QString &name) const;
    /** Up to `count` (at most MaxPage) entries from `offset`, newest first, the depth and each
        entry's note (a second round trip when the page is not empty). */
    DeadLetterPage page(const QString &name, qint64 offset, int count);
    /** The same from the oldest end: `offset` counts from the oldest entry, oldest first. */
    DeadLetterPage oldestFirstPage(const QString &name, qint64 offset, int count);
    /** The whole list, newest first, with every note (LLEN and LRANGE in one round trip, the
        notes in a second), for a caller that sorts it; none when it holds more than `maxDepth`
        entries. */
    std::optional<DeadLetterPage> whole(const QString &name, qint64 maxDepth = SortableDepth);
    /** The `count` (at most MaxPage) oldest entries after the `skip` oldest, oldest first: what a
        bulk action takes next (it skips what it chose to leave in the list). */
    QByteArrayList oldest(const QString &name, int count, qint64 skip = 0);
    /** Retries or discards exactly these entries; per entry whether it was there (and acted on). */
    QList<bool> apply(DeadLetterAction action, const QString &name, const QByteArrayList &entries);
    /** A bulk action's step from the list's end, O(batch + skip) (deadletter_take.lua): `entries`
        as oldest(name, count, skip) read them; those whose `take` is true are retried or
        discarded, the others stay where they are, in order. None when the list's end changed
        since it was read (nothing moved: take them by value with apply()). */
    std::optional<QList<bool>> takeOldest(DeadLetterAction action, const QString &name, qint64 skip, const QByteArrayList &entries,
                                          const QList<bool> &take);

    /** Edit-before-retry: replaces `entry` by `edited` on its way back to the queue
        (deadletter_replace.lua); false when the entry was no longer there. Throws
        InvalidInputError when `edited` is not an entry of that list's kind (a payout task, a
        check-in entry): a worker could not read it. */
    bool retryEdited(const QString &name, const QByteArray &entry, const QByteArray &edited);
    /** Whether `entry` is an entry a worker of list `name` can read. */
    static bool isReadable(const QString &name, const QByteArray &entry);

    static QString actionName(DeadLetterAction action);

private:
    DeadLetterPage slice(const QString &name, qint64 offset, int count, bool oldestFirst);
    /** Fills page.notes, one per entry (one HMGET per MaxPage entries, pipelined). */
    void readNotes(const DeadLetterList &target, DeadLetterPage &page);

    RedisClient &m_redis;
    const KeySchema &m_keys;
};

/** apply() with its audit trail: one audit_log row per entry acted on ("deadletter.retry" or
    "deadletter.discard", target the list, the entry and `via` in the detail), written in one SQL
    transaction around the script. Returns how many entries were acted on. */
qint64 applyDeadLettersAudited(DeadLetters &deadLetters, SqlConnection &sql, DeadLetterAction action, const QString &name,
                               const QByteArrayList &entries, const QString &actor, const QString &via, qint64 nowMs);

/** takeOldest() with its audit trail, as applyDeadLettersAudited(); none when the list's end
    changed (nothing moved, nothing audited). */
std::optional<qint64> takeOldestDeadLettersAudited(DeadLetters &deadLetters, SqlConnection &sql, DeadLetterAction action, const QString &name,
                                                   qint64 skip, const QByteArrayList &entries, const QList<bool> &take, const QString &actor,
                                                   const QString &via, qint64 nowMs);

/** One batch of a bulk action, audited: the entries of `batch` whose `take` is true are acted on,
    the others stay. From the list's end (takeOldest) when the batch is its oldest entries after
    `skip`, in order (`oldestRead`: as oldest() just read them; else it is checked, one LRANGE):
    Retry all, or a selection of the oldest rows. Otherwise, or when the end changed meanwhile, by
    value (applyDeadLettersAudited). Returns how many entries were acted on. */
qint64 applyDeadLetterBatchAudited(DeadLetters &deadLetters, SqlConnection &sql, DeadLetterAction action, const QString &name, qint64 skip,
                                   const QByteArrayList &batch, const QList<bool> &take, bool oldestRead, const QString &actor,
                                   const QString &via, qint64 nowMs);

/** retryEdited() with its audit row ("deadletter.edit_retry", target the list, the entry as it
    was and as edited in the detail), in one SQL transaction around the script. */
bool retryEditedDeadLetterAudited(DeadLetters &deadLetters, SqlConnection &sql, const QString &name, const QByteArray &entry,
                                  const QByteArray &edited, const QString &actor, const QString &via, qint64 nowMs);

} // namespace lantern
