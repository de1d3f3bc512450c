#pragma once

#include "phasefigures.h"
#include "schemebook.h"
#include "strategysettings.h"

#include "redis/keyschema.h"

#include <QTemporaryDir>

namespace lantern {
class RedisClient;
class SqlConnection;
}

namespace lantern::bench {

/** One storm of every grab attempt on a fresh campaign, and what the ledger held after it. */
struct StormResult {
    PhaseFigures figures;
    qint64 ok = 0;
    qint64 already = 0;
    qint64 soldOut = 0;
    qint64 busy = 0;
    qint64 retries = 0;
    qint64 duplicates = 0;
    double sellOutSeconds = 0;  // first grab sent to last envelope handed out
    double persistSeconds = 0;  // scheme 6: from the last grab answered until SQL held every grab
    LedgerState ledger;
    QString verify;             // scheme 6: what lanternd verify said
};

/** One crash run: the grabbing process SIGKILLed mid-storm, the scheme's recovery, the ledger. */
struct CrashResult {
    bool killed = false;       // false: the child finished before the kill point
    qint64 grantedAtKill = 0;
    QString inFlight;          // what the dead process held: a lock, a worker's backup list
    double firstGrabMs = 0;    // from the kill until a new grab was answered
    QString firstGrabAnswer;
    QString recovery;          // what recovery ran
    double recoveredSeconds = 0;
    LedgerState ledger;
    QString verify;
};

/** The phases of each scheme against the bench's MariaDB and Redis. */
class SchemePhases final {
public:
    SchemePhases(const StrategySettings &settings, RedisClient &redis, SqlConnection &sql);
    Q_DISABLE_COPY_MOVE(SchemePhases)

    StormResult storm(Scheme scheme, int round);
    /** Kills the grabbing process once killAtPercent % of `grantable` envelopes are granted (what
        the scheme's storm granted: an optimistic scheme may give up on most of them). */
    CrashResult crash(Scheme scheme, qint64 grantable);

    /** The grabbing child: runs the storm of `settings.childScheme` on its campaign and exits
        (unless killed first, as it is meant to be). */
    static void runChild(const StrategySettings &settings);

private:
    /** Scheme 6's `lanternd work --id ID`, started before its storm. */
    std::unique_ptr<class ChildProcess> startWorker(const QString &workerId);
    /** Polls until SQL holds every grab Redis recorded for campaign `id`; returns the seconds. */
    double waitUntilPersisted(qint64 campaignId);
    QString verify(qint64 campaignId);

    const StrategySettings &m_settings;
    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema m_keys;
    SchemeBook m_book;
    const std::vector<qint64> m_attempts;
    QTemporaryDir m_workDir;
};

/** Answers as the tables print them. */
QString answerName(GrabAnswer answer);

} // namespace lantern::bench
