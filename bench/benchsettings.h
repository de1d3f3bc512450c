#pragma once

#include "redis/redisurl.h"

#include <QString>

#include <functional>

class QCommandLineParser;
class QCoreApplication;

namespace lantern::bench {

/** The options every bench shares: the Redis server, the client count, the seed of its samples,
    the rounds, and the key prefix it owns (and empties). */
struct BenchSettings {
    RedisUrl redis;
    int clients = 50;
    quint64 seed = 1;
    int rounds = 1;
    QString prefix;
    QString summaryFile;  // --summary: where the report's summary rows go (none when empty)
};

/** Adds --redis, --clients, --seed, --rounds, --prefix and --summary. */
void addBenchOptions(QCommandLineParser &parser);
/** Reads them after process(); throws InvalidInputError for a value out of range. */
BenchSettings benchSettings(const QCommandLineParser &parser);

/** The value of --name as an integer; throws InvalidInputError unless it is in min..max. */
qint64 integerOption(const QCommandLineParser &parser, const QString &name, qint64 min, qint64 max);

/** Processes the command line (exits on --help) and refuses positional arguments. */
void processArguments(QCommandLineParser &parser, const QCoreApplication &app);

/** main() of a bench: exit 2 for bad input, 1 for any other failure, each with its message. */
int benchMain(int argc, char *argv[], const QString &name, const std::function<int(const QCoreApplication &)> &body);

} // namespace lantern::bench
