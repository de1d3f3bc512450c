#pragma once

#include <QList>
#include <QtGlobal>

namespace lantern {

/** Grabs per second from successive readings of a campaign's grabbed_count (each refresh of the
    live view is one reading). Bounded: keeps the newest `capacity` points. A reading of another
    campaign, or a count that went down, starts over. A reading after a silence (longer than GapMs
    and 2.5 times the interval before, or than FirstGapMs with no interval to compare) gives no
    rate — none is averaged across a time nothing was read — and the next point starts a new
    segment, so the chart leaves the silence blank instead of drawing a straight line across it
    (the rule of QueueHistory::runs()). */
class GrabRateSeries final {
public:
    struct Point {
        qint64 atMs = 0;        // the later reading's time
        double perSecond = 0;   // a rate, not money
        bool afterGap = false;  // nothing was read for a long time before this point
    };
    static constexpr qint64 GapMs = 5000;
    static constexpr qint64 FirstGapMs = 61'000;

    explicit GrabRateSeries(int capacity = 120) : m_capacity(capacity) {}

    /** Adds a reading; returns true when it produced a point. Readings less than 200 ms apart
        are folded (too short to mean anything). */
    bool addReading(qint64 campaignId, qint64 atMs, qint64 grabbedCount);
    void clear();

    qint64 campaignId() const { return m_campaignId; }
    const QList<Point> &points() const { return m_points; }
    /** The points cut at each gap: runs of points a line may join. */
    QList<QList<Point>> segments() const;
    double peak() const;
    /** Readings so far for the current campaign (a rate needs two). */
    int readings() const { return m_readings; }

private:
    int m_capacity;
    qint64 m_campaignId = 0;
    qint64 m_lastMs = 0;
    qint64 m_lastCount = 0;
    qint64 m_lastIntervalMs = 0;  // between the last two readings; 0: none to compare
    bool m_afterGap = false;      // the next point follows a silence
    int m_readings = 0;
    QList<Point> m_points;
};

} // namespace lantern
