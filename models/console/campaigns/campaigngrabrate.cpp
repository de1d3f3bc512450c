#include "console/campaigns/campaigngrabrate.h"

#include "console/common/gapruns.h"

#include <algorithm>

namespace lantern {

namespace {
constexpr qint64 ShortestIntervalMs = 200;
} // namespace

bool GrabRateSeries::addReading(qint64 campaignId, qint64 atMs, qint64 grabbedCount)
{
    if (campaignId != m_campaignId || m_readings == 0 || grabbedCount < m_lastCount || atMs < m_lastMs) {
        if (campaignId != m_campaignId)
            m_points.clear();
        m_campaignId = campaignId;
        m_lastMs = atMs;
        m_lastCount = grabbedCount;
        m_readings = 1;
        m_lastIntervalMs = 0;
        m_afterGap = false;
        return false;
    }
    if (atMs - m_lastMs < ShortestIntervalMs)
        return false;
    const qint64 interval = atMs - m_lastMs;
    const qint64 silence = m_lastIntervalMs > 0 ? std::max<qint64>(GapMs, m_lastIntervalMs * 5 / 2) : FirstGapMs;
    if (interval > silence) {
        m_afterGap = !m_points.isEmpty();
        m_lastMs = atMs;
        m_lastCount = grabbedCount;
        m_lastIntervalMs = 0;
        ++m_readings;
        return false;
    }
    const double perSecond = double(grabbedCount - m_lastCount) * 1000.0 / double(interval);
    m_points << Point{atMs, perSecond, m_afterGap};
    m_afterGap = false;
    m_lastIntervalMs = interval;
    while (m_points.size() > m_capacity)
        m_points.removeFirst();
    m_lastMs = atMs;
    m_lastCount = grabbedCount;
    ++m_readings;
    return true;
}

void GrabRateSeries::clear()
{
    m_campaignId = 0;
    m_lastMs = 0;
    m_lastCount = 0;
    m_lastIntervalMs = 0;
    m_afterGap = false;
    m_readings = 0;
    m_points.clear();
}

QList<QList<GrabRateSeries::Point>> GrabRateSeries::segments() const
{
    return runsBetweenGaps(m_points);
}

double GrabRateSeries::peak() const
{
    double most = 0;
    for (const Point &point : m_points)
        most = std::max(most, point.perSecond);
    return most;
}

} // namespace lantern
