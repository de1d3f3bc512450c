#pragma once

#include "httpsettings.h"

#include <QString>

#include <functional>

namespace lantern {
class RedisClient;
}

namespace lantern::bench {

/** The grab storm of a scheduled launch through `lanternd serve` (issue 30): wrk sends every line
    of a bearer file once (each a different user) from 200 ms before T, against a serve of the run's
    prefix, while the bench watches the campaign's pool on Redis's clock. wrk starts at T. */
struct StormAtT {
    qint64 ok = 0;
    qint64 notLive = 0;   // answered before the status changed
    qint64 soldOut = 0;
    qint64 other = 0;     // any other outcome (too_many_attempts cannot happen: one attempt each)
    qint64 non2xx = 0;
    double perSecond = 0;
    double p99Ms = 0;
    qint64 poolEmptyMs = -1;  // Redis TIME when grabbed_count reached the envelopes, minus T; -1: not emptied
};

struct StormAtTSetup {
    HttpSettings http;       // the run's prefix in http.bench.prefix
    QString db;
    QString workDir;         // serve's output files
    QString bearerFile;
    qint64 lines = 0;
    qint64 campaign = 0;
    qint64 envelopes = 0;
    qint64 launchAtMs = 0;   // T, on Redis's clock
};

/** Starts serve and, on a thread of its own, wrk at T, while `duringStorm` runs on this one (the
    bench's prober, from 200 ms before T); then watches the pool until wrk is done. Throws
    LanternError when serve or wrk fail. */
StormAtT runStormAtT(const StormAtTSetup &setup, RedisClient &redis, const std::function<void()> &duringStorm);

} // namespace lantern::bench
