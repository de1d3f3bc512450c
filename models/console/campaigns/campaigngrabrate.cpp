#include "console/campaigns/campaigngrabrate.h"

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
        return false;
    }
    if (atMs - m_lastMs < ShortestIntervalMs)
        return false;
    const double perSecond = double(grabbedCount - m_lastCount) * 1000.0 / double(atMs - m_lastMs);
    m_points << Point{atMs, perSecond};
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
    m_readings = 0;
    m_points.clear();
}

double GrabRateSeries::peak() const
{
    double most = 0;
    for (const Point &point : m_points)
        most = std::max(most, point.perSecond);
    return most;
}

} // namespace lantern
