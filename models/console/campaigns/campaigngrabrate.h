#pragma once

#include <QList>
#include <QtGlobal>

namespace lantern {

/** Grabs per second from successive readings of a campaign's grabbed_count (each refresh of the
    live view is one reading). Bounded: keeps the newest `capacity` points. A reading of another
    campaign, or a count that went down, starts over. */
class GrabRateSeries final {
public:
    struct Point {
        qint64 atMs = 0;        // the later reading's time
        double perSecond = 0;   // a rate, not money
    };

    explicit GrabRateSeries(int capacity = 120) : m_capacity(capacity) {}

    /** Adds a reading; returns true when it produced a point. Readings less than 200 ms apart
        are folded (too short to mean anything). */
    bool addReading(qint64 campaignId, qint64 atMs, qint64 grabbedCount);
    void clear();

    qint64 campaignId() const { return m_campaignId; }
    const QList<Point> &points() const { return m_points; }
    double peak() const;
    /** Readings so far for the current campaign (a rate needs two). */
    int readings() const { return m_readings; }

private:
    int m_capacity;
    qint64 m_campaignId = 0;
    qint64 m_lastMs = 0;
    qint64 m_lastCount = 0;
    int m_readings = 0;
    QList<Point> m_points;
};

} // namespace lantern
