#pragma once

#include "envelope/campaign.h"
#include "envelope/campaignpools.h"
#include "envelope/campaignschedule.h"
#include "core/errors.h"

#include <QCoreApplication>
#include <QJsonObject>

#include <functional>

namespace lantern {

class KeySchema;
class RedisClient;
class SqlConnection;

/** What `campaign create` asks for; validated by CampaignService::validate. */
struct CampaignDraft {
    QString name;
    qint64 totalCents = 0;
    qint64 count = 0;
    qint64 minCents = 1;
    SplitAlgorithm algorithm = SplitAlgorithm::DoubleMean;
    std::optional<quint64> seed;  // drawn at random when absent, then recorded
    int maxAttempts = 9;
    int pools = 1;  // sub-pools in Redis, 1..64 and at most one per envelope (docs/cluster.md "Sub-pools")
};

/** One sub-pool's progress, as `campaign show` and the console report it. */
struct PoolProgress {
    QByteArray name;          // "42" or "42.7"
    qint64 count = 0;         // envelopes dealt to it at launch
    qint64 remainingCount = 0;
    qint64 grabbedCount = 0;  // envelopes that left it, whoever's home pool took them
    qint64 grabbedCents = 0;
    qint64 borrowedCount = 0; // envelopes its users got from other pools once it was dry
    qint64 lentInFlight = 0;  // lent envelopes not settled yet (a grab under way, or interrupted)
};

/** `campaign show` (DESIGN §6): Redis for what is live, SQL for what is persisted and paid. */
struct CampaignSummary {
    Campaign campaign;  // status as Redis has it once launched
    qint64 remainingCount = 0;
    qint64 remainingCents = 0;
    qint64 grabbedCount = 0;
    qint64 grabbedCents = 0;
    qint64 persistedCount = 0;
    qint64 paidCount = 0;
    qint64 paidCents = 0;
    qint64 refusedCount = 0;  // grabs the ledger refused after Redis lost state (issue 15)
    qint64 refusedCents = 0;
    qint64 pendingCount = 0;     // payouts persisted, not confirmed yet: in flight or to be retried (issue 12)
    qint64 pendingCents = 0;
    qint64 providerErrors = 0;   // recorded calls to the provider that did not pay
    QList<PoolProgress> pools;   // one entry per pool, in pool order (one for a campaign without sub-pools)
};

/** Who a transition is recorded as in audit_log, when it changes something. */
struct TransitionAudit {
    QString actor;
    qint64 atMs = 0;
    QString via;  // added to the row's detail as "via" unless empty (the console says "console")
    /** Runs in the transition's transaction once the move is made, when the transition changed
        something; what it returns joins the row's detail (a scheduled transition settles its
        timetable row there and says how late it was). */
    std::function<QJsonObject()> withChange;
};

/** A new campaign's record: who made it (its "campaign.create" audit row) and the times asked
    with it. */
struct CampaignCreation {
    QString actor;
    qint64 atMs = 0;
    QString via;                // added to the audit row's detail unless empty ("console")
    ScheduleRequest schedule;   // empty: no times
    qint64 serverNowMs = 0;     // the servers' clock (redisTimeMs) the times are checked against
};

/** The campaign lifecycle (DESIGN §4): create a draft, launch it (envelopes to SQL, the pool to
    Redis; idempotent and resumable after a crash), pause/resume (the kill switch), close (the
    unclaimed pool is refunded). Redis holds the status grabs obey; SQL follows it. */
class CampaignService final {
    Q_DECLARE_TR_FUNCTIONS(CampaignService)

public:
    CampaignService(RedisClient &redis, SqlConnection &sql, const KeySchema &keys);

    /** Throws InvalidInputError for a name (blank, over 128 characters, control characters or
        text that was not valid UTF-8), amount, count or cap out of range. */
    static void validate(const CampaignDraft &draft);

    Campaign create(const CampaignDraft &draft, qint64 nowMs);
    /** `campaign create` and the console's New campaign: the draft, its audit row and its
        timetable in one transaction, after both were checked (InvalidInputError before anything
        is written). `transitions`, when given, receives the timetable written. */
    Campaign create(const CampaignDraft &draft, const CampaignCreation &creation, QList<ScheduledTransition> *transitions = nullptr);
    /** The transitions throw InvalidInputError for an unknown id and RefusedError for an edge the
        status does not allow, before writing anything. Repeating one the campaign already made is
        not an error: it returns the campaign unchanged and sets `*changed` (when given) to false.
        With `audit`, the change writes its audit_log row ("campaign.launch", ...) in the SQL
        transaction that makes SQL follow Redis. Each change is recorded exactly once, however many
        processes ask for it at the same time: by the one whose move took effect, or, when that one
        died before SQL followed, by the first that catches SQL up (docs/decisions.md, Audit). */
    Campaign launch(qint64 id, const std::optional<TransitionAudit> &audit = std::nullopt, bool *changed = nullptr);
    /** Everything a launch does but the status (issue 30): the envelopes to SQL, the pools loaded
        into Redis. Idempotent and resumable; `between` runs between chunks (a worker's
        heartbeat); `envelopesInSql`: an earlier preparation wrote them (only Redis lost its
        pools), so SQL is not written again. Throws RefusedError unless the campaign is a draft. */
    void prepare(qint64 id, const std::function<void()> &between = {}, bool envelopesInSql = false);
    /** Whether Redis holds the campaign's pools whole: launching it is then one status change. */
    bool poolsLoaded(const Campaign &campaign);
    /** The launch of a prepared campaign (poolsLoaded): the status only. RefusedError when the
        pools are not loaded or the campaign is not a draft (or live already: unchanged). */
    Campaign goLive(qint64 id, const std::optional<TransitionAudit> &audit = std::nullopt, bool *changed = nullptr);
    Campaign pause(qint64 id, const std::optional<TransitionAudit> &audit = std::nullopt, bool *changed = nullptr);
    Campaign resume(qint64 id, const std::optional<TransitionAudit> &audit = std::nullopt, bool *changed = nullptr);
    Campaign close(qint64 id, const std::optional<TransitionAudit> &audit = std::nullopt, bool *changed = nullptr);
    CampaignSummary show(qint64 id);

    Campaign load(qint64 id);
    /** "needs_approval": a draft above the four-eyes bound nobody but its creator approved. The
        launch, its preparation and goLive refuse it before writing anything; the database's
        trigger refuses the status change itself (a raw UPDATE). */
    static NamedRefusal needsApproval(const Campaign &campaign);

private:
    /** Known to workers, then live in Redis and in SQL. */
    Campaign goLive(const Campaign &campaign, const std::optional<TransitionAudit> &audit, bool *changed);
    /** Runs campaign_status.lua; throws RefusedError when the edge is not allowed. Returns false
        when the campaign already had that status in Redis. `initialiseMeta` passes the meta
        fields a campaign's first move (launch or close of a draft) creates. */
    bool moveTo(const Campaign &campaign, CampaignStatus target, bool initialiseMeta);
    /** The campaign's pools in Redis: named at its first launch (kept in the first pool's meta,
        so a resumed launch finds the same ones), read afterwards. */
    CampaignPools poolsOf(const Campaign &campaign, bool nameIfNew);
    /** Moves the campaign in Redis and makes SQL follow, in one SQL transaction that also writes
        the audit row when either changed; returns the campaign as it now is. */
    Campaign transition(const Campaign &campaign, CampaignStatus target, const QString &action, bool initialiseMeta,
                        const std::optional<TransitionAudit> &audit, bool *changed);

    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
};

} // namespace lantern
