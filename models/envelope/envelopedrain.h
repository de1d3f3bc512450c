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

    void persist(const QList<PayoutTask> &tasks, EnvelopeDrainStats &stats);
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
