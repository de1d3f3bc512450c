#include "envelope/enveloperecovery.h"

#include "envelope/campaignpools.h"
#include "envelope/payouttask.h"
#include "queue/reliablequeue.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

namespace lantern {

EnvelopeRecovery::EnvelopeRecovery(RedisClient &redis, SqlConnection &sql, const KeySchema &keys) : m_redis(redis), m_sql(sql), m_keys(keys) {}

bool EnvelopeRecovery::reclaim(const QString &workerId, RecoveryReport &report)
{
    const auto isDone = [this](const QByteArray &raw) -> std::optional<bool> {
        const auto task = PayoutTask::fromJson(raw);
        if (!task)
            return std::nullopt;
        return m_sql.exec(QStringLiteral("SELECT 1 FROM payout WHERE idempotency_key = ? AND status = 'paid'"), {task->idempotencyKey()}).next();
    };
    bool hadEntries = false;
    for (const QByteArray &id : CampaignPools::launched(m_redis, m_keys)) {  // a pool: "42", or "42.7" for a sub-pool
        const ReliableQueue queue(m_keys.campaignTasks(id), m_keys.campaignBackup(id, workerId), m_keys.campaignDeadLetter(id));
        hadEntries = reclaimBackup(m_redis, queue, isDone, report) || hadEntries;
    }
    return hadEntries;
}

} // namespace lantern
