#include "operations/workerrecovery.h"

#include "audit/auditlog.h"
#include "checkin/checkinrecovery.h"
#include "envelope/enveloperecovery.h"

#include <QJsonArray>
#include <QJsonObject>

namespace lantern {

WorkerRecovery::WorkerRecovery(RedisClient &redis, SqlConnection &sql, const KeySchema &keys) : m_redis(redis), m_sql(sql), m_keys(keys) {}

WorkerRecoveryReport WorkerRecovery::recover(const std::optional<QString> &worker, const QString &actor, const QString &via, qint64 nowMs)
{
    WorkerRecoveryReport report;
    CheckinRecovery checkins(m_redis, m_sql, m_keys);
    EnvelopeRecovery payouts(m_redis, m_sql, m_keys);
    report.queues = BackupQueueRecovery(m_redis, m_keys, {&checkins, &payouts}).recover(worker);
    // Grabs of sub-pooled campaigns interrupted between their lend and their settle (docs/cluster.md).
    report.lent = PoolLending(m_redis, m_keys).settleEveryCampaign(LentGraceMs, nowMs);
    if (report.queues.reclaimed > 0 || worker) {
        QJsonObject detail{{QStringLiteral("workers"), QJsonArray::fromStringList(report.queues.workers)},
                           {QStringLiteral("requeued"), report.queues.requeued},
                           {QStringLiteral("completed"), report.queues.completed},
                           {QStringLiteral("dead_lettered"), report.queues.deadLettered}};
        if (report.lent.found > 0)
            detail.insert(QStringLiteral("lent_settled"), report.lent.found);
        if (!via.isEmpty())
            detail.insert(QStringLiteral("via"), via);
        AuditLog(m_sql).record(actor, QStringLiteral("queue.recover"), worker.value_or(QStringLiteral("expired-workers")), detail, nowMs);
    }
    return report;
}

} // namespace lantern
