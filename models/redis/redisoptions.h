#pragma once

#include <chrono>

namespace lantern {

struct RedisOptions {
    std::chrono::milliseconds connectTimeout{1000};  // TCP connect + AUTH/SELECT
    std::chrono::milliseconds commandTimeout{3000};  // per reply
    bool readOnly = false;  // only commands that read (RedisClient::isReadCommand) are sent

    // On a Redis Cluster only (docs/cluster.md):
    std::chrono::milliseconds clusterRetryWindow{5000};  // how long a request waits out TRYAGAIN, CLUSTERDOWN,
                                                         // LOADING and a master it cannot reach (backing off,
                                                         // reading the slot map again) before it is an outage
    std::chrono::milliseconds clusterMapMaxAge{10000};   // the slot map is read again when older than this
    int clusterMaxRedirects = 16;                        // MOVED/ASK replies one command may follow
};

} // namespace lantern
