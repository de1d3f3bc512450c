#pragma once

#include "redis/redisurl.h"
#include "redis/redisvalue.h"

#include <QByteArray>

#include <optional>

namespace lantern {

/** What a Redis Cluster node's error reply asks of a client, shared by the blocking client
    (RedisCluster) and the event loops' RedisPipe. */
namespace clusterreply {

/** The error reply's first word: "MOVED", "ASK", "TRYAGAIN", "READONLY", ... */
QByteArray errorCode(const RedisValue &reply);

/** A -MOVED or -ASK reply: the slot and the node to send it to. */
struct Redirect {
    bool ask = false;  // ASK: this once, after ASKING, and the slot map stays as it is
    int slot = -1;
    RedisEndpoint target;
};

/** "MOVED 3999 127.0.0.1:6381" / "ASK 3999 :6381" (an empty host is `from`'s, the node that
    answered; IPv6 hosts are split at the last ':'); nullopt for any other reply, or one that
    cannot be followed. */
std::optional<Redirect> redirectOf(const RedisValue &reply, const RedisEndpoint &from);

} // namespace clusterreply
} // namespace lantern
