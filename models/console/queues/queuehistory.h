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
    std::optional<double> drainedPerS;  // none for the first sample, and after a gap
    bool afterGap = false;              // nothing was read for a while before it (view hidden, refresh paused, failures)
};

/** The samples behind the throughput chart, oldest first, at most `capacity` (the oldest goes). */
class QueueHistory final {
public:
    explicit QueueHistory(int capacity = 120) : m_capacity(capacity) {}

    /** A pause between two samples longer than GapFactor times the one before it (and than
        MinimumGapMs) is a gap — or longer than FirstGapMs (past the slowest auto-refresh) when
        there is no pause before it to compare with: the chart shows it as one instead of a line
        across it, and no rate is averaged over it. */
    static constexpr int GapFactor = 3;
    static constexpr qint64 MinimumGapMs = 10'000;
    static constexpr qint64 FirstGapMs = 61'000;

    /** Adds a sample; one not later than the last is ignored (a stale answer). */
    void add(qint64 atMs, qint64 depth);
    /** The samples in runs without a gap, oldest first. */
    QList<QList<QueueSample>> runs() const;
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
