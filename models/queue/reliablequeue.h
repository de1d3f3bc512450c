#pragma once

#include <QByteArray>
#include <QByteArrayList>
#include <QString>

namespace lantern {

class LuaScript;

class RedisClient;

/** Why an entry was set aside, kept next to it in the dead-letter list's notes hash (field: the
    entry's bytes; see notesKey()). Entries set aside before notes existed have none. */
struct DeadLetterNote {
    QString reason;          // the last error, in the worker's words
    int attempts = 0;        // tries that failed before it was set aside; 0: not counted
    qint64 failedAtMs = 0;   // when it was set aside; 0: unknown

    bool isKnown() const { return failedAtMs > 0; }
    QByteArray toJson() const;
    /** An unknown note for anything that is not a note's JSON. */
    static DeadLetterNote fromJson(const QByteArray &json);
    /** The hash of the notes of dead-letter list `listKey` (same hash tag). */
    static QByteArray notesKey(const QByteArray &listKey) { return listKey + ":why"; }
};

/** A Redis list drained reliably (DESIGN §4): a worker moves entries into its own backup list,
    processes them, and only then acknowledges (removes) them. Entries of a worker that died stay
    in its backup list until recovery puts them back. All three keys must share a hash tag. */
class ReliableQueue final {
public:
    ReliableQueue(QByteArray queue, QByteArray backup, QByteArray deadLetter);

    /** Moves up to `max` entries into the backup list; returns them oldest first. */
    QByteArrayList claim(RedisClient &redis, int max) const;
    /** What the backup list holds (a restarted worker finishes these first), oldest first. */
    QByteArrayList inFlight(RedisClient &redis, int max) const;
    /** Removes processed entries from the backup list (one round trip, acknowledgeScript()). */
    void acknowledge(RedisClient &redis, const QByteArrayList &entries) const;
    /** Moves one entry from the backup list to the dead-letter list with its note, atomically
        (a note without a time is stamped now). */
    void deadLetter(RedisClient &redis, const QByteArray &entry, const DeadLetterNote &note = {}) const;
    /** Moves one entry from the backup list to the back of the queue, atomically: a task that
        failed for now is retried after the others. */
    void retryLater(RedisClient &redis, const QByteArray &entry) const;
    /** Puts every backup entry back at the front of the queue; returns how many moved. */
    qint64 requeueBackup(RedisClient &redis) const;

    /** claim.lua: KEYS queue, backup; ARGV max. Shared with QueuePipeline, which claims for many
        queues in one round trip. */
    static const LuaScript &claimScript();
    /** acknowledge.lua: KEYS backup; ARGV the entries. Shared with QueuePipeline. */
    static const LuaScript &acknowledgeScript();

    const QByteArray &queueKey() const { return m_queue; }
    const QByteArray &backupKey() const { return m_backup; }
    const QByteArray &deadLetterKey() const { return m_deadLetter; }

private:
    QByteArray m_queue;
    QByteArray m_backup;
    QByteArray m_deadLetter;
};

} // namespace lantern
