#include "nicescale.h"

#include <algorithm>
#include <cmath>

namespace lantern {

NiceScale NiceScale::covering(double value, int maxIntervals, double minimumStep)
{
    maxIntervals = std::max(1, maxIntervals);
    value = std::max(value, 0.0);
    double magnitude = std::pow(10.0, std::floor(std::log10(std::max(minimumStep, value / maxIntervals))));
    for (;;) {
        for (const double factor : {1.0, 2.0, 5.0}) {
            const double step = factor * magnitude;
            if (step < minimumStep)
                continue;
            const double intervals = std::max(1.0, std::ceil(value / step - 1e-9));
            if (intervals <= maxIntervals)
                return {intervals * step, step};
        }
        magnitude *= 10;
    }
}

qint64 NiceScale::timeStepMs(qint64 spanMs, int maxIntervals)
{
    static constexpr qint64 Steps[] = {1'000, 2'000, 5'000, 10'000, 15'000, 30'000, 60'000, 120'000, 300'000, 600'000, 900'000, 1'800'000, 3'600'000};
    for (const qint64 step : Steps) {
        if (spanMs <= step * std::max(1, maxIntervals))
            return step;
    }
    return 3'600'000 * ((spanMs / std::max(1, maxIntervals)) / 3'600'000 + 1);
}

} // namespace lantern
