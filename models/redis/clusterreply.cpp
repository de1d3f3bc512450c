#include "redis/clusterreply.h"

#include "redis/keyslot.h"

#include <QList>

namespace lantern::clusterreply {

QByteArray errorCode(const RedisValue &reply)
{
    const qsizetype space = reply.string.indexOf(' ');
    return space < 0 ? reply.string : reply.string.left(space);
}

std::optional<Redirect> redirectOf(const RedisValue &reply, const RedisEndpoint &from)
{
    if (!reply.isError())
        return std::nullopt;
    const QList<QByteArray> words = reply.string.split(' ');
    if (words.size() < 3 || (words.first() != "MOVED" && words.first() != "ASK"))
        return std::nullopt;
    bool slotOk = false;
    bool portOk = false;
    const int slot = words.at(1).toInt(&slotOk);
    const QByteArray &address = words.at(2);
    const qsizetype colon = address.lastIndexOf(':');
    if (!slotOk || slot < 0 || slot >= keyslot::SlotCount || colon < 0)
        return std::nullopt;
    const int port = address.mid(colon + 1).toInt(&portOk);
    if (!portOk || port <= 0 || port > 65535)
        return std::nullopt;
    QString host = QString::fromUtf8(address.left(colon));
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    return Redirect{words.first() == "ASK", slot, RedisEndpoint{host.isEmpty() ? from.host : host, port}};
}

} // namespace lantern::clusterreply
