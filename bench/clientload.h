#pragma once

#include "phasefigures.h"

#include "redis/redisurl.h"

#include <functional>
#include <vector>

namespace lantern {
class RedisClient;
}

namespace lantern::bench {

/** One client's request for one uid, run on the client's own thread. */
using ClientRequest = std::function<void(qint64 uid)>;
/** Builds one client's request around that client's own connection (called on its thread,
    before the timing starts), e.g. a service object over `redis`. */
using ClientFactory = std::function<ClientRequest(RedisClient &redis)>;

/** Sends one request per uid from `clients` threads, each with its own blocking RedisClient. The
    threads take uids from a shared cursor, so all of them stay busy until the last request.
    Timing starts once every client has connected and built its request; `fresh` is left at 0
    for the caller to count on the server. Throws the first error any thread met. */
PhaseFigures runClientLoad(const RedisUrl &redis, int clients, const std::vector<qint64> &uids, const ClientFactory &factory);

} // namespace lantern::bench
