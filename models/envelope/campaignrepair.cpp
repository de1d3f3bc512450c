#include "envelope/campaignrepair.h"

#include "audit/auditlog.h"
#include "core/errors.h"
#include "envelope/campaign.h"
#include "envelope/campaignpools.h"
#include "envelope/campaignstore.h"
#include "envelope/payouttask.h"
#include "envelope/poolcounters.h"
#include "envelope/poollending.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "sql/sqlconnection.h"

#include <QDateTime>
#include <QHash>
#include <QRandomGenerator>
#include <QSet>
#include <QSqlQuery>

#include <algorithm>
#include <tuple>

namespace lantern {

namespace {
constexpr qsizetype RepairChunk = 1000;  // entries per staging command and uids per draws check
constexpr int SnapshotAttempts = 5;

const LuaScript &repairSwapScript()
{
    static const LuaScript script(QStringLiteral("campaign_repair"));
    return script;
}

QByteArray envelopeEntry(qint64 seq, qint64 amountCents)
{
    return QByteArray::number(seq) + ':' + QByteArray::number(amountCents);
}

/** The status both sides allow: closed over paused over live, so that a repair never opens a
    campaign to grabs that SQL or Redis has stopped; a draft in SQL defers to Redis (a launch that
    crashed before SQL followed). */
QByteArray repairedStatus(CampaignStatus sql, const QByteArray &redis)
{
    const QByteArray fromSql = campaignStatusName(sql).toLatin1();
    if (sql == CampaignStatus::Draft)
        return redis;
    for (const char *status : {"closed", "paused", "live"}) {
        if (fromSql == status || redis == status)
            return status;
    }
    return fromSql;
}


/** The grab rows of a campaign: uid -> (seq, amount). */
QHash<qint64, std::pair<qint64, qint64>> ledgerGrabs(SqlConnection &sql, qint64 campaignId)
{
    QHash<qint64, std::pair<qint64, qint64>> grabs;
    QSqlQuery rows = sql.exec(QStringLiteral("SELECT uid, seq, amount_cents FROM grab WHERE campaign_id = ?"), {campaignId});
    while (rows.next())
        grabs.insert(rows.value(0).toLongLong(), {rows.value(1).toLongLong(), rows.value(2).toLongLong()});
    return grabs;
}
} // namespace

QJsonObject CampaignRepairReport::toJson() const
{
    QJsonObject json{{QStringLiteral("id"), campaignId},
                     {QStringLiteral("status"), status},
                     {QStringLiteral("ledger_grabs"), ledgerGrabs},
                     {QStringLiteral("in_flight"), inFlight},
                     {QStringLiteral("refused_in_flight"), refusedInFlight},
                     {QStringLiteral("pool_before"), poolBefore},
                     {QStringLiteral("pool_after"), poolAfter},
                     {QStringLiteral("draws_before"), drawsBefore},
                     {QStringLiteral("draws_after"), drawsAfter},
                     {QStringLiteral("grabbed_count"), grabbedCount},
                     {QStringLiteral("grabbed_cents"), grabbedCents}};
    if (refundedCents)
        json.insert(QStringLiteral("refunded_cents"), *refundedCents);
    return json;
}

void CampaignRepairReport::audit(SqlConnection &sql, const QString &actor, qint64 atMs) const
{
    AuditLog(sql).record(actor, QStringLiteral("campaign.repair"), QStringLiteral("campaign:%1").arg(campaignId), toJson(), atMs);
}

CampaignRepair::CampaignRepair(RedisClient &redis, SqlConnection &sql, const KeySchema &keys) : m_redis(redis), m_sql(sql), m_keys(keys) {}

CampaignRepairReport CampaignRepair::repair(qint64 campaignId)
{
    return *run(campaignId, false);
}

std::optional<CampaignRepairReport> CampaignRepair::repairIfFree(qint64 campaignId)
{
    return run(campaignId, true);
}

namespace {

/** One repair of one campaign, step by step as the class comment of CampaignRepair tells it:
    lock the pools, snapshot what is queued, decide the grabs against the ledger, stage the new
    state, swap it in, refund a closed campaign. The pools stay locked (grabs wait) from lock()
    until swap() lifts each pool's lock, or unlock() on a failure. */
class CampaignRepairRun final {
public:
    CampaignRepairRun(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, const Campaign &campaign, QByteArray status)
        : m_redis(redis), m_sql(sql), m_keys(keys), m_campaign(campaign), m_status(std::move(status)),
          m_pools(poolsOf(redis, keys, campaign)),
          m_token(QByteArray::number(QRandomGenerator::system()->generate64(), 16)),
          m_refusedMembers(m_pools.count()), m_grabbedCount(m_pools.count(), 0), m_grabbedCents(m_pools.count(), 0)
    {
        m_report.campaignId = campaign.id;
        m_report.status = QString::fromLatin1(m_status);
    }

    /** 1. Grabs of this campaign wait from here on (grab.lua and pool_lend.lua answer
        'repairing'): a lock on every pool, all or none. False when another process holds one. */
    bool lock()
    {
        for (const QByteArray &pool : m_pools.names()) {
            if (m_redis.command({"SET", m_keys.campaignRepairLock(pool), m_token, "NX", "PX", QByteArray::number(CampaignRepair::LockTtlMs)}).isNil()) {
                unlock();
                return false;
            }
            m_locked << pool;
        }
        return true;
    }

    /** Releases the locks this run still holds (after a failure: the swap lifts them otherwise). */
    void unlock()
    {
        for (const QByteArray &pool : std::as_const(m_locked)) {
            try {
                const RedisValue holder = m_redis.command({"GET", m_keys.campaignRepairLock(pool)});
                if (!holder.isNil() && holder.toBytes() == m_token)
                    m_redis.command({"DEL", m_keys.campaignRepairLock(pool)});
            } catch (const LanternError &) {
                // The lock expires by itself; the error that got us here is the one to report.
            }
        }
        m_locked.clear();
    }

    CampaignRepairReport repair()
    {
        // Envelopes lent between sub-pools when the lock came: each given to its user or
        // returned, so the snapshot below sees every grab as a draw or a task.
        PoolLending(m_redis, m_keys).settleLent(m_pools, 0, QDateTime::currentMSecsSinceEpoch());
        snapshotQueued();
        decideGrabs();
        stage();
        swap();
        refund();
        return m_report;
    }

private:
    /** The pools' names: SQL keeps them from the launch that chose them, so a Redis that lost
        them gets the same ones back. */
    static CampaignPools poolsOf(RedisClient &redis, const KeySchema &keys, const Campaign &campaign)
    {
        const std::optional<CampaignPools> named = CampaignPools::named(campaign);
        return named ? *named : CampaignPools::read(redis, keys, campaign.id);
    }

    /** 2. What is on its way to SQL: per pool, read at one instant (one MULTI in its slot), the
        task queue and every worker's backup list. The worker registry (lt:workers) is in another
        slot, so it is read before and after: a worker registers (its first heartbeat) before it
        claims anything, so one whose claim the snapshot could have missed is in the registry by
        the second read, and the snapshot is taken again. Tasks never move between pools, and
        grabs wait, so pool after pool is enough. */
    void snapshotQueued()
    {
        for (int attempt = 1;; ++attempt) {
            const RedisValue members = m_redis.command({"SMEMBERS", m_keys.workerSet()});
            throwOnErrorReply(members);
            QList<QByteArrayList> commands;
            QList<qsizetype> execAt;
            for (const QByteArray &pool : m_pools.names()) {
                commands << QByteArrayList{"MULTI"} << QByteArrayList{"LLEN", m_keys.campaignPool(pool)}
                         << QByteArrayList{"HLEN", m_keys.campaignDraws(pool)} << QByteArrayList{"LRANGE", m_keys.campaignTasks(pool), "0", "-1"};
                for (const RedisValue &member : members.elements)
                    commands.append({"LRANGE", m_keys.campaignBackup(pool, QString::fromUtf8(member.toBytes())), "0", "-1"});
                execAt << commands.size();
                commands.append({"EXEC"});
            }
            const std::vector<RedisValue> replies = m_redis.pipeline(commands);
            for (const RedisValue &reply : replies)
                throwOnErrorReply(reply);
            const RedisValue after = m_redis.command({"SMEMBERS", m_keys.workerSet()});
            throwOnErrorReply(after);
            if (memberSet(after) != memberSet(members)) {
                if (attempt == SnapshotAttempts)
                    throw UnavailableError(
                            CampaignRepair::tr("workers keep registering; the repair of campaign %1 could not read their lists").arg(m_campaign.id));
                continue;
            }
            m_report.poolBefore = 0;
            m_report.drawsBefore = 0;
            m_queued.clear();
            for (const qsizetype exec : std::as_const(execAt)) {
                const RedisValue &results = replies[size_t(exec)];
                if (results.type != RedisValue::Type::Array || results.elements.size() != 3 + members.elements.size())
                    throw RedisReplyError(QStringLiteral("the repair's snapshot of campaign %1 came back incomplete").arg(m_campaign.id));
                m_report.poolBefore += results.elements[0].toInteger();
                m_report.drawsBefore += results.elements[1].toInteger();
                for (size_t list = 2; list < results.elements.size(); ++list) {
                    for (const RedisValue &entry : results.elements[list].elements) {
                        const auto task = PayoutTask::fromJson(entry.toBytes());
                        if (task && task->campaignId == m_campaign.id)
                            m_queued << *task;
                    }
                }
            }
            return;
        }
    }

    static QSet<QByteArray> memberSet(const RedisValue &members)
    {
        QSet<QByteArray> set;
        for (const RedisValue &member : members.elements)
            set.insert(member.toBytes());
        return set;
    }

    /** 3. The ledger's grabs, then the queued ones it will accept: the first grab of an
        envelope or of a user wins, as the ledger's unique keys decide. */
    void decideGrabs()
    {
        m_held = ledgerGrabs(m_sql, m_campaign.id);
        m_report.ledgerGrabs = m_held.size();
        for (const auto &[seq, amount] : std::as_const(m_held))
            m_heldSeqs.insert(seq);
        std::sort(m_queued.begin(), m_queued.end(), [](const PayoutTask &a, const PayoutTask &b) {
            return std::tie(a.atMs, a.seq) < std::tie(b.atMs, b.seq);
        });
        for (const PayoutTask &task : std::as_const(m_queued)) {
            const auto mine = m_held.constFind(task.uid);
            if (mine != m_held.cend() && mine->first == task.seq)
                continue;  // persisted already
            if (mine != m_held.cend() || m_heldSeqs.contains(task.seq)) {
                m_refusedMembers[m_pools.homeOf(task.uid)] << QByteArray::number(task.seq) + ':' + QByteArray::number(task.uid);
                ++m_report.refusedInFlight;
                continue;
            }
            m_held.insert(task.uid, {task.seq, task.amountCents});
            m_heldSeqs.insert(task.seq);
            ++m_report.inFlight;
        }
        m_report.grabbedCount = m_held.size();
        // Per pool: what left it (grabbed, whoever's home took it), and its users' draws.
        for (const auto &[seq, amount] : std::as_const(m_held)) {
            m_report.grabbedCents += amount;
            ++m_grabbedCount[m_pools.poolOfSeq(seq)];
            m_grabbedCents[m_pools.poolOfSeq(seq)] += amount;
        }
    }

    /** Sends a staging command once it holds entries beyond its `head`, renewing the pool's lock. */
    void flush(const QByteArray &pool, QByteArrayList &command, qsizetype head)
    {
        if (command.size() > head) {
            throwOnErrorReply(
                    m_redis.pipeline({command, {"PEXPIRE", m_keys.campaignRepairLock(pool), QByteArray::number(CampaignRepair::LockTtlMs)}}).front());
            command.resize(head);
        }
    }

    /** 4. The new draws and pools, staged next to the live ones. */
    void stage()
    {
        QList<QByteArrayList> stagedPools;
        QList<QByteArrayList> stagedDraws;
        for (const QByteArray &pool : m_pools.names()) {
            const QByteArray stagingPool = m_keys.campaignRepairStaging(pool, "pool");
            const QByteArray stagingDraws = m_keys.campaignRepairStaging(pool, "draws");
            throwOnErrorReply(m_redis.command({"DEL", stagingPool, stagingDraws}));
            stagedPools << QByteArrayList{"RPUSH", stagingPool};
            stagedDraws << QByteArrayList{"HSET", stagingDraws};
        }
        for (auto it = m_held.cbegin(); it != m_held.cend(); ++it) {
            const int home = m_pools.homeOf(it.key());
            stagedDraws[home] << QByteArray::number(it.key()) << envelopeEntry(it->first, it->second);
            if (stagedDraws[home].size() >= 2 + 2 * RepairChunk)
                flush(m_pools.name(home), stagedDraws[home], 2);
        }
        for (int index = 0; index < m_pools.count(); ++index)
            flush(m_pools.name(index), stagedDraws[index], 2);
        m_report.drawsAfter = m_held.size();
        if (m_status == "closed")
            return;  // a closed campaign's pool stays empty
        QSqlQuery envelopes = m_sql.exec(QStringLiteral("SELECT seq, amount_cents FROM envelope WHERE campaign_id = ? ORDER BY seq"), {m_campaign.id});
        qint64 envelopeCount = 0;
        while (envelopes.next()) {
            ++envelopeCount;
            const qint64 seq = envelopes.value(0).toLongLong();
            if (m_heldSeqs.contains(seq))
                continue;
            const int index = m_pools.poolOfSeq(seq);
            stagedPools[index] << envelopeEntry(seq, envelopes.value(1).toLongLong());
            ++m_report.poolAfter;
            if (stagedPools[index].size() >= 2 + RepairChunk)
                flush(m_pools.name(index), stagedPools[index], 2);
        }
        for (int index = 0; index < m_pools.count(); ++index)
            flush(m_pools.name(index), stagedPools[index], 2);
        if (envelopeCount != m_campaign.count)
            throw LanternError(CampaignRepair::tr("campaign %1 has %2 envelopes in SQL instead of %3: its pool cannot be rebuilt")
                                       .arg(m_campaign.id)
                                       .arg(envelopeCount)
                                       .arg(m_campaign.count));
    }

    /** 5. Known to workers, and each pool's staged state in place in one script, which also
        lifts that pool's wait. Sub-pools get back the fields that say which pool they are. */
    void swap()
    {
        QByteArrayList known{"SADD", m_keys.campaignSet()};
        known << m_pools.names();
        throwOnErrorReply(m_redis.command(known));
        for (int index = 0; index < m_pools.count(); ++index) {
            const QByteArray &pool = m_pools.name(index);
            const QByteArray meta = m_keys.campaignMeta(pool);
            if (m_pools.count() > 1) {
                QByteArrayList fields{"HSET", meta, "pools_count", QByteArray::number(m_pools.count()), "pool_index", QByteArray::number(index)};
                if (index == 0)
                    fields << "pools" << m_pools.field();
                throwOnErrorReply(m_redis.command(fields));
            }
            QByteArrayList args{m_token,
                                QByteArray::number(m_grabbedCount[index]),
                                QByteArray::number(m_grabbedCents[index]),
                                m_status,
                                QByteArray::number(m_campaign.maxAttempts),
                                QByteArray::number(m_campaign.totalCents),
                                QByteArray::number(m_pools.envelopesIn(index, m_campaign.count))};
            args << m_refusedMembers[index];
            const RedisValue swapped = repairSwapScript().run(m_redis,
                                                              {meta, m_keys.campaignPool(pool), m_keys.campaignDraws(pool), m_keys.campaignRefused(pool),
                                                               m_keys.campaignRepairLock(pool), m_keys.campaignRepairStaging(pool, "pool"),
                                                               m_keys.campaignRepairStaging(pool, "draws")},
                                                              args);
            if (swapped.toBytes() != "ok")
                throw UnavailableError(CampaignRepair::tr("the repair of campaign %1 took longer than %2 s and was abandoned; run it again")
                                               .arg(m_campaign.id)
                                               .arg(CampaignRepair::LockTtlMs / 1000));
        }
    }

    /** 6. A closed campaign refunds what nobody holds. */
    void refund()
    {
        if (m_status != "closed")
            return;
        m_report.refundedCents = m_campaign.totalCents - m_report.grabbedCents;
        m_sql.exec(QStringLiteral("UPDATE campaign SET refunded_cents = ? WHERE id = ?"), {*m_report.refundedCents, m_campaign.id});
    }

    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
    const Campaign &m_campaign;
    const QByteArray m_status;
    const CampaignPools m_pools;
    const QByteArray m_token;
    QByteArrayList m_locked;
    CampaignRepairReport m_report;
    QList<PayoutTask> m_queued;
    QHash<qint64, std::pair<qint64, qint64>> m_held;  // uid -> (seq, amount)
    QSet<qint64> m_heldSeqs;
    QList<QByteArrayList> m_refusedMembers;  // per home pool
    QList<qint64> m_grabbedCount;
    QList<qint64> m_grabbedCents;
};

} // namespace

std::optional<CampaignRepairReport> CampaignRepair::run(qint64 campaignId, bool skipIfBusy)
{
    const auto campaign = CampaignStore(m_sql).find(campaignId);
    if (!campaign)
        throw InvalidInputError(tr("no campaign with id %1").arg(campaignId));
    const RedisValue redisStatus = m_redis.command({"HGET", m_keys.campaignMeta(campaignId), "status"});
    throwOnErrorReply(redisStatus);
    const QByteArray status = repairedStatus(campaign->status, redisStatus.isNil() ? QByteArray() : redisStatus.toBytes());
    if (status.isEmpty() || status == "draft")
        throw RefusedError(tr("campaign %1 is a draft: it has no grabs to repair").arg(campaignId));
    CampaignRepairRun run(m_redis, m_sql, m_keys, *campaign, status);
    if (!run.lock()) {
        if (skipIfBusy)
            return std::nullopt;
        throw RefusedError(tr("campaign %1 is being repaired by another process; try again when it is done").arg(campaignId));
    }
    try {
        return run.repair();
    } catch (...) {
        run.unlock();
        throw;
    }
}

bool CampaignRepair::consistent(qint64 campaignId)
{
    const auto campaign = CampaignStore(m_sql).find(campaignId);
    if (!campaign)
        return true;
    if (campaign->status == CampaignStatus::Draft)
        return true;  // nothing grabbed in SQL; a launch that crashed halfway is resumed by launching again
    const auto named = CampaignPools::named(*campaign);
    const CampaignPools pools = named ? *named : CampaignPools::read(m_redis, m_keys, campaignId);
    QList<QByteArrayList> metas;
    for (const QByteArray &pool : pools.names())
        metas << PoolCounters::readCommand(m_keys, pool);
    qint64 grabbed = 0;
    for (const RedisValue &meta : m_redis.pipeline(metas)) {
        const PoolCounters counters = PoolCounters::fromReply(meta);
        const QByteArray &redisStatus = counters.status;
        // Redis lost the campaign (or one of its pools), or a close SQL recorded. A live/paused
        // difference alone is not taken for a loss: it is also what a transition in progress
        // looks like (SQL commits after the Redis move); a repair for another reason still
        // settles it the safe way.
        if (redisStatus.isEmpty() || (campaign->status == CampaignStatus::Closed && redisStatus != "closed"))
            return false;
        grabbed += counters.grabbedCount;
    }
    const QHash<qint64, std::pair<qint64, qint64>> grabs = ledgerGrabs(m_sql, campaignId);
    if (grabbed < grabs.size())
        return false;
    // Every grab of the ledger is its user's draw, in the user's home pool.
    QList<QByteArrayList> commands;
    QList<QByteArrayList> expected;
    for (const QByteArray &pool : pools.names()) {
        commands << QByteArrayList{"HMGET", m_keys.campaignDraws(pool)};
        expected << QByteArrayList{};
    }
    const auto check = [&](int index) {
        if (expected[index].isEmpty())
            return true;
        const RedisValue reply = m_redis.command(commands[index]);
        throwOnErrorReply(reply);
        for (qsizetype i = 0; i < expected[index].size(); ++i) {
            const RedisValue &draw = reply.elements.at(size_t(i));
            if (draw.isNil() || draw.toBytes() != expected[index].at(i))
                return false;
        }
        commands[index].resize(2);
        expected[index].clear();
        return true;
    };
    for (auto it = grabs.cbegin(); it != grabs.cend(); ++it) {
        const int home = pools.homeOf(it.key());
        commands[home] << QByteArray::number(it.key());
        expected[home] << envelopeEntry(it->first, it->second);
        if (expected[home].size() >= RepairChunk && !check(home))
            return false;
    }
    for (int index = 0; index < pools.count(); ++index) {
        if (!check(index))
            return false;
    }
    return true;
}

QList<CampaignRepairReport> CampaignRepair::checkAll()
{
    QSet<qint64> ids;
    QSqlQuery open = m_sql.exec(QStringLiteral("SELECT id FROM campaign WHERE status IN ('live', 'paused')"));
    while (open.next())
        ids.insert(open.value(0).toLongLong());
    for (const qint64 id : CampaignPools::launchedCampaigns(m_redis, m_keys))
        ids.insert(id);
    QList<qint64> sorted(ids.cbegin(), ids.cend());
    std::sort(sorted.begin(), sorted.end());
    QList<CampaignRepairReport> repairs;
    for (const qint64 id : std::as_const(sorted)) {
        const RedisValue status = m_redis.command({"HGET", m_keys.campaignMeta(id), "status"});
        throwOnErrorReply(status);
        if (!status.isNil() && status.toBytes() == "closed")
            continue;  // nothing can grab any more
        if (!consistent(id)) {
            if (auto report = repairIfFree(id))
                repairs << *report;
        }
    }
    return repairs;
}

} // namespace lantern
