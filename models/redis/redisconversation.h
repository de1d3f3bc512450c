#pragma once

#include "redis/redisvalue.h"

#include <QByteArrayList>
#include <QList>

#include <vector>

namespace lantern {

class RedisClient;

/** Work that talks to Redis in rounds: each round is a pipeline of commands sent together, then
    their replies. The same conversation runs on a blocking RedisClient (runConversation) or on
    `lanternd serve`'s RedisPipe, which batches the rounds of many requests into one write, so
    the logic of a check-in or a grab exists once. */
class RedisConversation {
public:
    virtual ~RedisConversation() = default;

    /** The next round's commands; empty when the conversation is over. Scripts go as EVALSHA
        of a LuaScript: a server that does not know the script is sent its body (EVAL) instead. */
    virtual QList<QByteArrayList> nextRound() = 0;
    /** The replies of the round just sent, in order; error replies come as values. Throws
        (RedisReplyError, RefusedError, ...) to end the conversation with that error. */
    virtual void takeReplies(std::vector<RedisValue> replies) = 0;
};

/** Runs `conversation` to its end on `redis`, one round trip per round (plus one for each
    script the server had not loaded). Throws what the client or the conversation throws. */
void runConversation(RedisClient &redis, RedisConversation &conversation);

/** Whether `reply` to `command` says the server lacks the script (EVALSHA answered NOSCRIPT). */
bool isMissingScript(const QByteArrayList &command, const RedisValue &reply);
/** `command` (an EVALSHA) as EVAL with the script's body; throws std::logic_error for a script
    that no LuaScript of this process holds. */
QByteArrayList withScriptBody(const QByteArrayList &command);

} // namespace lantern
