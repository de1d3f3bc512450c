#include "redis/setscan.h"

#include "redis/redisclient.h"
#include "redis/rediserror.h"

#include <QSet>

namespace lantern {

QByteArrayList scanSet(RedisClient &redis, const QByteArray &key, int count)
{
    QByteArrayList members;
    QSet<QByteArray> seen;
    QByteArray cursor = QByteArrayLiteral("0");
    do {
        const RedisValue page = redis.command({QByteArrayLiteral("SSCAN"), key, cursor, QByteArrayLiteral("COUNT"), QByteArray::number(count)});
        if (page.isError() || page.elements.size() != 2)
            throw RedisReplyError(QStringLiteral("SSCAN %1: unexpected reply").arg(QString::fromUtf8(key)));
        cursor = page.elements[0].toBytes();
        for (const RedisValue &member : page.elements[1].elements) {
            const QByteArray bytes = member.toBytes();
            if (!seen.contains(bytes)) {
                seen.insert(bytes);
                members << bytes;
            }
        }
    } while (cursor != "0");
    return members;
}

} // namespace lantern
