#include "redis/rediserror.h"

#include <QCoreApplication>

namespace lantern {

std::optional<RedisNotReadyError::State> RedisNotReadyError::stateOf(const QByteArray &errorReply)
{
    // The first word only: -BUSYGROUP and -BUSYKEY are ordinary refusals, not a busy server.
    const qsizetype space = errorReply.indexOf(' ');
    const QByteArray code = space < 0 ? errorReply : errorReply.left(space);
    if (code == "LOADING")
        return State::Loading;
    if (code == "BUSY")
        return State::Busy;
    if (code == "MASTERDOWN")
        return State::MasterDown;
    if (code == "CLUSTERDOWN")
        return State::ClusterDown;
    if (code == "TRYAGAIN")
        return State::TryAgain;
    return std::nullopt;
}

RedisNotReadyError RedisNotReadyError::at(State state, const QString &host, int port)
{
    const char *text = nullptr;
    switch (state) {
    case State::Loading: text = QT_TRANSLATE_NOOP("lantern::RedisClient", "Redis at %1:%2 is loading its dataset"); break;
    case State::Busy: text = QT_TRANSLATE_NOOP("lantern::RedisClient", "Redis at %1:%2 is busy running a script"); break;
    case State::MasterDown:
        text = QT_TRANSLATE_NOOP("lantern::RedisClient", "Redis at %1:%2 is a replica that lost its link to the primary");
        break;
    case State::ClusterDown: text = QT_TRANSLATE_NOOP("lantern::RedisClient", "the Redis cluster of %1:%2 is down"); break;
    case State::TryAgain:
        text = QT_TRANSLATE_NOOP("lantern::RedisClient", "Redis at %1:%2 is moving the keys of this request to another node");
        break;
    }
    return RedisNotReadyError(state, QCoreApplication::translate("lantern::RedisClient", text).arg(host).arg(port));
}

} // namespace lantern
