#pragma once

#include <QList>

#include <optional>

namespace lantern {

/** One refresh of the Queues view: the backlog of every queue together, and how fast it went
    down since the previous refresh (net of new arrivals, so a busy queue that keeps its depth
    drains at "0"; never negative). */
struct QueueSample {
    qint64 atMs = 0;
    qint64 depth = 0;
    std::optional<double> drainedPerS;  // none for the first sample
};

/** The samples behind the throughput chart, oldest first, at most `capacity` (the oldest goes). */
class QueueHistory final {
public:
    explicit QueueHistory(int capacity = 120) : m_capacity(capacity) {}

    /** Adds a sample; one not later than the last is ignored (a stale answer). */
    void add(qint64 atMs, qint64 depth);
    void clear() { m_samples.clear(); }

    const QList<QueueSample> &samples() const { return m_samples; }
    int capacity() const { return m_capacity; }
    qint64 maxDepth() const;
    double maxDrainedPerS() const;

private:
    int m_capacity;
    QList<QueueSample> m_samples;
};

} // namespace lantern
