#pragma once

#include "phasefigures.h"

#include "redis/redisurl.h"

#include <QByteArrayList>
#include <QStringList>

namespace lantern::bench {

struct RedisBenchmarkOptions {
    QString program = QStringLiteral("redis-benchmark");
    RedisUrl redis;
    int clients = 50;
    qint64 requests = 0;
    qint64 keyspace = 0;     // -r: __rand_int__ becomes a 12-digit number below this
    QByteArrayList command;  // the command line, with __rand_int__ where the uid goes
};

/** redis-benchmark's arguments, without the program; the password, if any, as `***` when
    `redacted` (for printing). */
QStringList redisBenchmarkArguments(const RedisBenchmarkOptions &options, bool redacted = false);

/** Runs redis-benchmark --csv and reads its requests/s, p50 and p99 (`fresh` is left at 0).
    Throws LanternError if it cannot start, fails, prints a server error, or prints no figures. */
PhaseFigures runRedisBenchmark(const RedisBenchmarkOptions &options);

/** A POSIX-shell-quoted command line, to print exactly what ran. */
QString shellCommand(const QString &program, const QStringList &arguments);

} // namespace lantern::bench
