#pragma once

#include <QByteArray>
#include <QByteArrayList>

namespace lantern {

class RedisClient;

/** A set's members read with SSCAN in pages of about `count` (issue 26): each command bounded,
    where one SMEMBERS of a set of thousands is one long command on the server. Members are
    returned once each (SSCAN may return one twice while the set is rehashed). */
QByteArrayList scanSet(RedisClient &redis, const QByteArray &key, int count = 100);

} // namespace lantern
