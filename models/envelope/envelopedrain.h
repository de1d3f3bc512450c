#pragma once

#include "envelope/payoutledger.h"
#include "envelope/payouttask.h"
#include "payout/payoutdispatcher.h"

#include <QByteArrayList>
#include <QDeadlineTimer>
#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

#include <chrono>
#include <functional>
#include <memory>

namespace lantern {

class BackupTally;
class KeySchema;
class PayoutGateway;
class PayoutRateLimit;
class QueuePipeline;
class RedisClient;
class ReliableQueue;
class SqlConnection;
class SqlWorker;

struct EnvelopeDrainOptions {
    int batchSize = 500;       // tasks claimed per campaign and batch
    int inFlight = DefaultPayoutsInFlight;  // payout calls in flight at once (lanternd work --in-flight)
    int payAttempts = 3;       // calls to the gateway per task and pass
    int backoffMs = 50;        // before a task's next call; doubled after each failed call
    int maxFailedPasses = 5;   // then the task goes to dead letter and the error log
    const PayoutRateLimit *rate = nullptr;  // LANTERN_PAYOUT_RATE, shared by every worker; null: no limit
    QString errorLogPath;      // empty: LANTERN_ERROR_LOG, else <data dir>/lantern/errors.log
    std::function<void()> keepAlive;  // called every 250 ms while payouts are in flight: the heartbeat
    BackupTally *tally = nullptr;     // counts what the drain moves into and out of its backup lists
    bool ledgerThread = true;  // MySQL: each batch's transactions on connections and threads of their own
                               // (SqlWorker) while the payouts in flight go on; SQLite: always inline
};

struct EnvelopeDrainStats {
    qint64 claimed = 0;
    qint64 persisted = 0;     // new grab rows
    qint64 paid = 0;          // payouts recorded as paid
    qint64 retried = 0;       // tasks sent to the back of the queue for a later pass
    qint64 deadLettered = 0;
    qint64 refused = 0;       // grabs the ledger refused: the user or the envelope already had another (issue 15)
    qint64 repaired = 0;      // campaigns whose Redis state was rebuilt from SQL after a refusal

    EnvelopeDrainStats &operator+=(const EnvelopeDrainStats &other);
};

/** Where a drain's time went, for benches and the worker's figures. */
struct EnvelopeDrainTimings {
    qint64 batches = 0;        // SQL transactions (one per batch)
    qint64 redisTrips = 0;     // queue round trips (one per batch, plus refusals)
    double sqlSeconds = 0;     // inside the transactions
    double redisSeconds = 0;   // inside the queue round trips
    double overlappedSeconds = 0;  // of those, run while a transaction was under way (also in sqlSeconds)
    double waitSeconds = 0;    // running the event loop while payouts were in flight
};

/** A worker's drain of the payout task queues (DESIGN §4). Per batch: one round trip settles what
    the last transaction recorded (acknowledge, retry later, dead-letter) and claims the next tasks
    into this worker's backup list; one SQL transaction records the payouts that finished and
    persists the new grabs (PayoutLedger; on MySQL two at once, one for each, on two connections);
    then the batch's envelopes join the payouts in flight (PayoutDispatcher: up to `inFlight` calls
    at once, each with the envelope's idempotency key, retried with backoff). A task leaves the
    backup list only after its outcome is in SQL, so a crash anywhere leaves it for recovery, and
    replaying it neither writes a second row nor pays twice. Not thread-safe; after an exception
    the drain is spent (make a new one: it resumes from the backup list). While payouts are in
    flight it runs a local event loop. */
class EnvelopeDrain final {
public:
    EnvelopeDrain(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, QString workerId, PayoutGateway &gateway,
                  EnvelopeDrainOptions options = {});
    ~EnvelopeDrain();
    Q_DISABLE_COPY_MOVE(EnvelopeDrain)

    /** One batch per campaign (first everything this worker's backup lists held), paid and
        recorded before it returns. */
    EnvelopeDrainStats pass();
    /** Batches until the queues are empty, with payouts in flight across batches; every task
        claimed is settled when it returns. */
    EnvelopeDrainStats drainAll();

    /** For a long-running worker: settles and records what finished, claims a batch per campaign
        when fewer than two windows of payouts are waiting, then lets payouts run until more work
        is wanted, all are done, or `slice` passes. Payouts still in flight stay in flight. */
    EnvelopeDrainStats advance(std::chrono::milliseconds slice);
    /** Waits for every payout in flight, records and settles everything. */
    EnvelopeDrainStats finish();
    /** Payouts in flight or outcomes not yet recorded or settled. */
    bool busy() const;

    const PayoutDispatcher &dispatcher() const { return *m_dispatcher; }
    const EnvelopeDrainTimings &timings() const { return m_timings; }

private:
    enum class Settle { Done, Later, GiveUp };
    /** A claimed task on its way: which queue it came from and its entry there. */
    struct Claimed {
        QByteArray pool;  // the pool whose queue it came from ("42", or "42.7" for a sub-pool)
        QByteArray raw;
        PayoutTask task;
        int attemptsSoFar = 0;
        bool payoutRecorded = false;  // the ledger held a payout row for it when its grab was judged
    };
    /** An outcome on its way to SQL, then to the queue. */
    struct Outcome {
        Claimed claimed;
        PayoutRecord record;  // task empty (campaignId 0): nothing to record (paid before, refused)
        Settle settle = Settle::Done;
        QString why;          // for the dead-letter entry and the error log
    };

    ReliableQueue queueOf(const QByteArray &pool) const;
    /** advance(); with `prefetch`, the next batch is claimed while this one's transaction runs. */
    EnvelopeDrainStats advanceBatch(std::chrono::milliseconds slice, bool prefetch);
    /** One queue round trip: settles what was recorded, reads the backup lists not taken over
        yet, and with `claim` claims a batch per campaign; appends what came to `claimed`. */
    EnvelopeDrainStats claimTrip(bool claim, QList<Claimed> &claimed);
    /** claimTrip() into m_prefetched, while the SqlWorker writes a batch. */
    void prefetchNext();
    /** Known campaigns' pools (SMEMBERS), read again when the last claims came up short or a second passed. */
    const QByteArrayList &pools();
    /** Adds the settlements of recorded outcomes to `trip`; returns what they count for. */
    EnvelopeDrainStats settleInto(QueuePipeline &trip, QList<Outcome> &deadLetters);
    void runTrip(QueuePipeline &trip);
    /** Finishes grabs interrupted between their lend and settle steps (poollending.h): records
        older than LentGraceMs, looked for every LentCheckEvery. */
    void settleInterruptedLends();
    /** The transaction of a batch: records the unrecorded outcomes, persists `claimed`. */
    EnvelopeDrainStats writeBatch(const QList<Claimed> &claimed, bool prefetch);
    /** PayoutLedger::write(), on the SqlWorker's thread when there is one (payouts in flight go
        on meanwhile, and with `prefetch` the next batch is claimed), else on this connection. */
    LedgerWrite writeLedger(const QList<PayoutRecord> &records, const QList<PayoutTask> &tasks, bool prefetch);
    /** Each claimed task with the ledger's verdict on it: its AcceptedGrab in `written`, or null
        when refused. */
    static QList<std::pair<Claimed, const AcceptedGrab *>> matchVerdicts(const QList<Claimed> &claimed, const LedgerWrite &written);
    void takeOutcomes();
    void logDeadLetter(const QByteArray &pool, const QByteArray &entry, const QString &why);
    /** Undoes refused grabs in Redis and repairs their campaigns (issue 15). */
    EnvelopeDrainStats handleRefusals(const QList<GrabRefusal> &refusals);

    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
    QString m_workerId;
    EnvelopeDrainOptions m_options;
    std::unique_ptr<PayoutDispatcher> m_dispatcher;

    QByteArrayList m_pools;
    QDeadlineTimer m_poolsFresh;
    QSet<QByteArray> m_resumed;          // pools whose backup list this drain took over
    QDeadlineTimer m_retireDue;          // expired: retire drained pools (PoolRetirement), if no other worker is
    QDeadlineTimer m_lentFresh;          // expired: look for interrupted lends
    bool m_exhausted = false;            // the last claims got fewer tasks than asked
    quint64 m_nextTag = 1;
    QHash<quint64, Claimed> m_paying;    // tag -> task whose payout is with the dispatcher
    QList<Outcome> m_unrecorded;         // finished, not yet in SQL
    QList<Outcome> m_unsettled;          // in SQL, still in the backup list
    QList<Claimed> m_prefetched;         // claimed while the last transaction ran, not written yet
    EnvelopeDrainStats m_prefetchedStats;  // what claiming them counted
    EnvelopeDrainTimings m_timings;
    std::unique_ptr<SqlWorker> m_writer;    // after m_dispatcher: stopped before it goes. The new grabs
    std::unique_ptr<SqlWorker> m_recorder;  // the finished payouts, when a batch has both
};

} // namespace lantern
