#include "common/chartaxes.h"

#include "console/common/nicescale.h"

#include <QDateTime>
#include <QDateTimeAxis>

#include <algorithm>

namespace lantern::ui {

void setRoundTimeRange(QDateTimeAxis *axis, qint64 firstMs, qint64 lastMs, int maxIntervals)
{
    const qint64 step = NiceScale::timeStepMs(lastMs - firstMs, maxIntervals);
    const qint64 from = firstMs / step * step;
    const qint64 to = std::max(from + step, (lastMs + step - 1) / step * step);
    axis->setRange(QDateTime::fromMSecsSinceEpoch(from), QDateTime::fromMSecsSinceEpoch(to));
    axis->setTickCount(int((to - from) / step) + 1);
    axis->setFormat(step < 60'000 ? QStringLiteral("HH:mm:ss") : QStringLiteral("HH:mm"));
}

} // namespace lantern::ui
