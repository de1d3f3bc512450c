#include "operations/heartbeatpacer.h"

#include <QDateTime>

namespace lantern {

HeartbeatPacer::HeartbeatPacer(WorkerHeartbeat &heartbeat, RedisClient &redis, std::function<WorkerPayoutFigures()> figures)
    : m_heartbeat(heartbeat), m_redis(redis), m_figures(std::move(figures))
{
}

void HeartbeatPacer::operator()()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (now - m_lastBeatMs >= m_heartbeat.ttlSeconds() * 1000 / 3) {
        m_lastBeatMs = now;
        m_heartbeat.beat(m_redis, now, m_figures());
    }
}

} // namespace lantern
