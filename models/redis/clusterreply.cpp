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

Decision decide(const RedisValue &reply, const RedisEndpoint &node, int redirects, int maxRedirects)
{
    Decision decision;
    if (!reply.isError())
        return decision;
    if (const auto redirect = redirectOf(reply, node)) {
        if (redirects + 1 > maxRedirects) {
            decision.action = Decision::Action::GiveUp;
            decision.notReady = RedisNotReadyError::at(RedisNotReadyError::State::TryAgain, node.host, node.port);
            return decision;
        }
        decision.action = Decision::Action::Redirect;
        decision.redirect = *redirect;
        decision.pauseFirst = redirects + 1 > RedirectsBeforeBackOff;
        decision.readMapAgain = !redirect->ask;
        return decision;
    }
    const bool readOnly = errorCode(reply) == "READONLY";  // a master demoted to a replica
    const auto state = RedisNotReadyError::stateOf(reply.string);
    if ((state && *state != RedisNotReadyError::State::Busy) || readOnly) {
        decision.action = Decision::Action::Wait;
        decision.notReady = RedisNotReadyError::at(state.value_or(RedisNotReadyError::State::ClusterDown), node.host, node.port);
        decision.readMapAgain = true;
    }
    return decision;
}

} // namespace lantern::clusterreply
