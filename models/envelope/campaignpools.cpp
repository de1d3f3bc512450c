#include "envelope/campaignpools.h"

#include "core/errors.h"
#include "core/textwriter.h"
#include "envelope/campaign.h"
#include "redis/clusterslotmap.h"
#include "redis/keyschema.h"
#include "redis/keyslot.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

#include <QHash>

#include <algorithm>

#include <mutex>
#include <shared_mutex>

namespace lantern {

namespace {
/** Salts tried per pool before taking any master: with M masters owning equal shares, a salt
    misses a wanted master with probability 1 - 1/M, so 4,096 tries never all miss in practice. */
constexpr int MaxSaltTries = 4096;

bool isDigits(QByteArrayView text)
{
    return !text.isEmpty() && text.size() <= 18 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}
struct Remembered {
    std::shared_mutex lock;
    QHash<QByteArray, CampaignPools> pools;  // prefix + id -> pools
};

Remembered &poolMemory()
{
    static Remembered instance;
    return instance;
}

QByteArray rememberedKey(const KeySchema &keys, qint64 campaignId)
{
    TextWriter key(keys.prefix().size() + 20);  // looked up for every grab: one allocation
    key << keys.prefix();
    key.number(campaignId);
    return key.take();
}
} // namespace

std::optional<CampaignPools> CampaignPools::remembered(const KeySchema &keys, qint64 campaignId)
{
    Remembered &all = poolMemory();
    std::shared_lock lock(all.lock);
    const auto found = all.pools.constFind(rememberedKey(keys, campaignId));
    return found == all.pools.cend() ? std::nullopt : std::optional<CampaignPools>(*found);
}

void CampaignPools::remember(const KeySchema &keys, const CampaignPools &pools)
{
    Remembered &all = poolMemory();
    std::unique_lock lock(all.lock);
    all.pools.insert(rememberedKey(keys, pools.campaignId()), pools);
}

void CampaignPools::forget(const KeySchema &keys, qint64 campaignId)
{
    Remembered &all = poolMemory();
    std::unique_lock lock(all.lock);
    all.pools.remove(rememberedKey(keys, campaignId));
}

CampaignPools CampaignPools::read(RedisClient &redis, const KeySchema &keys, qint64 campaignId)
{
    return fromReply(campaignId, redis.command({"HGET", keys.campaignMeta(campaignId), "pools"}));
}

CampaignPools CampaignPools::fromReply(qint64 campaignId, const RedisValue &reply)
{
    throwOnErrorReply(reply);
    const auto pools = fromField(campaignId, reply.isNil() ? QByteArray() : reply.toBytes());
    if (!pools)
        throw RedisReplyError(tr("campaign %1's pools field in Redis is not a list of its pools: %2").arg(campaignId).arg(QString::fromUtf8(reply.toBytes())));
    return *pools;
}

std::optional<CampaignPools> CampaignPools::named(const Campaign &campaign)
{
    if (campaign.pools <= 1)
        return single(campaign.id);
    if (campaign.poolNames.isEmpty())
        return std::nullopt;
    const auto pools = fromField(campaign.id, campaign.poolNames);
    return pools && pools->count() == campaign.pools ? pools : std::nullopt;
}

CampaignPools CampaignPools::single(qint64 campaignId)
{
    return CampaignPools(campaignId, {QByteArray::number(campaignId)});
}

CampaignPools CampaignPools::choose(RedisClient &redis, const KeySchema &keys, qint64 campaignId, int count)
{
    if (count < 1 || count > MaxPools)
        throw InvalidInputError(tr("invalid --pools %1: expected 1 to %2").arg(count).arg(MaxPools));
    const QByteArray first = QByteArray::number(campaignId);
    QByteArrayList names{first};
    if (!redis.isCluster()) {
        for (int k = 1; k < count; ++k)
            names << first + '.' + QByteArray::number(k);
        return CampaignPools(campaignId, names);
    }
    redis.ensureConnected();
    const QList<RedisEndpoint> connected = redis.clusterMasters();
    const ClusterSlotMap map = ClusterSlotMap::fromSlotsReply(redis.command({"CLUSTER", "SLOTS"}), connected.value(0));
    const QList<RedisEndpoint> masters = map.masters();
    const auto ownerOf = [&](const QByteArray &pool) { return map.masterOf(keyslot::of(keys.campaignMeta(pool))); };
    // Masters in the map's order, starting after the first pool's, so K = M puts one on each.
    const auto firstOwner = ownerOf(first);
    const qsizetype start = firstOwner ? masters.indexOf(*firstOwner) : -1;
    int salt = 1;
    for (int k = 1; k < count; ++k) {
        const RedisEndpoint wanted = masters.isEmpty() ? RedisEndpoint{} : masters.at((start + k) % masters.size());
        QByteArray name;
        for (int tries = 0; tries < MaxSaltTries && name.isEmpty(); ++tries, ++salt) {
            const QByteArray candidate = first + '.' + QByteArray::number(salt);
            if (masters.isEmpty() || ownerOf(candidate) == wanted)
                name = candidate;
        }
        if (name.isEmpty())  // a map without that master any more: any salt will do
            name = first + '.' + QByteArray::number(salt++);
        names << name;
    }
    return CampaignPools(campaignId, names);
}

std::optional<CampaignPools> CampaignPools::fromField(qint64 campaignId, const QByteArray &field)
{
    const QByteArray first = QByteArray::number(campaignId);
    if (field.isEmpty())
        return single(campaignId);
    const QByteArrayList names = field.split(',');
    if (names.size() > MaxPools || names.first() != first)
        return std::nullopt;
    for (qsizetype i = 1; i < names.size(); ++i) {
        if (campaignOf(names[i]) != campaignId || names[i] == first || names.indexOf(names[i]) != i)
            return std::nullopt;
    }
    return CampaignPools(campaignId, names);
}

QByteArrayList CampaignPools::launched(RedisClient &redis, const KeySchema &keys)
{
    const RedisValue members = redis.command({"SMEMBERS", keys.campaignSet()});
    throwOnErrorReply(members);
    QList<std::pair<std::pair<qint64, qint64>, QByteArray>> pools;  // (campaign, pool number; -1 for the first) -> name
    for (const RedisValue &member : members.elements) {
        const QByteArray name = member.toBytes();
        if (const auto id = campaignOf(name)) {
            const qsizetype dot = name.indexOf('.');
            pools.append({{*id, dot < 0 ? -1 : name.mid(dot + 1).toLongLong()}, name});
        }
    }
    std::sort(pools.begin(), pools.end());
    QByteArrayList names;
    for (const auto &pool : std::as_const(pools))
        names << pool.second;
    return names;
}

QList<qint64> CampaignPools::launchedCampaigns(RedisClient &redis, const KeySchema &keys)
{
    QList<qint64> ids;
    for (const QByteArray &pool : launched(redis, keys)) {
        const qint64 id = *campaignOf(pool);
        if (ids.isEmpty() || ids.last() != id)
            ids << id;
    }
    return ids;
}

std::optional<qint64> CampaignPools::campaignOf(const QByteArray &poolName)
{
    const qsizetype dot = poolName.indexOf('.');
    const QByteArrayView id = QByteArrayView(poolName).first(dot < 0 ? poolName.size() : dot);
    if (!isDigits(id) || (dot >= 0 && !isDigits(QByteArrayView(poolName).sliced(dot + 1))))
        return std::nullopt;
    const qint64 value = id.toLongLong();
    return value > 0 ? std::optional<qint64>(value) : std::nullopt;
}

int CampaignPools::homeOf(qint64 uid) const
{
    if (count() == 1)
        return 0;
    // splitmix64's finaliser: consecutive uids spread evenly over the pools.
    quint64 x = quint64(uid) + 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return int(x % quint64(count()));
}

qint64 CampaignPools::envelopesIn(int index, qint64 envelopes) const
{
    return envelopes / count() + (index < envelopes % count() ? 1 : 0);
}

} // namespace lantern
