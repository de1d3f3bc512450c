#pragma once

#include "redis/rediserror.h"
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

/** A command redirected more than this many times waits before it is sent again: a slot
    bouncing between two nodes at the end of a reshard. */
constexpr int RedirectsBeforeBackOff = 2;

/** What a client of a cluster does with one reply from `node` to a command that has been
    redirected `redirects` times before (docs/cluster.md): the one policy of the blocking client
    (RedisCluster) and of the event loops (RedisPipe). */
struct Decision {
    enum class Action {
        Answer,    // the reply is the command's answer (an error reply included)
        Redirect,  // send it to redirect.target (after ASKING when redirect.ask); MOVED points the slot there
        Wait,      // it did not run: send it again after a pause, within the retry window; then `notReady`
        GiveUp,    // redirected more than maxRedirects times: end with `notReady`
    };
    Action action = Action::Answer;
    Redirect redirect;                           // Redirect
    std::optional<RedisNotReadyError> notReady;  // Wait, GiveUp
    bool pauseFirst = false;                     // Redirect: wait before sending (more than RedirectsBeforeBackOff)
    bool readMapAgain = false;                   // the slot map is stale (MOVED, READONLY, every Wait)
};

/** -MOVED/-ASK: Redirect (GiveUp past `maxRedirects`); -TRYAGAIN, -CLUSTERDOWN, -LOADING,
    -MASTERDOWN, -READONLY: Wait; anything else, -BUSY included: Answer. */
Decision decide(const RedisValue &reply, const RedisEndpoint &node, int redirects, int maxRedirects);

} // namespace clusterreply
} // namespace lantern
