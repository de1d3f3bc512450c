#pragma once

#include <QList>

namespace lantern {

/** Cuts a time series at its gaps: runs of points a chart may join with a line. `Point` has a
    `bool afterGap` (nothing was read for a long time before it). Oldest first, as given. */
template <typename Point>
QList<QList<Point>> runsBetweenGaps(const QList<Point> &points)
{
    QList<QList<Point>> runs;
    for (const Point &point : points) {
        if (runs.isEmpty() || point.afterGap)
            runs.append(QList<Point>());
        runs.last().append(point);
    }
    return runs;
}

} // namespace lantern
