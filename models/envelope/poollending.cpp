#include "envelope/poollending.h"

#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"


#include <algorithm>

namespace lantern {

namespace {
const LuaScript &lendScript()
{
    static const LuaScript script(QStringLiteral("pool_lend"));
    return script;
}

const LuaScript &receiveScript()
{
    static const LuaScript script(QStringLiteral("pool_receive"));
    return script;
}

const LuaScript &settleScript()
{
    static const LuaScript script(QStringLiteral("pool_settle"));
    return script;
}

} // namespace

namespace poollending {

QByteArrayList lendCommand(const KeySchema &keys, const QByteArray &donor, const QByteArray &home, qint64 uid, qint64 nowMs)
{
    return lendScript().evalshaCommand({keys.campaignMeta(donor), keys.campaignPool(donor), keys.campaignLent(donor), keys.campaignRepairLock(donor)},
                                       {home, QByteArray::number(uid), QByteArray::number(nowMs)});
}

QByteArrayList receiveCommand(const KeySchema &keys, qint64 campaignId, const QByteArray &home, qint64 uid, const QByteArray &envelope, qint64 nowMs)
{
    return receiveScript().evalshaCommand({keys.campaignMeta(home), keys.campaignDraws(home), keys.campaignTasks(home)},
                                          {QByteArray::number(campaignId), QByteArray::number(uid), envelope, QByteArray::number(nowMs)});
}

QByteArrayList settleCommand(const KeySchema &keys, const QByteArray &donor, const QByteArray &envelope, bool kept)
{
    return settleScript().evalshaCommand({keys.campaignMeta(donor), keys.campaignPool(donor), keys.campaignLent(donor)},
                                         {envelope, kept ? QByteArrayLiteral("kept") : QByteArrayLiteral("returned")});
}

} // namespace poollending

std::optional<LentEnvelope> LentEnvelope::parse(const QByteArray &donor, const QByteArray &envelope, const QByteArray &value)
{
    const QByteArrayList parts = value.split('|');
    bool uidOk = false;
    bool atOk = false;
    LentEnvelope lent{donor, envelope, parts.value(0), parts.value(1).toLongLong(&uidOk), parts.value(2).toLongLong(&atOk)};
    const qsizetype colon = envelope.indexOf(':');
    if (parts.size() != 3 || !uidOk || !atOk || colon <= 0 || CampaignPools::campaignOf(lent.home) != CampaignPools::campaignOf(donor))
        return std::nullopt;
    return lent;
}

LentSettlement &LentSettlement::operator+=(const LentSettlement &other)
{
    found += other.found;
    kept += other.kept;
    returned += other.returned;
    refunded += other.refunded;
    malformed += other.malformed;
    return *this;
}

LentSettlement PoolLending::settleEveryCampaign(qint64 minAgeMs, qint64 nowMs)
{
    LentSettlement total;
    qint64 settled = 0;  // the last campaign settled: its pools come one after another
    for (const QByteArray &pool : CampaignPools::launched(m_redis, m_keys)) {
        const qint64 id = *CampaignPools::campaignOf(pool);
        if (pool.contains('.') && id != settled) {  // a campaign with sub-pools
            total += settleLent(CampaignPools::read(m_redis, m_keys, id), minAgeMs, nowMs);
            settled = id;
        }
    }
    return total;
}

qint64 PoolLending::lentCount(const CampaignPools &pools)
{
    QList<QByteArrayList> commands;
    for (const QByteArray &pool : pools.names())
        commands << QByteArrayList{"HLEN", m_keys.campaignLent(pool)};
    qint64 total = 0;
    for (const RedisValue &reply : m_redis.pipeline(commands)) {
        throwOnErrorReply(reply);
        total += reply.toInteger();
    }
    return total;
}

LentSettlement PoolLending::settleLent(const CampaignPools &pools, qint64 minAgeMs, qint64 nowMs)
{
    LentSettlement done;
    if (pools.count() == 1)
        return done;
    for (const QByteArray &donor : pools.names()) {
        const RedisValue records = m_redis.command({"HGETALL", m_keys.campaignLent(donor)});
        throwOnErrorReply(records);
        for (size_t i = 0; i + 1 < records.elements.size(); i += 2) {
            const auto lent = LentEnvelope::parse(donor, records.elements[i].toBytes(), records.elements[i + 1].toBytes());
            if (!lent) {
                ++done.malformed;
                continue;
            }
            if (nowMs - lent->atMs < minAgeMs)
                continue;
            ++done.found;
            const RedisValue received = receiveScript().run(m_redis, {m_keys.campaignMeta(lent->home), m_keys.campaignDraws(lent->home), m_keys.campaignTasks(lent->home)},
                                                            {QByteArray::number(pools.campaignId()), QByteArray::number(lent->uid), lent->envelope, QByteArray::number(nowMs)});
            const bool kept = !received.elements.empty() && received.elements[0].toBytes() == "ok";
            const RedisValue settled = settleScript().run(m_redis, {m_keys.campaignMeta(donor), m_keys.campaignPool(donor), m_keys.campaignLent(donor)},
                                                          {lent->envelope, kept ? QByteArrayLiteral("kept") : QByteArrayLiteral("returned")});
            const QByteArray outcome = settled.toBytes();
            if (outcome == "returned")
                ++done.returned;
            else if (outcome == "refund")
                ++done.refunded;
            else
                ++done.kept;
        }
    }
    return done;
}

} // namespace lantern
