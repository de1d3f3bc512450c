#include "redis/masterscan.h"

#include "redis/redisclient.h"
#include "redis/rediserror.h"

namespace lantern {

void MasterScan::run(RedisClient &redis, const QByteArray &pattern, int count, const std::function<void(const QByteArrayList &keys)> &page)
{
    const QByteArrayList first{QByteArrayLiteral("SCAN"), QByteArrayLiteral("0"), QByteArrayLiteral("MATCH"), pattern,
                               QByteArrayLiteral("COUNT"), QByteArray::number(count)};
    for (auto [master, reply] : redis.onEveryMaster(first)) {
        while (true) {
            throwOnErrorReply(reply);
            if (reply.elements.size() != 2)
                throw RedisReplyError(tr("unexpected SCAN reply from %1").arg(master.text()));
            const QByteArray cursor = reply.elements[0].toBytes();
            const QByteArrayList keys = reply.elements[1].toBytesList();
            if (!keys.isEmpty())
                page(keys);
            if (cursor == "0")
                break;
            QByteArrayList next = first;
            next[1] = cursor;
            reply = redis.onMaster(master, next);
        }
    }
}

} // namespace lantern
