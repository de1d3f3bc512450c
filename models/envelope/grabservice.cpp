#include "envelope/grabservice.h"

#include "core/errors.h"
#include "core/textwriter.h"
#include "envelope/poollending.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace lantern {

namespace {
const LuaScript &grabScript()
{
    static const LuaScript script(QStringLiteral("grab"));
    return script;
}

/** grab.lua's six keys for `pool`, built once per thread and pool: a storm asks for the same few
    pools over and over (issue 28). The reference is good until the next call. */
const QByteArrayList &grabKeys(const KeySchema &keys, const QByteArray &pool)
{
    struct Entry {
        QByteArray prefix;
        QByteArray pool;
        QByteArrayList keys;
    };
    constexpr size_t MaxPools = 16;  // per thread; the oldest goes first
    thread_local std::vector<Entry> cache;
    for (const Entry &entry : cache) {
        if (entry.pool == pool && entry.prefix == keys.prefix())
            return entry.keys;
    }
    if (cache.size() >= MaxPools)
        cache.erase(cache.begin());
    cache.push_back({keys.prefix(), pool,
                     {keys.campaignMeta(pool), keys.campaignPool(pool), keys.campaignDraws(pool), keys.campaignAttempts(pool),
                      keys.campaignTasks(pool), keys.campaignRepairLock(pool)}});
    return cache.back().keys;
}

/** "seq:amount" into the outcome. */
void setEnvelope(GrabOutcome &outcome, const QByteArray &envelope)
{
    const qsizetype colon = envelope.indexOf(':');
    outcome.seq = envelope.left(colon).toLongLong();
    outcome.amountCents = envelope.mid(colon + 1).toLongLong();
}
} // namespace

GrabRun::GrabRun(const KeySchema &keys, qint64 campaignId, qint64 uid, qint64 nowMs, GrabWait wait)
    : m_keys(keys), m_campaignId(campaignId), m_uid(uid), m_nowMs(nowMs), m_wait(wait), m_pools(CampaignPools::remembered(keys, campaignId))
{
    if (m_pools) {
        m_home = m_pools->homeOf(uid);
        m_step = Step::Grab;
    }
}

int GrabRun::donor(int tries) const
{
    const int others = m_pools->count() - 1;
    return (m_home + 1 + int((quint64(m_uid) + quint64(tries)) % quint64(others))) % m_pools->count();
}

QList<QByteArrayList> GrabRun::writeRound(QByteArrayList script) const
{
    if (!m_wait.enabled())
        return {script};
    return {script, {"WAIT", decimal(m_wait.replicas), decimal(m_wait.timeoutMs)}};
}

QList<QByteArrayList> GrabRun::nextRound()
{
    switch (m_step) {
    case Step::ReadPools:
        return {{"HMGET", m_keys.campaignMeta(m_campaignId), "status", "pools"}};
    case Step::Grab: {
        const QByteArray &home = m_pools->name(m_home);
        return writeRound(grabScript().evalshaCommand(grabKeys(m_keys, home),
                                                      {decimal(m_campaignId), decimal(m_uid), decimal(m_nowMs), decimal(m_pools->count())}));
    }
    case Step::Lend:
        return writeRound(poollending::lendCommand(m_keys, m_pools->name(donor(m_lendTries)), m_pools->name(m_home), m_uid, m_nowMs));
    case Step::Receive:
        return writeRound(poollending::receiveCommand(m_keys, m_campaignId, m_pools->name(m_home), m_uid, m_lent, m_nowMs));
    case Step::Settle:
        return {poollending::settleCommand(m_keys, m_pools->name(donor(m_lendTries)), m_lent, m_kept)};
    case Step::Done:
        break;
    }
    return {};
}

void GrabRun::takeReplies(std::vector<RedisValue> replies)
{
    const RedisValue &reply = replies.at(0);
    throwOnErrorReply(reply);
    if (m_wait.enabled() && replies.size() == 2 && m_step != Step::ReadPools && m_step != Step::Settle) {
        throwOnErrorReply(replies[1]);
        const int acknowledged = int(replies[1].toInteger());
        m_outcome.replicas = m_outcome.replicas < 0 ? acknowledged : std::min(m_outcome.replicas, acknowledged);
    }
    switch (m_step) {
    case Step::ReadPools:
        return takePools(reply);
    case Step::Grab:
        return takeGrab(reply);
    case Step::Lend:
        return takeLend(reply);
    case Step::Receive:
        return takeReceive(reply);
    case Step::Settle:
    case Step::Done:
        m_step = Step::Done;
        return;
    }
}

void GrabRun::takePools(const RedisValue &reply)
{
    if (reply.elements.size() != 2)
        throw RedisReplyError(QStringLiteral("HMGET returned an unexpected reply"));
    const bool launched = !reply.elements[0].isNil();
    m_pools = CampaignPools::fromField(m_campaignId, reply.elements[1].isNil() ? QByteArray() : reply.elements[1].toBytes());
    if (!m_pools)
        throw RedisReplyError(QStringLiteral("campaign %1's pools field in Redis is not a list of its pools").arg(m_campaignId));
    // Pools are fixed at launch; a campaign not launched yet may still get its pools.
    if (launched)
        CampaignPools::remember(m_keys, *m_pools);
    m_home = m_pools->homeOf(m_uid);
    m_step = Step::Grab;
}

void GrabRun::takeGrab(const RedisValue &reply)
{
    if (reply.type != RedisValue::Type::Array || reply.elements.empty())
        throw RedisReplyError(QStringLiteral("grab.lua returned an unexpected reply"));
    const QByteArray status = reply.elements[0].toBytes();
    if (status == "repairing")
        throw UnavailableError(GrabService::tr("campaign %1 is being repaired from the ledger; try again in a moment").arg(m_campaignId));
    if (status == "stale") {
        CampaignPools::forget(m_keys, m_campaignId);
        if (!std::exchange(m_readAgain, true)) {
            m_step = Step::ReadPools;
            return;
        }
        m_outcome.status = QStringLiteral("not_live");
        m_step = Step::Done;
        return;
    }
    if (status == "dry") {
        m_lendTries = 0;
        m_step = Step::Lend;
        return;
    }
    m_outcome.status = QString::fromLatin1(status);
    if (reply.elements.size() == 2)
        setEnvelope(m_outcome, reply.elements[1].toBytes());
    m_step = Step::Done;
}

void GrabRun::takeLend(const RedisValue &reply)
{
    const QByteArray status = reply.elements.empty() ? QByteArray() : reply.elements[0].toBytes();
    if (status == "lent" && reply.elements.size() == 2) {
        m_lent = reply.elements[1].toBytes();
        m_step = Step::Receive;
    } else if (status == "dry") {
        if (++m_lendTries < m_pools->count() - 1)
            return;
        m_outcome.status = QStringLiteral("sold_out");
        m_step = Step::Done;
    } else if (status == "not_live") {
        m_outcome.status = QStringLiteral("not_live");
        m_step = Step::Done;
    } else if (status == "repairing") {
        throw UnavailableError(GrabService::tr("campaign %1 is being repaired from the ledger; try again in a moment").arg(m_campaignId));
    } else {
        throw RedisReplyError(QStringLiteral("pool_lend.lua returned an unexpected reply"));
    }
}

void GrabRun::takeReceive(const RedisValue &reply)
{
    if (reply.elements.size() != 2)
        throw RedisReplyError(QStringLiteral("pool_receive.lua returned an unexpected reply"));
    // 'other': two grabs of this user ran at once and the other one won; the user keeps that
    // envelope and this one goes back.
    m_kept = reply.elements[0].toBytes() == "ok";
    m_outcome.status = m_kept ? QStringLiteral("ok") : QStringLiteral("already");
    setEnvelope(m_outcome, reply.elements[1].toBytes());
    m_step = Step::Settle;
}

GrabOutcome GrabService::grab(qint64 campaignId, qint64 uid, qint64 nowMs)
{
    GrabRun run(m_keys, campaignId, uid, nowMs, m_wait);
    runConversation(m_redis, run);
    return run.outcome();
}

} // namespace lantern
