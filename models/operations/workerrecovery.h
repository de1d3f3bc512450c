#pragma once

#include "envelope/poollending.h"
#include "queue/backupqueuerecovery.h"

#include <QString>

#include <optional>

namespace lantern {

class KeySchema;
class RedisClient;
class SqlConnection;

/** What one recovery did: the backup lists taken back, and the grabs between pools it finished. */
struct WorkerRecoveryReport {
    RecoveryReport queues;
    LentSettlement lent;
};

/** Crash recovery as `lanternd recover` and the console's Recovery view both run it (DESIGN §4):
    the backup lists of workers whose heartbeat expired, or of one named worker (an operator's
    decision), are taken back by both queue families (check-in log entries, payout tasks); grabs
    of sub-pooled campaigns interrupted between their lend and their settle are finished
    (PoolLending::settleEveryCampaign); and a "queue.recover" audit row says who did it, when
    anything was reclaimed or a worker was named. */
class WorkerRecovery final {
public:
    WorkerRecovery(RedisClient &redis, SqlConnection &sql, const KeySchema &keys);

    /** `via` is added to the audit row's detail unless empty (the console says "console"). */
    WorkerRecoveryReport recover(const std::optional<QString> &worker, const QString &actor, const QString &via, qint64 nowMs);

private:
    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
};

} // namespace lantern
