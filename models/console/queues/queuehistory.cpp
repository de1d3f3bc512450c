#include "console/queues/queuehistory.h"

#include "console/common/gapruns.h"

#include <algorithm>

namespace lantern {

void QueueHistory::add(qint64 atMs, qint64 depth)
{
    QueueSample sample{atMs, depth, std::nullopt};
    if (!m_samples.isEmpty()) {
        const QueueSample &last = m_samples.constLast();
        if (atMs <= last.atMs)
            return;
        const qint64 pause = atMs - last.atMs;
        const qint64 before = m_samples.size() >= 2 && !last.afterGap ? last.atMs - m_samples.at(m_samples.size() - 2).atMs : 0;
        sample.afterGap = pause > (before > 0 ? std::max(MinimumGapMs, GapFactor * before) : FirstGapMs);
        if (!sample.afterGap)
            sample.drainedPerS = double(std::max<qint64>(0, last.depth - depth)) * 1000.0 / double(pause);
    }
    if (m_samples.size() >= m_capacity)
        m_samples.removeFirst();
    m_samples << sample;
}

QList<QList<QueueSample>> QueueHistory::runs() const
{
    return runsBetweenGaps(m_samples);
}

qint64 QueueHistory::maxDepth() const
{
    qint64 most = 0;
    for (const QueueSample &sample : m_samples)
        most = std::max(most, sample.depth);
    return most;
}

double QueueHistory::maxDrainedPerS() const
{
    double most = 0;
    for (const QueueSample &sample : m_samples)
        most = std::max(most, sample.drainedPerS.value_or(0.0));
    return most;
}

} // namespace lantern
