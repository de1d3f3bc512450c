#pragma once

#include "envelope/payouttask.h"

#include <QByteArrayList>
#include <QString>

#include <functional>

namespace lantern {

class KeySchema;
class PayoutGateway;
class RedisClient;
class ReliableQueue;
class SqlConnection;
struct PayoutTask;

struct EnvelopeDrainOptions {
    int batchSize = 500;       // tasks claimed per campaign per pass
    int payAttempts = 3;       // calls to the gateway per task and pass
    int backoffMs = 50;        // doubled after each failed call
    int maxFailedPasses = 5;   // then the task goes to dead letter and the error log
    QString errorLogPath;      // empty: LANTERN_ERROR_LOG, else <data dir>/lantern/errors.log
    std::function<void()> keepAlive;  // called before each payout: a slow provider must not let the heartbeat lapse
};

struct EnvelopeDrainStats {
    qint64 claimed = 0;
    qint64 persisted = 0;     // new grab rows
    qint64 paid = 0;          // payouts confirmed in this pass
    qint64 retried = 0;       // tasks sent to the back of the queue for a later pass
    qint64 deadLettered = 0;
    qint64 refused = 0;       // grabs the ledger refused: the user or the envelope already had another (issue 15)
    qint64 repaired = 0;      // campaigns whose Redis state was rebuilt from SQL after a refusal

    EnvelopeDrainStats &operator+=(const EnvelopeDrainStats &other);
};

/** A worker's drain of the payout task queues (DESIGN §4): claim tasks into its backup list,
    persist the grabs in one multi-row idempotent transaction, pay each envelope through the
    gateway with its idempotency key (retrying with backoff), record the payout, and only then
    acknowledge. A crash anywhere leaves the task in the backup list for recovery; replaying it
    neither writes a second row nor pays twice. */
class EnvelopeDrain final {
public:
    EnvelopeDrain(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, QString workerId, PayoutGateway &gateway,
                  EnvelopeDrainOptions options = {});

    EnvelopeDrainStats pass();
    /** Passes until one claims nothing. */
    EnvelopeDrainStats drainAll();

private:
    EnvelopeDrainStats process(const ReliableQueue &queue, const QByteArrayList &entries);
    /** What one payout attempt left to record in SQL. */
    struct PayoutRecord {
        PayoutTask task;
        QString status;  // paid, pending (retry later) or failed (given up)
        QString providerRef;
        int calls = 0;
    };

    /** A grab Redis handed out that the ledger refused, and what the ledger holds instead. */
    struct Refusal {
        PayoutTask task;
        qint64 holder = 0;  // the user holding task.seq in SQL, 0: nobody
        QByteArray held;    // "seq:amount" the task's user holds in SQL, empty: none
    };

    /** Grab rows, refusals and pending payouts in one transaction; a payout row is written only
        for a grab whose (campaign, seq, uid) row the ledger holds. */
    QList<Refusal> persist(const QList<PayoutTask> &tasks, EnvelopeDrainStats &stats);
    /** Inside persist()'s transaction: splits tasks into those the ledger holds and refusals. */
    void judge(const QList<PayoutTask> &tasks, QList<PayoutTask> &accepted, QList<Refusal> &refused);
    /** Undoes a refused grab in Redis (grab_refused.lua); false when an earlier run already did. */
    bool undo(const Refusal &refusal);
    static QList<qint64> campaignsOf(const QList<Refusal> &refusals);
    /** Writes a batch's payout results in one transaction. */
    void record(const QList<PayoutRecord> &records);
    void deadLetter(const ReliableQueue &queue, const QByteArray &entry, const QString &why);

    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
    QString m_workerId;
    PayoutGateway &m_gateway;
    EnvelopeDrainOptions m_options;
};

} // namespace lantern
