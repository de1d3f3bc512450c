#include "envelope/enveloperecovery.h"

#include "envelope/campaignpools.h"
#include "envelope/payouttask.h"
#include "queue/reliablequeue.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

namespace lantern {

EnvelopeRecovery::EnvelopeRecovery(RedisClient &redis, SqlConnection &sql, const KeySchema &keys) : m_redis(redis), m_sql(sql), m_keys(keys) {}

std::optional<bool> EnvelopeRecovery::isDone(SqlConnection &sql, const QByteArray &entry)
{
    const auto task = PayoutTask::fromJson(entry);
    if (!task)
        return std::nullopt;
    return sql.exec(QStringLiteral("SELECT 1 FROM payout WHERE idempotency_key = ? AND status = 'paid'"), {task->idempotencyKey()}).next();
}

bool EnvelopeRecovery::reclaim(const QString &workerId, RecoveryReport &report)
{
    const auto isDone = [this](const QByteArray &raw) { return EnvelopeRecovery::isDone(m_sql, raw); };
    bool hadEntries = false;
    for (const QByteArray &id : CampaignPools::launched(m_redis, m_keys)) {  // a pool: "42", or "42.7" for a sub-pool
        const ReliableQueue queue(m_keys.campaignTasks(id), m_keys.campaignBackup(id, workerId), m_keys.campaignDeadLetter(id));
        hadEntries = reclaimBackup(m_redis, queue, isDone, report) || hadEntries;
    }
    return hadEntries;
}

} // namespace lantern
