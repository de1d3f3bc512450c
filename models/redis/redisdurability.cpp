#include "redis/redisdurability.h"

#include "redis/redisclient.h"

namespace lantern {

RedisDurability RedisDurability::read(RedisClient &redis)
{
    RedisDurability durability;
    const std::vector<RedisValue> replies = redis.pipeline({{"CONFIG", "GET", "appendonly"}, {"CONFIG", "GET", "appendfsync"}});
    for (const RedisValue &reply : replies) {
        if (reply.isError() || reply.elements.size() != 2)
            return durability;  // CONFIG renamed or refused by an ACL: Unknown
    }
    durability.appendOnly = QString::fromLatin1(replies[0].elements[1].toBytes());
    durability.appendFsync = QString::fromLatin1(replies[1].elements[1].toBytes());
    if (durability.appendOnly != QLatin1String("yes"))
        durability.loss = Loss::SinceSave;
    else if (durability.appendFsync == QLatin1String("always"))
        durability.loss = Loss::None;
    else if (durability.appendFsync == QLatin1String("everysec"))
        durability.loss = Loss::OneSecond;
    else
        durability.loss = Loss::OsFlush;
    return durability;
}

QString RedisDurability::warning() const
{
    switch (loss) {
    case Loss::None:
        return {};
    case Loss::OneSecond:
        return tr("Redis writes its AOF to disk once a second (appendfsync everysec): an OS crash can lose about the last second of "
                  "grabs users were told they won. The ledger pays nobody twice and a repair rebuilds the campaign from SQL, but those "
                  "users are not paid. Set appendfsync always to lose none.");
    case Loss::OsFlush:
        return tr("Redis leaves flushing its AOF to the OS (appendfsync no): an OS crash can lose about the last 30 seconds of grabs "
                  "users were told they won. Set appendfsync always to lose none.");
    case Loss::SinceSave:
        return tr("Redis keeps no AOF (appendonly no): a restart loses every grab since its last snapshot, grabs users were told they "
                  "won. Set appendonly yes and appendfsync always to lose none.");
    case Loss::Unknown:
        return tr("Redis does not say how it persists (CONFIG GET is not allowed): unless it runs appendonly yes with appendfsync "
                  "always, a crash can lose grabs users were told they won.");
    }
    return {};
}

} // namespace lantern
