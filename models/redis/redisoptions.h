#pragma once

#include <chrono>

namespace lantern {

/** How a client of a Redis Cluster routes (docs/cluster.md): apart from the connection's own
    options, as redis-plus-plus keeps ClusterOptions apart from ConnectionOptions. */
struct RedisClusterOptions {
    std::chrono::milliseconds retryWindow{5000};  // how long a request waits out TRYAGAIN, CLUSTERDOWN, LOADING
                                                  // and a master it cannot reach (backing off, reading the slot
                                                  // map again) before it is an outage
    std::chrono::milliseconds mapMaxAge{10000};   // the slot map is read again when older than this
    int maxRedirects = 16;                        // MOVED/ASK replies one command may follow
};

/** A connection's options; where the server is and how to reach it (TLS) are the URL's. */
struct RedisOptions {
    std::chrono::milliseconds connectTimeout{1000};  // TCP connect and TLS handshake
    std::chrono::milliseconds commandTimeout{3000};  // per reply (AUTH and SELECT included)
    // A connection idle this long is asked whether the server hung up before it is used again
    // (RedisConnection::isUsable); 0 asks every time.
    std::chrono::microseconds idleBeforeHangUpCheck{1000};
    bool readOnly = false;  // only commands that read (RedisClient::isReadCommand) are sent
    RedisClusterOptions cluster{};  // on a Redis Cluster only
};

} // namespace lantern
