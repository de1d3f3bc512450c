#include "envelope/poolcounters.h"

#include "redis/keyschema.h"
#include "redis/rediserror.h"
#include "redis/redisvalue.h"

namespace lantern {

namespace {

constexpr int FieldCount = 5;

qint64 integerOrZero(const RedisValue &value)
{
    return value.isNil() ? 0 : value.toInteger();
}

} // namespace

QByteArrayList PoolCounters::readCommand(const KeySchema &keys, const QByteArray &pool)
{
    return {QByteArrayLiteral("HMGET"),         keys.campaignMeta(pool),          QByteArrayLiteral("status"),
            QByteArrayLiteral("grabbed_count"), QByteArrayLiteral("grabbed_cents"), QByteArrayLiteral("count"),
            QByteArrayLiteral("borrowed_count")};
}

PoolCounters PoolCounters::fromReply(const RedisValue &reply)
{
    throwOnErrorReply(reply);
    if (reply.type != RedisValue::Type::Array || reply.elements.size() != FieldCount)
        throw RedisReplyError(QStringLiteral("a pool's counters: expected %1 fields from HMGET, got a reply of another shape").arg(FieldCount));
    const std::vector<RedisValue> &fields = reply.elements;
    PoolCounters counters;
    counters.status = fields[0].isNil() ? QByteArray() : fields[0].toBytes();
    counters.grabbedCount = integerOrZero(fields[1]);
    counters.grabbedCents = integerOrZero(fields[2]);
    counters.count = integerOrZero(fields[3]);
    counters.borrowedCount = integerOrZero(fields[4]);
    return counters;
}

} // namespace lantern
