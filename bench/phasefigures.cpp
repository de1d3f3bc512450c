#include "phasefigures.h"

#include <algorithm>
#include <cmath>

#include <sys/resource.h>

namespace lantern::bench {

namespace {

/** The nearest-rank percentile, as HdrHistogram (redis-benchmark) reports it. */
double percentileMs(std::vector<qint64> &ns, double percent)
{
    const auto rank = static_cast<size_t>(std::ceil(percent / 100.0 * static_cast<double>(ns.size())));
    const auto nth = ns.begin() + static_cast<std::ptrdiff_t>(std::max<size_t>(rank, 1) - 1);
    std::nth_element(ns.begin(), nth, ns.end());
    return static_cast<double>(*nth) / 1e6;
}

} // namespace

void setPercentiles(PhaseFigures &figures, std::vector<qint64> &latenciesNs)
{
    if (latenciesNs.empty())
        return;
    figures.p50Ms = percentileMs(latenciesNs, 50);
    figures.p99Ms = percentileMs(latenciesNs, 99);
}

double cpuMicros(int who)
{
    rusage usage{};
    getrusage(who, &usage);
    const auto micros = [](const timeval &tv) { return static_cast<double>(tv.tv_sec) * 1e6 + static_cast<double>(tv.tv_usec); };
    return micros(usage.ru_utime) + micros(usage.ru_stime);
}

} // namespace lantern::bench
