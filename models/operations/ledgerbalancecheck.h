#pragma once

#include <QList>
#include <QString>

#include <optional>

namespace lantern {

class KeySchema;
class RedisClient;
class SqlConnection;

/** One live or paused campaign as the last ledger check found it. */
struct LedgerBalance {
    qint64 campaignId = 0;
    bool balanced = true;
};

/** What the workers' last ledger check found (issue 27), for /metrics and the console. */
struct LedgerCheckResult {
    qint64 atMs = 0;  // when it ran, on Redis's clock
    QList<LedgerBalance> campaigns;
};

/** A cheap balance check of every live and paused campaign between the ledger (SQL) and Redis,
    made by the workers in their passes, once per interval for all of them (a turn key in Redis
    says whose), and left in Redis for `serve`'s /metrics: a scrape never runs it. A campaign is
    balanced when Redis still holds it, Redis counts at least the grabs (and cents) the ledger
    holds (else Redis lost grabs: a restart or failover the repair has not caught up with), and
    neither side issued more envelopes or cents than the campaign has. One aggregate over the
    ledger's running tally (LedgerTally) and one HMGET per pool: no per-grab read. */
class LedgerBalanceCheck final {
public:
    static constexpr qint64 IntervalMs = 30000;

    /** Runs the check when this worker's interval is over and no other worker has had its turn
        in the interval; returns what it found and wrote, nullopt when it was not its turn. */
    std::optional<LedgerCheckResult> runIfDue(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, const QString &workerId,
                                              qint64 nowMs);
    /** Runs it now and writes the result (kept three intervals, so a check that stops running
        leaves no stale verdict behind for long). */
    static LedgerCheckResult run(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, qint64 nowMs);
    /** The last result written; nullopt when none is left. */
    static std::optional<LedgerCheckResult> read(RedisClient &redis, const KeySchema &keys);

private:
    qint64 m_nextTryMs = 0;
};

} // namespace lantern
