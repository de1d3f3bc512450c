#include "operations/workerheartbeat.h"

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

void WorkerHeartbeat::beat(RedisClient &redis, qint64 nowMs, std::optional<WorkerPayoutFigures> payouts)
{
    QList<QByteArrayList> commands{{QByteArrayLiteral("SET"), m_keys.workerHeartbeat(m_workerId), QByteArray::number(nowMs), QByteArrayLiteral("EX"),
                                    QByteArray::number(m_ttlSeconds)},
                                   {QByteArrayLiteral("SADD"), m_keys.workerSet(), m_workerId.toUtf8()}};
    if (payouts) {
        if (m_lastPaidMs > 0 && nowMs > m_lastPaidMs && payouts->paid >= m_lastPaid)
            payouts->paidPerSecond = double(payouts->paid - m_lastPaid) * 1000.0 / double(nowMs - m_lastPaidMs);
        m_lastPaid = payouts->paid;
        m_lastPaidMs = nowMs;
        const QByteArray key = m_keys.workerPayouts(m_workerId);
        commands << QByteArrayList{QByteArrayLiteral("HSET"),          key,
                                   QByteArrayLiteral("paid"),          QByteArray::number(payouts->paid),
                                   QByteArrayLiteral("calls"),         QByteArray::number(payouts->calls),
                                   QByteArrayLiteral("errors"),        QByteArray::number(payouts->providerErrors),
                                   QByteArrayLiteral("in_flight"),     QByteArray::number(payouts->inFlight),
                                   QByteArrayLiteral("paid_per_s"),    QByteArray::number(payouts->paidPerSecond, 'f', 2),
                                   QByteArrayLiteral("checkins"),      QByteArray::number(payouts->checkinsPersisted),
                                   QByteArrayLiteral("grabs"),         QByteArray::number(payouts->grabsPersisted)};
        if (payouts->held)
            commands.last() << QByteArrayLiteral("held") << QByteArray::number(*payouts->held);
        commands << QByteArrayList{QByteArrayLiteral("EXPIRE"), key, QByteArray::number(m_ttlSeconds)};
    }
    redis.pipeline(commands);
}

void WorkerHeartbeat::stop(RedisClient &redis)
{
    // One DEL per key: on a Redis Cluster the two keys can live on different nodes.
    redis.pipeline({{QByteArrayLiteral("DEL"), m_keys.workerHeartbeat(m_workerId)}, {QByteArrayLiteral("DEL"), m_keys.workerPayouts(m_workerId)}});
}

void WorkerHeartbeat::retire(RedisClient &redis)
{
    stop(redis);
    redis.command({QByteArrayLiteral("SREM"), m_keys.workerSet(), m_workerId.toUtf8()});
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
