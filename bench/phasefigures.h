#pragma once

#include <QtGlobal>

#include <vector>

namespace lantern::bench {

/** What one benchmark phase measured. Latencies are per request, as the client saw them. */
struct PhaseFigures {
    qint64 requests = 0;
    double seconds = 0;
    double perSecond = 0;
    double p50Ms = 0;
    double p99Ms = 0;
    qint64 fresh = 0;         // requests that did the full work: entries the script queued
    double serverMicros = 0;  // the server's mean time per EVALSHA (INFO commandstats)
    double clientMicros = 0;  // the client's CPU time (user + system) per request
};

/** CPU time (user + system) used so far, in µs, by this process (RUSAGE_SELF) or by its
    waited-for children (RUSAGE_CHILDREN). */
double cpuMicros(int who);

/** Fills p50Ms and p99Ms from per-request latencies in nanoseconds (reorders them). */
void setPercentiles(PhaseFigures &figures, std::vector<qint64> &latenciesNs);

} // namespace lantern::bench
