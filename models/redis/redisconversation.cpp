#include "redis/redisconversation.h"

#include "redis/luascript.h"
#include "redis/redisclient.h"

#include <stdexcept>

namespace lantern {

bool isMissingScript(const QByteArrayList &command, const RedisValue &reply)
{
    return reply.isError() && reply.string.startsWith("NOSCRIPT") && !command.isEmpty() && command.front() == "EVALSHA";
}

QByteArrayList withScriptBody(const QByteArrayList &command)
{
    const QByteArray body = LuaScript::bodyForSha1(command.value(1));
    if (body.isEmpty())
        throw std::logic_error("EVALSHA of a script this process does not hold: " + command.value(1).toStdString());
    QByteArrayList eval = command;
    eval[0] = QByteArrayLiteral("EVAL");
    eval[1] = body;
    return eval;
}

void runConversation(RedisClient &redis, RedisConversation &conversation)
{
    for (QList<QByteArrayList> round = conversation.nextRound(); !round.isEmpty(); round = conversation.nextRound()) {
        std::vector<RedisValue> replies = redis.pipeline(round);
        // EVAL caches the script on the server, so later EVALSHAs of it find it again.
        for (qsizetype i = 0; i < round.size(); ++i) {
            if (isMissingScript(round.at(i), replies.at(size_t(i))))
                replies[size_t(i)] = redis.pipeline({withScriptBody(round.at(i))}).front();
        }
        conversation.takeReplies(std::move(replies));
    }
}

} // namespace lantern
