#pragma once

#include "benchsettings.h"
#include "scheme.h"

#include "sql/dburl.h"

#include <QList>
#include <QStringList>

#include <vector>

class QCoreApplication;

namespace lantern::bench {

/** lantern-bench-strategies' options. */
struct StrategySettings {
    BenchSettings bench;
    DbUrl db;
    QString redisText;              // --redis and --db as given, for the children's command lines
    QString dbText;
    QString lanternd;               // the lanternd of this tree: scheme 6's worker, recovery and verify
    qint64 envelopes = 10'000;
    qint64 users = 30'000;
    qint64 doubleTaps = 10'000;     // users who send two grabs at once (side by side in the list)
    SchemeOptions scheme;
    int heartbeatTtlS = 3;          // LANTERN_HEARTBEAT_TTL_S of scheme 6's workers
    int killAtPercent = 50;         // the grabbing process is killed once this share of the envelopes is granted
    QList<Scheme> schemes;          // those to measure, in order
    // Set only in the grabbing child of a crash run, which the bench starts as itself.
    int childScheme = 0;
    qint64 childCampaign = 0;
};

/** Parses the command line; throws InvalidInputError for a value out of range. */
StrategySettings parseStrategySettings(const QCoreApplication &app);

/** Every grab of a phase, in the order the clients take them: the users in random order, and
    each double-tapping user twice in a row, so two clients send that user's grabs together. */
std::vector<qint64> grabAttempts(const StrategySettings &settings);

/** The command line of the grabbing child of a crash run of `scheme` on `campaignId`. */
QStringList childArguments(const StrategySettings &settings, Scheme scheme, qint64 campaignId);

/** The global options lanternd needs to reach the bench's Redis, database and prefix. */
QStringList lanterndConnection(const StrategySettings &settings);

} // namespace lantern::bench
