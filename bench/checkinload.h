#pragma once

#include "phasefigures.h"

#include "core/config.h"
#include "redis/redisurl.h"

#include <QDate>

#include <vector>

namespace lantern {
class KeySchema;
}

namespace lantern::bench {

struct CheckinLoadOptions {
    RedisUrl redis;
    int clients = 50;  // threads, each with its own blocking RedisClient and CheckinService
    QDate day;         // signed by every uid; also "today"
    CheckinRules rules;
};

/** Checks in every uid once through CheckinService from `clients` threads. The threads take uids
    from a shared cursor, so all of them stay busy until the last request. Timing starts once
    every client has connected; `fresh` is left at 0 for the caller to count on the server.
    Throws the first error any thread met. */
PhaseFigures runCheckinLoad(const CheckinLoadOptions &options, const KeySchema &keys, const std::vector<qint64> &uids);

} // namespace lantern::bench
