#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace lantern {

class KeySchema;
class RedisClient;
class SqlConnection;

/** What one repair found and wrote (`lanternd campaign repair` prints it). */
struct CampaignRepairReport {
    qint64 campaignId = 0;
    QString status;              // the campaign's status in Redis after the repair
    qint64 ledgerGrabs = 0;      // grab rows in SQL
    qint64 inFlight = 0;         // queued grabs not in SQL yet, kept as held
    qint64 refusedInFlight = 0;  // queued grabs the ledger will refuse, undone here already
    qint64 poolBefore = 0;       // envelopes in the Redis pool before and after
    qint64 poolAfter = 0;
    qint64 drawsBefore = 0;      // users holding an envelope in Redis before and after
    qint64 drawsAfter = 0;
    qint64 grabbedCount = 0;     // after
    qint64 grabbedCents = 0;
    std::optional<qint64> refundedCents;  // set when the campaign is closed: the refund recomputed

    /** {"id","status","ledger_grabs","in_flight","refused_in_flight","pool_before","pool_after",
        "draws_before","draws_after","grabbed_count","grabbed_cents"} plus "refunded_cents" when
        closed: what `campaign repair` prints and the audit row of a repair holds. */
    QJsonObject toJson() const;
    /** Writes the repair's "campaign.repair" audit row (every path that repairs writes it here). */
    void audit(SqlConnection &sql, const QString &actor, qint64 atMs) const;
};

/** Rebuilds a campaign's Redis state from the ledger after Redis lost state (issue 15): a restart
    that replayed an AOF cut short by an OS crash, a failover to a lagging replica, a restore from
    backup. SQL is the truth: the draws become the grab rows (plus the grabs still queued for the
    workers that the ledger will accept), the pool every envelope nobody holds, the counters
    their sums. Grabs of the campaign wait ('repairing', HTTP 503) while the rebuilt state is
    staged, and it replaces the old one in one script. */
class CampaignRepair final {
    Q_DECLARE_TR_FUNCTIONS(CampaignRepair)

public:
    /** How long grabs wait at most if the repairing process dies; renewed while it works. */
    static constexpr qint64 LockTtlMs = 30000;

    CampaignRepair(RedisClient &redis, SqlConnection &sql, const KeySchema &keys);

    /** Throws InvalidInputError for an unknown campaign, RefusedError for a draft or while
        another process repairs the same campaign. */
    CampaignRepairReport repair(qint64 campaignId);
    /** The automatic path: nullopt when another process is repairing the campaign. */
    std::optional<CampaignRepairReport> repairIfFree(qint64 campaignId);

    /** Whether Redis still knows every grab the ledger holds (draws, counters, the campaign itself). */
    bool consistent(qint64 campaignId);
    /** Checks every campaign that grabs can still change and repairs those that lost state;
        returns the repairs made. Run when Redis may have restarted (redis/redisrunwatch.h). */
    QList<CampaignRepairReport> checkAll();

private:
    std::optional<CampaignRepairReport> run(qint64 campaignId, bool skipIfBusy);

    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
};

} // namespace lantern
