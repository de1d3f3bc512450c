#include "envelope/poolretirement.h"

#include "envelope/campaignpools.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"

#include <QRandomGenerator>

namespace lantern {

QByteArrayList PoolRetirement::run(int limit, bool lock)
{
    if (lock && m_redis.command({"SET", m_keys.retirementLock(), "1", "NX", "EX", QByteArray::number(LockSeconds)}).isNil())
        return {};  // another worker is at it
    // 1. Which pools belong to a closed campaign and hold nothing themselves.
    const QByteArrayList pools = CampaignPools::launched(m_redis, m_keys);
    QList<QByteArrayList> commands;
    for (const QByteArray &pool : pools)
        commands << QByteArrayList{"HGET", m_keys.campaignMeta(pool), "status"} << QByteArrayList{"LLEN", m_keys.campaignTasks(pool)}
                 << QByteArrayList{"LLEN", m_keys.campaignDeadLetter(pool)} << QByteArrayList{"HLEN", m_keys.campaignLent(pool)};
    commands << QByteArrayList{"SMEMBERS", m_keys.workerSet()};
    const std::vector<RedisValue> replies = m_redis.pipeline(commands);
    throwOnErrorReply(replies);
    // From a random place on, so pools a dead worker still holds do not stop the others for ever.
    QByteArrayList candidates;
    const qsizetype start = pools.isEmpty() ? 0 : qsizetype(QRandomGenerator::global()->bounded(quint64(pools.size())));
    for (qsizetype n = 0; n < pools.size() && candidates.size() < limit; ++n) {
        const qsizetype i = (start + n) % pools.size();
        const size_t at = size_t(i) * 4;
        if (!replies[at].isNil() && replies[at].toBytes() == "closed" && replies[at + 1].toInteger() == 0 && replies[at + 2].toInteger() == 0
            && replies[at + 3].toInteger() == 0)
            candidates << pools[i];
    }
    if (candidates.isEmpty())
        return {};
    // 2. Whether any worker the system knows (alive or dead) holds one of their tasks.
    QByteArrayList workers;
    for (const RedisValue &worker : replies.back().elements)
        workers << worker.toBytes();
    QByteArrayList retired;
    if (workers.isEmpty()) {
        retired = candidates;
    } else {
        QList<QByteArrayList> lengths;
        for (const QByteArray &pool : std::as_const(candidates)) {
            for (const QByteArray &worker : std::as_const(workers))
                lengths << QByteArrayList{"LLEN", m_keys.campaignBackup(pool, QString::fromUtf8(worker))};
        }
        const std::vector<RedisValue> held = m_redis.pipeline(lengths);
        throwOnErrorReply(held);
        for (qsizetype c = 0; c < candidates.size(); ++c) {
            bool empty = true;
            for (qsizetype w = 0; w < workers.size() && empty; ++w)
                empty = held[size_t(c * workers.size() + w)].toInteger() == 0;
            if (empty)
                retired << candidates[c];
        }
    }
    // 3. Into the retired set, then out of the launched one (two keys of different slots on a
    //    cluster: no SMOVE; a pool caught between the two is in both, which is harmless).
    if (!retired.isEmpty()) {
        QByteArrayList add{"SADD", m_keys.retiredCampaignSet()};
        QByteArrayList remove{"SREM", m_keys.campaignSet()};
        add << retired;
        remove << retired;
        throwOnErrorReply(m_redis.command(add));
        throwOnErrorReply(m_redis.command(remove));
    }
    return retired;
}

} // namespace lantern
