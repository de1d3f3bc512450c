#include "envelope/campaignservice.h"

#include "audit/auditlog.h"
#include "core/errors.h"
#include "envelope/campaignrepair.h"
#include "envelope/campaignstore.h"
#include "envelope/poolcounters.h"
#include "envelope/poollending.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "sql/sqlconnection.h"

#include <QDateTime>
#include <QRandomGenerator>

#include <algorithm>

namespace lantern {

namespace {
constexpr qint64 PoolChunk = 1000;

const LuaScript &poolLoadScript()
{
    static const LuaScript script(QStringLiteral("pool_load"));
    return script;
}

const LuaScript &statusScript()
{
    static const LuaScript script(QStringLiteral("campaign_status"));
    return script;
}
} // namespace

CampaignService::CampaignService(RedisClient &redis, SqlConnection &sql, const KeySchema &keys) : m_redis(redis), m_sql(sql), m_keys(keys) {}

void CampaignService::validate(const CampaignDraft &draft)
{
    const QString name = draft.name.trimmed();
    if (name.isEmpty() || name.size() > 128)
        throw InvalidInputError(tr("a campaign needs a name of 1 to 128 characters"));
    // Undecodable bytes on a command line arrive as U+FFFD; storing them would keep mojibake forever.
    const bool unprintable = std::any_of(name.cbegin(), name.cend(), [](QChar c) {
        return c.category() == QChar::Other_Control || c == QChar::ReplacementCharacter;
    });
    if (unprintable || !name.isValidUtf16())
        throw InvalidInputError(tr("a campaign name must not contain control characters or text that is not valid UTF-8"));
    if (draft.maxAttempts < 1 || draft.maxAttempts > 1000)
        throw InvalidInputError(tr("invalid --max-attempts %1: expected 1 to 1000").arg(draft.maxAttempts));
    if (draft.pools < 1 || draft.pools > CampaignPools::MaxPools)
        throw InvalidInputError(tr("invalid --pools %1: expected 1 to %2").arg(draft.pools).arg(CampaignPools::MaxPools));
    if (draft.count > 0 && draft.pools > draft.count)
        throw InvalidInputError(tr("invalid --pools %1: a campaign of %2 envelopes has at most %2 pools").arg(draft.pools).arg(draft.count));
    validateSplit({draft.totalCents, draft.count, draft.minCents, draft.algorithm, draft.seed.value_or(0)});
}

Campaign CampaignService::create(const CampaignDraft &draft, qint64 nowMs)
{
    validate(draft);
    Campaign campaign;
    campaign.name = draft.name.trimmed();
    campaign.totalCents = draft.totalCents;
    campaign.count = draft.count;
    campaign.minCents = draft.minCents;
    campaign.algorithm = draft.algorithm;
    campaign.seed = draft.seed ? *draft.seed : QRandomGenerator::system()->generate64() >> 1;
    campaign.maxAttempts = draft.maxAttempts;
    campaign.pools = draft.pools;
    campaign.createdAtMs = nowMs;
    campaign.id = CampaignStore(m_sql).insert(campaign);
    return campaign;
}

Campaign CampaignService::create(const CampaignDraft &draft, const CampaignCreation &creation, QList<ScheduledTransition> *transitions)
{
    validate(draft);
    if (!creation.schedule.isEmpty())
        CampaignSchedule::validate(creation.schedule, CampaignStatus::Draft, {}, creation.serverNowMs);
    const Campaign campaign = m_sql.transaction([&] {
        // Read back: the database stamped its creator and whether it needs a second manager's
        // approval (issue 25).
        const Campaign made = CampaignStore(m_sql).find(create(draft, creation.atMs).id).value();
        QJsonObject detail = campaignJson(made);
        if (!creation.via.isEmpty())
            detail.insert(QStringLiteral("via"), creation.via);
        AuditLog(m_sql).record(creation.actor, QStringLiteral("campaign.create"), QStringLiteral("campaign:%1").arg(made.id), detail, creation.atMs);
        if (!creation.schedule.isEmpty())
            CampaignSchedule(m_sql).record(made.id, creation.schedule, creation.actor, creation.serverNowMs);
        return made;
    });
    if (transitions)
        *transitions = creation.schedule.isEmpty() ? QList<ScheduledTransition>{} : CampaignSchedule(m_sql).of(campaign.id);
    return campaign;
}

Campaign CampaignService::load(qint64 id)
{
    const auto campaign = CampaignStore(m_sql).find(id);
    if (!campaign)
        throw InvalidInputError(tr("no campaign with id %1").arg(id));
    return *campaign;
}

CampaignPools CampaignService::poolsOf(const Campaign &campaign, bool nameIfNew)
{
    if (campaign.pools <= 1)
        return CampaignPools::single(campaign.id);
    // SQL keeps the names once a launch chose them; Redis's copy (the first pool's meta) is what
    // grabs read, put back when it is missing.
    if (!campaign.poolNames.isEmpty()) {
        const auto pools = CampaignPools::fromField(campaign.id, campaign.poolNames);
        if (!pools || pools->count() != campaign.pools)
            throw LanternError(tr("campaign %1's pool names in SQL are not a list of its %2 pools").arg(campaign.id).arg(campaign.pools));
        if (nameIfNew)
            m_redis.command({"HSETNX", m_keys.campaignMeta(campaign.id), "pools", pools->field()});
        return *pools;
    }
    if (!nameIfNew)
        return CampaignPools::read(m_redis, m_keys, campaign.id);
    const QByteArray meta = m_keys.campaignMeta(campaign.id);
    if (m_redis.command({"HGET", meta, "pools"}).isNil())
        m_redis.command({"HSETNX", meta, "pools", CampaignPools::choose(m_redis, m_keys, campaign.id, campaign.pools).field()});
    const CampaignPools pools = CampaignPools::read(m_redis, m_keys, campaign.id);
    if (pools.count() != campaign.pools)
        throw RedisReplyError(QStringLiteral("campaign %1 has %2 pools in Redis and %3 in SQL").arg(campaign.id).arg(pools.count()).arg(campaign.pools));
    CampaignStore(m_sql).setPoolNames(campaign.id, pools.field());
    return pools;
}

bool CampaignService::moveTo(const Campaign &campaign, CampaignStatus target, bool initialiseMeta)
{
    const CampaignPools pools = poolsOf(campaign, initialiseMeta);
    bool moved = false;
    // Pool after pool, the first one first: a refusal comes from it before any other moved, and
    // a move cut short is completed by the same command again (the pools already moved answer
    // 'unchanged'). Grabs obey their own pool's status.
    for (int index = 0; index < pools.count(); ++index) {
        const QByteArray &pool = pools.name(index);
        const qint64 dealt = pools.envelopesIn(index, campaign.count);
        QByteArrayList args{campaignStatusName(target).toLatin1(), QByteArray::number(dealt)};
        // The script sets these before it checks the edge, so they are passed only by the moves that
        // may create the meta hash; a refused pause of a draft must not leave one behind.
        if (initialiseMeta) {
            args << "max_attempts" << QByteArray::number(campaign.maxAttempts) << "total_cents" << QByteArray::number(campaign.totalCents)
                 << "count" << QByteArray::number(dealt) << "grabbed_count" << "0" << "grabbed_cents" << "0" << "loaded_seq" << "0";
            if (pools.count() > 1)
                args << "pools_count" << QByteArray::number(pools.count()) << "pool_index" << QByteArray::number(index);
        }
        const RedisValue reply = statusScript().run(m_redis, {m_keys.campaignMeta(pool), m_keys.campaignPool(pool), m_keys.campaignRepairLock(pool)}, args);
        if (reply.elements.size() != 2)
            throw RedisReplyError(QStringLiteral("campaign_status.lua returned an unexpected reply"));
        if (reply.elements[0].toBytes() == "repairing")
            throw UnavailableError(tr("campaign %1 is being repaired from the ledger; try again in a moment").arg(campaign.id));
        if (reply.elements[0].toBytes() == "refused")
            throw RefusedError(tr("campaign %1 is %2: it cannot become %3")
                                       .arg(campaign.id)
                                       .arg(QString::fromLatin1(reply.elements[1].toBytes()), campaignStatusName(target)));
        moved = reply.elements[0].toBytes() == "ok" || moved;
    }
    return moved;
}

Campaign CampaignService::launch(qint64 id, const std::optional<TransitionAudit> &audit, bool *changed)
{
    const Campaign campaign = load(id);
    if (campaign.status == CampaignStatus::Live) {
        // SQL follows Redis, so the launch was made. A Redis that lost the campaign since (a
        // restart without persistence, a lagging replica promoted) gets it back from the ledger,
        // as a worker would repair it: never a fresh pool, which would hand out again the
        // envelopes grabbed before the loss (docs/decisions.md, "Launching a live campaign").
        CampaignRepair repair(m_redis, m_sql, m_keys);
        if (repair.consistent(id))
            return goLive(campaign, audit, changed);  // nothing to do
        const CampaignRepairReport report = repair.repair(id);
        if (audit)
            report.audit(m_sql, audit->actor, audit->atMs);
        if (changed)
            *changed = true;
        Campaign repaired = load(id);
        repaired.status = campaignStatusFromName(report.status).value_or(repaired.status);  // as grabs see it
        return repaired;
    }
    prepare(id);
    return goLive(campaign, audit, changed);
}

NamedRefusal CampaignService::needsApproval(const Campaign &campaign)
{
    return NamedRefusal(QStringLiteral("needs_approval"),
                        tr("campaign %1 is above the four-eyes bound: a manager other than %2 must approve it first (campaign approve --id %1)")
                                .arg(campaign.id)
                                .arg(campaign.createdBy));
}

void CampaignService::prepare(qint64 id, const std::function<void()> &between, bool envelopesInSql)
{
    const Campaign campaign = load(id);
    if (campaign.status == CampaignStatus::Closed || campaign.status == CampaignStatus::Paused)
        throw RefusedError(tr("campaign %1 is %2: only a draft can be launched").arg(id).arg(campaignStatusName(campaign.status)));
    if (campaign.awaitsApproval())
        throw needsApproval(campaign);

    // 1. Envelopes to SQL (idempotent on (campaign, seq)); the seed makes the split reproducible.
    const std::vector<qint64> amounts = splitEnvelopes(campaign.splitSpec());
    if (!envelopesInSql)
        CampaignStore(m_sql).insertEnvelopes(id, amounts, between);

    // 2. The pools to Redis, chunk by chunk; each pool's loaded_seq (how many of its envelopes
    //    it holds) makes a resumed launch continue exactly. Envelope seq s goes to pool (s-1) mod K,
    //    so every pool's amounts follow the same distribution.
    const CampaignPools pools = poolsOf(campaign, true);
    for (int index = 0; index < pools.count(); ++index) {
        const QByteArray meta = m_keys.campaignMeta(pools.name(index));
        const QByteArray pool = m_keys.campaignPool(pools.name(index));
        const qint64 dealt = pools.envelopesIn(index, campaign.count);
        m_redis.command({"HSETNX", meta, "loaded_seq", "0"});
        qint64 loaded = m_redis.command({"HGET", meta, "loaded_seq"}).toInteger();
        while (loaded < dealt) {
            const qint64 end = std::min(dealt, loaded + PoolChunk);
            QByteArrayList args{QByteArray::number(loaded + 1)};
            for (qint64 nth = loaded; nth < end; ++nth) {
                const qint64 seq = index + 1 + nth * pools.count();
                args << QByteArray::number(seq) + ':' + QByteArray::number(amounts[size_t(seq - 1)]);
            }
            const qint64 after = poolLoadScript().run(m_redis, {meta, pool}, args).toInteger();
            if (after <= loaded)
                throw RedisReplyError(QStringLiteral("pool_load.lua made no progress for campaign %1").arg(id));
            loaded = after;
            if (between)
                between();
        }
    }
}

bool CampaignService::poolsLoaded(const Campaign &campaign)
{
    if (campaign.pools > 1 && campaign.poolNames.isEmpty())
        return false;  // a launch names the pools first
    const CampaignPools pools = poolsOf(campaign, false);
    QList<QByteArrayList> commands;
    for (const QByteArray &pool : pools.names())
        commands << QByteArrayList{"HGET", m_keys.campaignMeta(pool), "loaded_seq"};
    const std::vector<RedisValue> loaded = m_redis.pipeline(commands);
    for (int index = 0; index < pools.count(); ++index) {
        throwOnErrorReply(loaded[size_t(index)]);
        if (loaded[size_t(index)].isNil() || loaded[size_t(index)].toInteger() != pools.envelopesIn(index, campaign.count))
            return false;
    }
    return true;
}

Campaign CampaignService::goLive(qint64 id, const std::optional<TransitionAudit> &audit, bool *changed)
{
    return goLive(load(id), audit, changed);
}

Campaign CampaignService::goLive(const Campaign &campaign, const std::optional<TransitionAudit> &audit, bool *changed)
{
    if (campaign.status == CampaignStatus::Closed || campaign.status == CampaignStatus::Paused)
        throw RefusedError(tr("campaign %1 is %2: only a draft can be launched").arg(campaign.id).arg(campaignStatusName(campaign.status)));
    if (campaign.status == CampaignStatus::Draft && campaign.awaitsApproval())
        throw needsApproval(campaign);
    // Known to workers, then live in Redis (grabs start) and in SQL.
    QByteArrayList known{"SADD", m_keys.campaignSet()};
    known << poolsOf(campaign, true).names();
    m_redis.command(known);
    return transition(campaign, CampaignStatus::Live, QStringLiteral("campaign.launch"), true, audit, changed);
}

Campaign CampaignService::transition(const Campaign &campaign, CampaignStatus target, const QString &action, bool initialiseMeta,
                                     const std::optional<TransitionAudit> &audit, bool *changed)
{
    CampaignStore store(m_sql);
    Campaign now = campaign;
    // SQL's status is written first, so a process that changes it holds the campaign's row (on
    // SQLite the database) until it commits, Redis move and audit row included: concurrent
    // transitions of one campaign take turns, and the next one finds SQL caught up and writes
    // nothing. The process whose Redis move took effect therefore writes the one audit row. A
    // process that changes SQL without moving Redis is catching up after a move whose process
    // died before SQL followed, and writes that move's row instead (once, for the same reason).
    const bool madeChange = m_sql.transaction([&] {
        bool sqlChanged = store.setStatus(campaign.id, target);
        const bool moved = moveTo(campaign, target, initialiseMeta);
        now.status = target;
        if (target == CampaignStatus::Closed) {
            // Closed: no grab can take an envelope any more. Envelopes lent between pools are
            // settled first (given to their user or returned), so the refund is exactly what was
            // never grabbed.
            const CampaignPools pools = poolsOf(campaign, false);
            PoolLending(m_redis, m_keys).settleLent(pools, 0, QDateTime::currentMSecsSinceEpoch());
            qint64 grabbedCents = 0;
            for (const QByteArray &pool : pools.names()) {
                const RedisValue grabbed = m_redis.command({"HGET", m_keys.campaignMeta(pool), "grabbed_cents"});
                grabbedCents += grabbed.isNil() ? 0 : grabbed.toInteger();
            }
            now.refundedCents = campaign.totalCents - grabbedCents;
            sqlChanged = store.setRefund(campaign.id, now.refundedCents) || sqlChanged;
        }
        if ((moved || sqlChanged) && audit) {
            QJsonObject detail{{QStringLiteral("status"), campaignStatusName(now.status)}, {QStringLiteral("refunded_cents"), now.refundedCents}};
            if (!audit->via.isEmpty())
                detail.insert(QStringLiteral("via"), audit->via);
            if (audit->withChange) {
                const QJsonObject more = audit->withChange();
                for (auto it = more.constBegin(); it != more.constEnd(); ++it)
                    detail.insert(it.key(), it.value());
            }
            AuditLog(m_sql).record(audit->actor, action, QStringLiteral("campaign:%1").arg(campaign.id), detail, audit->atMs);
        }
        return moved || sqlChanged;
    });
    if (changed)
        *changed = madeChange;
    return now;
}

Campaign CampaignService::pause(qint64 id, const std::optional<TransitionAudit> &audit, bool *changed)
{
    return transition(load(id), CampaignStatus::Paused, QStringLiteral("campaign.pause"), false, audit, changed);
}

Campaign CampaignService::resume(qint64 id, const std::optional<TransitionAudit> &audit, bool *changed)
{
    const Campaign campaign = load(id);
    if (campaign.status == CampaignStatus::Draft)
        throw RefusedError(tr("campaign %1 is a draft: launch it first").arg(id));
    return transition(campaign, CampaignStatus::Live, QStringLiteral("campaign.resume"), false, audit, changed);
}

Campaign CampaignService::close(qint64 id, const std::optional<TransitionAudit> &audit, bool *changed)
{
    return transition(load(id), CampaignStatus::Closed, QStringLiteral("campaign.close"), true, audit, changed);
}

CampaignSummary CampaignService::show(qint64 id)
{
    CampaignSummary summary;
    summary.campaign = load(id);
    const CampaignPools pools = poolsOf(summary.campaign, false);
    QList<QByteArrayList> commands;
    for (const QByteArray &pool : pools.names())
        commands << PoolCounters::readCommand(m_keys, pool) << QByteArrayList{"LLEN", m_keys.campaignPool(pool)} << QByteArrayList{"HLEN", m_keys.campaignLent(pool)};
    const std::vector<RedisValue> replies = m_redis.pipeline(commands);
    throwOnErrorReply(replies);
    if (const PoolCounters first = PoolCounters::fromReply(replies[0]); first.inRedis()) {
        if (const auto status = campaignStatusFromName(QString::fromLatin1(first.status)))
            summary.campaign.status = *status;
    }
    const bool closed = summary.campaign.status == CampaignStatus::Closed;
    for (int index = 0; index < pools.count(); ++index) {
        const PoolCounters counters = PoolCounters::fromReply(replies[size_t(index) * 3]);
        PoolProgress pool;
        pool.name = pools.name(index);
        pool.count = pools.envelopesIn(index, summary.campaign.count);
        pool.grabbedCount = counters.grabbedCount;
        pool.grabbedCents = counters.grabbedCents;
        pool.borrowedCount = counters.borrowedCount;
        pool.remainingCount = closed ? 0 : replies[size_t(index) * 3 + 1].toInteger();
        pool.lentInFlight = replies[size_t(index) * 3 + 2].toInteger();
        summary.grabbedCount += pool.grabbedCount;
        summary.grabbedCents += pool.grabbedCents;
        summary.remainingCount += pool.remainingCount;
        summary.pools << pool;
    }
    summary.remainingCents = closed ? 0 : summary.campaign.totalCents - summary.grabbedCents;
    const CampaignLedger ledger = CampaignStore(m_sql).ledger(id);
    summary.persistedCount = ledger.persistedCount;
    summary.paidCount = ledger.paidCount;
    summary.paidCents = ledger.paidCents;
    summary.refusedCount = ledger.refusedCount;
    summary.refusedCents = ledger.refusedCents;
    summary.pendingCount = ledger.pendingCount;
    summary.pendingCents = ledger.pendingCents;
    // A paid payout's attempts count its paying call too; every other recorded call failed.
    summary.providerErrors = std::max<qint64>(0, ledger.payoutCalls - ledger.paidCount);
    return summary;
}

} // namespace lantern
