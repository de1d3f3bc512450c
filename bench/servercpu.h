#pragma once

#include <QMap>
#include <QString>

namespace lantern {
class RedisClient;
}

namespace lantern::bench {

/** Server CPU (used_cpu_user + used_cpu_sys, seconds) of every master, by address (one server:
    itself). */
QMap<QString, double> serverCpu(RedisClient &redis);

/** "a 1.90 s, b 0.10 s": each server's CPU between two readings. */
QString cpuSpent(const QMap<QString, double> &before, const QMap<QString, double> &after);

} // namespace lantern::bench
