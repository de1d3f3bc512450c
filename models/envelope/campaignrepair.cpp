#include "envelope/campaignrepair.h"

#include "core/errors.h"
#include "envelope/campaign.h"
#include "envelope/campaignpools.h"
#include "envelope/campaignstore.h"
#include "envelope/payouttask.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "sql/sqlconnection.h"

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

void throwOnError(const RedisValue &reply)
{
    if (reply.isError())
        throw RedisReplyError(QString::fromUtf8(reply.string));
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

CampaignRepair::CampaignRepair(RedisClient &redis, SqlConnection &sql, const KeySchema &keys) : m_redis(redis), m_sql(sql), m_keys(keys) {}

CampaignRepairReport CampaignRepair::repair(qint64 campaignId)
{
    return *run(campaignId, false);
}

std::optional<CampaignRepairReport> CampaignRepair::repairIfFree(qint64 campaignId)
{
    return run(campaignId, true);
}

std::optional<CampaignRepairReport> CampaignRepair::run(qint64 campaignId, bool skipIfBusy)
{
    const auto campaign = CampaignStore(m_sql).find(campaignId);
    if (!campaign)
        throw InvalidInputError(tr("no campaign with id %1").arg(campaignId));
    const QByteArray meta = m_keys.campaignMeta(campaignId);
    const RedisValue redisStatus = m_redis.command({"HGET", meta, "status"});
    throwOnError(redisStatus);
    const QByteArray status = repairedStatus(campaign->status, redisStatus.isNil() ? QByteArray() : redisStatus.toBytes());
    if (status.isEmpty() || status == "draft")
        throw RefusedError(tr("campaign %1 is a draft: it has no grabs to repair").arg(campaignId));
    if (campaign->pools > 1) {
        if (skipIfBusy)
            return std::nullopt;
        throw RefusedError(tr("campaign %1 has %2 sub-pools: a repair from the ledger rebuilds campaigns of one pool only (docs/cluster.md)")
                                   .arg(campaignId)
                                   .arg(campaign->pools));
    }

    // 1. Grabs of this campaign wait from here on (grab.lua answers 'repairing').
    const QByteArray lock = m_keys.campaignRepairLock(campaignId);
    const QByteArray token = QByteArray::number(QRandomGenerator::system()->generate64(), 16);
    if (m_redis.command({"SET", lock, token, "NX", "PX", QByteArray::number(LockTtlMs)}).isNil()) {
        if (skipIfBusy)
            return std::nullopt;
        throw RefusedError(tr("campaign %1 is being repaired by another process; try again when it is done").arg(campaignId));
    }
    try {
        CampaignRepairReport report;
        report.campaignId = campaignId;
        report.status = QString::fromLatin1(status);

        // 2. What is on its way to SQL, read at one instant (one MULTI in the campaign's slot):
        //    the task queue and every worker's backup list. The worker registry (lt:workers) is
        //    in another slot, so it is read before and after: a worker registers (its first
        //    heartbeat) before it claims anything, so one whose claim the snapshot could have
        //    missed is in the registry by the second read, and the snapshot is taken again.
        QList<PayoutTask> queued;
        for (int attempt = 1;; ++attempt) {
            const RedisValue members = m_redis.command({"SMEMBERS", m_keys.workerSet()});
            throwOnError(members);
            QList<QByteArrayList> commands{{"MULTI"},
                                           {"LLEN", m_keys.campaignPool(campaignId)},
                                           {"HLEN", m_keys.campaignDraws(campaignId)},
                                           {"LRANGE", m_keys.campaignTasks(campaignId), "0", "-1"}};
            QSet<QByteArray> workers;
            for (const RedisValue &member : members.elements) {
                workers.insert(member.toBytes());
                commands.append({"LRANGE", m_keys.campaignBackup(campaignId, QString::fromUtf8(member.toBytes())), "0", "-1"});
            }
            commands.append({"EXEC"});
            const std::vector<RedisValue> replies = m_redis.pipeline(commands);
            for (const RedisValue &reply : replies)
                throwOnError(reply);
            const RedisValue &results = replies.back();
            if (results.type != RedisValue::Type::Array || qsizetype(results.elements.size()) != commands.size() - 2)
                throw RedisReplyError(QStringLiteral("the repair's snapshot of campaign %1 came back incomplete").arg(campaignId));
            const RedisValue after = m_redis.command({"SMEMBERS", m_keys.workerSet()});
            throwOnError(after);
            QSet<QByteArray> workersThen;
            for (const RedisValue &member : after.elements)
                workersThen.insert(member.toBytes());
            if (!workersThen.contains(workers) || workersThen.size() != workers.size()) {
                if (attempt == SnapshotAttempts)
                    throw UnavailableError(tr("workers keep registering; the repair of campaign %1 could not read their lists").arg(campaignId));
                continue;
            }
            report.poolBefore = results.elements[0].toInteger();
            report.drawsBefore = results.elements[1].toInteger();
            for (size_t list = 2; list < results.elements.size(); ++list) {
                for (const RedisValue &entry : results.elements[list].elements) {
                    const auto task = PayoutTask::fromJson(entry.toBytes());
                    if (task && task->campaignId == campaignId)
                        queued << *task;
                }
            }
            break;
        }

        // 3. The ledger's grabs, then the queued ones it will accept: the first grab of an
        //    envelope or of a user wins, as the ledger's unique keys decide.
        QHash<qint64, std::pair<qint64, qint64>> held = ledgerGrabs(m_sql, campaignId);  // uid -> (seq, amount)
        report.ledgerGrabs = held.size();
        QSet<qint64> heldSeqs;
        for (const auto &[seq, amount] : std::as_const(held))
            heldSeqs.insert(seq);
        std::sort(queued.begin(), queued.end(), [](const PayoutTask &a, const PayoutTask &b) {
            return std::tie(a.atMs, a.seq) < std::tie(b.atMs, b.seq);
        });
        QByteArrayList refusedMembers;
        for (const PayoutTask &task : std::as_const(queued)) {
            const auto mine = held.constFind(task.uid);
            if (mine != held.cend() && mine->first == task.seq)
                continue;  // persisted already
            if (mine != held.cend() || heldSeqs.contains(task.seq)) {
                refusedMembers << QByteArray::number(task.seq) + ':' + QByteArray::number(task.uid);
                ++report.refusedInFlight;
                continue;
            }
            held.insert(task.uid, {task.seq, task.amountCents});
            heldSeqs.insert(task.seq);
            ++report.inFlight;
        }
        report.grabbedCount = held.size();
        for (const auto &[seq, amount] : std::as_const(held))
            report.grabbedCents += amount;

        // 4. The new draws and pool, staged next to the live ones.
        const QByteArray stagingPool = m_keys.campaignRepairStaging(campaignId, "pool");
        const QByteArray stagingDraws = m_keys.campaignRepairStaging(campaignId, "draws");
        throwOnError(m_redis.command({"DEL", stagingPool, stagingDraws}));
        const auto flush = [&](QByteArrayList &command, qsizetype head) {
            if (command.size() > head) {
                throwOnError(m_redis.pipeline({command, {"PEXPIRE", lock, QByteArray::number(LockTtlMs)}}).front());
                command.resize(head);
            }
        };
        QByteArrayList draws{"HSET", stagingDraws};
        for (auto it = held.cbegin(); it != held.cend(); ++it) {
            draws << QByteArray::number(it.key()) << envelopeEntry(it->first, it->second);
            if (draws.size() >= 2 + 2 * RepairChunk)
                flush(draws, 2);
        }
        flush(draws, 2);
        report.drawsAfter = held.size();
        if (status != "closed") {
            QSqlQuery envelopes = m_sql.exec(QStringLiteral("SELECT seq, amount_cents FROM envelope WHERE campaign_id = ? ORDER BY seq"), {campaignId});
            qint64 envelopeCount = 0;
            QByteArrayList pool{"RPUSH", stagingPool};
            while (envelopes.next()) {
                ++envelopeCount;
                const qint64 seq = envelopes.value(0).toLongLong();
                if (heldSeqs.contains(seq))
                    continue;
                pool << envelopeEntry(seq, envelopes.value(1).toLongLong());
                ++report.poolAfter;
                if (pool.size() >= 2 + RepairChunk)
                    flush(pool, 2);
            }
            flush(pool, 2);
            if (envelopeCount != campaign->count)
                throw LanternError(tr("campaign %1 has %2 envelopes in SQL instead of %3: its pool cannot be rebuilt")
                                           .arg(campaignId)
                                           .arg(envelopeCount)
                                           .arg(campaign->count));
        }

        // 5. Known to workers, and the staged state in place in one script, which also lifts the wait.
        throwOnError(m_redis.command({"SADD", m_keys.campaignSet(), QByteArray::number(campaignId)}));
        QByteArrayList args{token,
                            QByteArray::number(report.grabbedCount),
                            QByteArray::number(report.grabbedCents),
                            status,
                            QByteArray::number(campaign->maxAttempts),
                            QByteArray::number(campaign->totalCents),
                            QByteArray::number(campaign->count)};
        args << refusedMembers;
        const RedisValue swapped = repairSwapScript().run(m_redis,
                                                          {meta, m_keys.campaignPool(campaignId), m_keys.campaignDraws(campaignId),
                                                           m_keys.campaignRefused(campaignId), lock, stagingPool, stagingDraws},
                                                          args);
        if (swapped.toBytes() != "ok")
            throw UnavailableError(tr("the repair of campaign %1 took longer than %2 s and was abandoned; run it again").arg(campaignId).arg(LockTtlMs / 1000));

        // 6. A closed campaign refunds what nobody holds.
        if (status == "closed") {
            report.refundedCents = campaign->totalCents - report.grabbedCents;
            m_sql.exec(QStringLiteral("UPDATE campaign SET refunded_cents = ? WHERE id = ?"), {*report.refundedCents, campaignId});
        }
        return report;
    } catch (...) {
        try {
            const RedisValue holder = m_redis.command({"GET", lock});
            if (!holder.isNil() && holder.toBytes() == token)
                m_redis.command({"DEL", lock});
        } catch (const LanternError &) {
            // the lock expires by itself
        }
        throw;
    }
}

bool CampaignRepair::consistent(qint64 campaignId)
{
    const auto campaign = CampaignStore(m_sql).find(campaignId);
    if (!campaign)
        return true;
    const RedisValue meta = m_redis.command({"HMGET", m_keys.campaignMeta(campaignId), "status", "grabbed_count"});
    throwOnError(meta);
    const QByteArray redisStatus = meta.elements.at(0).isNil() ? QByteArray() : meta.elements.at(0).toBytes();
    if (campaign->status == CampaignStatus::Draft)
        return true;  // nothing grabbed in SQL; a launch that crashed halfway is resumed by launching again
    if (campaign->pools > 1)
        return true;  // not repaired from the ledger (run() says why); verify reports what it finds
    // Redis lost the campaign, or a close SQL recorded. A live/paused difference alone is not
    // taken for a loss: it is also what a transition in progress looks like (SQL commits after
    // the Redis move); a repair for another reason still settles it the safe way.
    if (redisStatus.isEmpty() || (campaign->status == CampaignStatus::Closed && redisStatus != "closed"))
        return false;
    const QHash<qint64, std::pair<qint64, qint64>> grabs = ledgerGrabs(m_sql, campaignId);
    if ((meta.elements.at(1).isNil() ? 0 : meta.elements.at(1).toInteger()) < grabs.size())
        return false;
    QByteArrayList command{"HMGET", m_keys.campaignDraws(campaignId)};
    QByteArrayList expected;
    const auto check = [&] {
        if (expected.isEmpty())
            return true;
        const RedisValue reply = m_redis.command(command);
        throwOnError(reply);
        for (qsizetype i = 0; i < expected.size(); ++i) {
            const RedisValue &draw = reply.elements.at(size_t(i));
            if (draw.isNil() || draw.toBytes() != expected.at(i))
                return false;
        }
        command.resize(2);
        expected.clear();
        return true;
    };
    for (auto it = grabs.cbegin(); it != grabs.cend(); ++it) {
        command << QByteArray::number(it.key());
        expected << envelopeEntry(it->first, it->second);
        if (expected.size() >= RepairChunk && !check())
            return false;
    }
    return check();
}

QList<CampaignRepairReport> CampaignRepair::checkAll()
{
    QSet<qint64> ids;
    QSqlQuery open = m_sql.exec(QStringLiteral("SELECT id FROM campaign WHERE status IN ('live', 'paused')"));
    while (open.next())
        ids.insert(open.value(0).toLongLong());
    const RedisValue launched = m_redis.command({"SMEMBERS", m_keys.campaignSet()});
    throwOnError(launched);
    for (const RedisValue &member : launched.elements) {
        if (const auto id = CampaignPools::campaignOf(member.toBytes()))
            ids.insert(*id);
    }
    QList<qint64> sorted(ids.cbegin(), ids.cend());
    std::sort(sorted.begin(), sorted.end());
    QList<CampaignRepairReport> repairs;
    for (const qint64 id : std::as_const(sorted)) {
        const RedisValue status = m_redis.command({"HGET", m_keys.campaignMeta(id), "status"});
        throwOnError(status);
        if (!status.isNil() && status.toBytes() == "closed")
            continue;  // nothing can grab any more
        if (!consistent(id)) {
            if (auto report = repairIfFree(id))
                repairs << *report;
        }
    }
    return repairs;
}

bool RedisRunWatch::changed(RedisClient &redis)
{
    // Every master's run_id: on a cluster a failover (a replica promoted) or a restart of any
    // master changes it, and only that master's campaigns may have rolled back.
    QByteArrayList servers;
    for (const auto &[master, info] : redis.onEveryMaster({"INFO", "server"})) {
        throwOnError(info);
        QByteArray runId;
        for (const QByteArray &line : info.toBytes().split('\n')) {
            if (line.startsWith("run_id:"))
                runId = line.mid(7).trimmed();
        }
        servers << master.text().toUtf8() + '=' + runId;
    }
    std::sort(servers.begin(), servers.end());
    m_seen = servers.join(' ');
    return m_seen != m_checked;
}

} // namespace lantern
