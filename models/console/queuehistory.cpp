#include "console/queuehistory.h"

#include <algorithm>

namespace lantern {

void QueueHistory::add(qint64 atMs, qint64 depth)
{
    QueueSample sample{atMs, depth, std::nullopt};
    if (!m_samples.isEmpty()) {
        const QueueSample &last = m_samples.constLast();
        if (atMs <= last.atMs)
            return;
        sample.drainedPerS = double(std::max<qint64>(0, last.depth - depth)) * 1000.0 / double(atMs - last.atMs);
    }
    if (m_samples.size() >= m_capacity)
        m_samples.removeFirst();
    m_samples << sample;
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
