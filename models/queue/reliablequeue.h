#pragma once

#include <QByteArray>
#include <QByteArrayList>

namespace lantern {

class LuaScript;

class RedisClient;

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
    /** Removes processed entries from the backup list (one round trip). */
    void acknowledge(RedisClient &redis, const QByteArrayList &entries) const;
    /** Moves one entry from the backup list to the dead-letter list, atomically. */
    void deadLetter(RedisClient &redis, const QByteArray &entry) const;
    /** Moves one entry from the backup list to the back of the queue, atomically: a task that
        failed for now is retried after the others. */
    void retryLater(RedisClient &redis, const QByteArray &entry) const;
    /** Puts every backup entry back at the front of the queue; returns how many moved. */
    qint64 requeueBackup(RedisClient &redis) const;

    /** claim.lua: KEYS queue, backup; ARGV max. Shared with QueuePipeline, which claims for many
        queues in one round trip. */
    static const LuaScript &claimScript();

    const QByteArray &queueKey() const { return m_queue; }
    const QByteArray &backupKey() const { return m_backup; }
    const QByteArray &deadLetterKey() const { return m_deadLetter; }

private:
    QByteArray m_queue;
    QByteArray m_backup;
    QByteArray m_deadLetter;
};

} // namespace lantern
