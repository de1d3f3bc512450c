#pragma once

#include <QByteArrayList>
#include <QList>
#include <QString>

namespace lantern {

class BackupTally;
class KeySchema;
class ReliableQueue;
class RedisClient;
class SqlConnection;
class SqlWorker;
struct CheckinEntry;

/** Counts of one drain pass. */
struct DrainStats {
    qint64 claimed = 0;       // entries taken from queues (or resumed from this worker's backup)
    qint64 persisted = 0;     // new checkin_log rows
    qint64 deadLettered = 0;  // malformed entries set aside

    DrainStats &operator+=(const DrainStats &other);
};

/** A worker's persistence of the check-in log queues: claim a batch per shard into this
    worker's backup lists (one round trip for every shard), write them to SQL idempotently in one
    transaction, then acknowledge them (one round trip). A crash between the steps leaves the batch
    in the backup lists for recovery; replaying it is harmless because every write is keyed on
    (uid, day). */
class CheckinDrain final {
public:
    CheckinDrain(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, QString workerId, int batchSize = 500);

    /** One pass over every shard: this worker's own unacknowledged entries and at most one new
        batch per shard. Throws UnavailableError when Redis or SQL fails mid-way. */
    DrainStats pass();
    /** Passes until a pass claims nothing. */
    DrainStats drainAll();
    /** Each pass's rows written over this connection and these workers' at once, split by uid
        range, so a pass gets more of the database's time (issue 12); all of them are committed
        before anything is acknowledged. Empty: this connection only. */
    void setWriters(QList<SqlWorker *> writers) { m_writers = std::move(writers); }
    /** Counts what the passes move into and out of this worker's backup lists (its heartbeat says it). */
    void setTally(BackupTally *tally) { m_tally = tally; }

private:
    int persist(QList<CheckinEntry> entries);

    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
    QString m_workerId;
    int m_batchSize;
    QList<SqlWorker *> m_writers;
    BackupTally *m_tally = nullptr;
};

} // namespace lantern
