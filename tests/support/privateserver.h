#pragma once

#include <QByteArray>
#include <QString>

namespace lantern::test {

// What the servers of a test's own (PrivateMariaDb, PrivateRedis) share.

/** A TCP port on 127.0.0.1, free right now, from 10000 up to (not including) the kernel's
    ephemeral range and `below`: no outgoing connection can take it while the server is down
    between a stop and a restart. Throws std::runtime_error when none is found. */
int pickPrivatePort(int below = 65536);

/** The value of `name` in an INFO or CLUSTER INFO reply ("name:value" lines); empty if absent. */
QByteArray infoField(const QByteArray &info, const QByteArray &name);

/** The bytes of `path` from `offset` on (a server log since a start); empty when unreadable. */
QByteArray readFileFrom(const QString &path, qint64 offset = 0);

} // namespace lantern::test
