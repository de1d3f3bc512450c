#include "redis/setscan.h"

#include "redis/redisclient.h"
#include "redis/rediserror.h"

#include <QSet>

namespace lantern {

QByteArrayList scanSet(RedisClient &redis, const QByteArray &key, int count, qint64 wholeUpTo)
{
    const auto sscan = [&](const QByteArray &cursor) -> QByteArrayList {
        return {QByteArrayLiteral("SSCAN"), key, cursor, QByteArrayLiteral("COUNT"), QByteArray::number(count)};
    };
    const auto checked = [&key](const RedisValue &page) -> const RedisValue & {
        if (page.isError() || page.elements.size() != 2)
            throw RedisReplyError(QStringLiteral("SSCAN %1: unexpected reply").arg(QString::fromUtf8(key)));
        return page;
    };
    // Round trip 1: the size and the first page (a small set is all in it).
    const std::vector<RedisValue> first = redis.pipeline({{QByteArrayLiteral("SCARD"), key}, sscan(QByteArrayLiteral("0"))});
    QByteArray cursor = checked(first[1]).elements[0].toBytes();
    if (cursor != "0" && first[0].toInteger() <= wholeUpTo) {
        const RedisValue all = redis.command({QByteArrayLiteral("SMEMBERS"), key});
        throwOnErrorReply(all);
        return all.toBytesList();
    }
    QByteArrayList members;
    QSet<QByteArray> seen;
    const auto take = [&](const RedisValue &page) {
        for (const RedisValue &member : page.elements[1].elements) {
            const QByteArray bytes = member.toBytes();
            if (!seen.contains(bytes)) {
                seen.insert(bytes);
                members << bytes;
            }
        }
    };
    take(first[1]);
    while (cursor != "0") {
        const RedisValue page = redis.command(sscan(cursor));
        cursor = checked(page).elements[0].toBytes();
        take(page);
    }
    return members;
}

} // namespace lantern
