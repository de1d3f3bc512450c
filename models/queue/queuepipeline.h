#pragma once

#include <QByteArrayList>
#include <QList>

#include <vector>

namespace lantern {

class BackupTally;
class RedisClient;
class ReliableQueue;
struct RedisValue;
struct DeadLetterNote;

/** Operations on several ReliableQueues sent in one pipeline (one round trip), in this order:
    the moves (to the back of a queue, or to its dead letters) in one MULTI, so each entry is in
    exactly one list whatever happens; the acknowledgements; then the reads of backup lists and
    the claims, whose entries come back oldest first. Acknowledging and moving scan the backup
    list from its oldest end (LREM -1), where a worker's oldest entries are; acknowledgements of a
    queue are one acknowledge.lua, which cuts the oldest entries off at once (LTRIM). */
class QueuePipeline final {
public:
    /** Removes processed entries from the backup list (one script call per call). */
    void acknowledge(const ReliableQueue &queue, const QByteArrayList &entries);
    /** Moves an entry from the backup list to the back of the queue (the oldest are served first). */
    void retryLater(const ReliableQueue &queue, const QByteArray &entry);
    /** Moves an entry from the backup list to the dead-letter list, with its note. */
    void deadLetter(const ReliableQueue &queue, const QByteArray &entry, const DeadLetterNote &note);
    /** Everything the backup list holds (read before the claims); returns a handle for entries(). */
    int readBackup(const ReliableQueue &queue);
    /** Moves up to `max` entries into the backup list (claim.lua); returns a handle for entries(). */
    int claim(const ReliableQueue &queue, int max);

    bool isEmpty() const;
    /** One round trip. Throws like RedisClient::pipeline, RedisReplyError for an error reply.
        With `tally`, what the round trip moved into and out of the backup lists is counted there. */
    void run(RedisClient &redis, BackupTally *tally = nullptr);
    /** What a readBackup() or claim() got, oldest first (after run()). */
    const QByteArrayList &entries(int handle) const { return m_results.at(static_cast<size_t>(handle)); }

private:
    void countRemovals(const std::vector<RedisValue> &replies, const std::vector<qint64> &acknowledged, BackupTally &tally) const;

    struct Read {
        bool claim = false;
        QByteArrayList command;
    };

    QList<QByteArrayList> m_moves;
    QList<QByteArrayList> m_acknowledgements;
    std::vector<Read> m_reads;
    std::vector<QByteArrayList> m_results;
};

} // namespace lantern
