#include "queue/workerheartbeat.h"

#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"

#include <QProcessEnvironment>

namespace lantern {

WorkerHeartbeat::WorkerHeartbeat(const KeySchema &keys, QString workerId, int ttlSeconds)
    : m_keys(keys), m_workerId(std::move(workerId)), m_ttlSeconds(ttlSeconds)
{
    KeySchema::validateWorkerId(m_workerId);
}

void WorkerHeartbeat::beat(RedisClient &redis, qint64 nowMs)
{
    redis.pipeline({{QByteArrayLiteral("SET"), m_keys.workerHeartbeat(m_workerId), QByteArray::number(nowMs), QByteArrayLiteral("EX"),
                     QByteArray::number(m_ttlSeconds)},
                    {QByteArrayLiteral("SADD"), m_keys.workerSet(), m_workerId.toUtf8()}});
}

void WorkerHeartbeat::stop(RedisClient &redis)
{
    redis.command({QByteArrayLiteral("DEL"), m_keys.workerHeartbeat(m_workerId)});
}

int WorkerHeartbeat::configuredTtlSeconds()
{
    const QString text = QProcessEnvironment::systemEnvironment().value(QStringLiteral("LANTERN_HEARTBEAT_TTL_S"));
    if (text.isEmpty())
        return 15;
    bool ok = false;
    const int ttl = text.toInt(&ok);
    if (!ok || ttl < 1 || ttl > 3600)
        throw InvalidInputError(tr("invalid LANTERN_HEARTBEAT_TTL_S '%1': expected 1 to 3600 seconds").arg(text));
    return ttl;
}

} // namespace lantern
