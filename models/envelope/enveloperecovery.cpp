#include "envelope/enveloperecovery.h"

#include "envelope/payouttask.h"
#include "queue/reliablequeue.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

namespace lantern {

EnvelopeRecovery::EnvelopeRecovery(RedisClient &redis, SqlConnection &sql, const KeySchema &keys) : m_redis(redis), m_sql(sql), m_keys(keys) {}

bool EnvelopeRecovery::reclaim(const QString &workerId, RecoveryReport &report)
{
    bool hadEntries = false;
    for (const RedisValue &member : m_redis.command({"SMEMBERS", m_keys.campaignSet()}).elements) {
        const qint64 id = member.toInteger();
        const ReliableQueue queue(m_keys.campaignTasks(id), m_keys.campaignBackup(id, workerId), m_keys.campaignDeadLetter(id));
        const QByteArrayList entries = queue.inFlight(m_redis, 1 << 30);
        if (entries.isEmpty())
            continue;
        hadEntries = true;
        QByteArrayList done;
        for (const QByteArray &raw : entries) {
            const auto task = PayoutTask::fromJson(raw);
            if (!task) {
                queue.deadLetter(m_redis, raw);
                ++report.deadLettered;
                continue;
            }
            QSqlQuery paid = m_sql.exec(QStringLiteral("SELECT 1 FROM payout WHERE idempotency_key = ? AND status = 'paid'"), {task->idempotencyKey()});
            if (paid.next())
                done << raw;
        }
        queue.acknowledge(m_redis, done);
        report.completed += done.size();
        report.requeued += queue.requeueBackup(m_redis);
    }
    return hadEntries;
}

} // namespace lantern
