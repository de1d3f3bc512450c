#include "campaignstate.h"

#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"

#include <set>

namespace lantern::bench {

CampaignState readCampaignState(RedisClient &redis, const KeySchema &keys, qint64 id)
{
    CampaignState state;
    const RedisValue meta = redis.command({QByteArrayLiteral("HMGET"), keys.campaignMeta(id), QByteArrayLiteral("grabbed_count"),
                                           QByteArrayLiteral("grabbed_cents")});
    if (meta.elements.size() != 2)
        throw LanternError(QStringLiteral("HMGET of the campaign's meta hash returned %1 values").arg(meta.elements.size()));
    state.grabbedCount = meta.elements[0].isNil() ? 0 : meta.elements[0].toBytes().toLongLong();
    state.grabbedCents = meta.elements[1].isNil() ? 0 : meta.elements[1].toBytes().toLongLong();
    state.draws = redis.command({QByteArrayLiteral("HLEN"), keys.campaignDraws(id)}).toInteger();
    state.pool = redis.command({QByteArrayLiteral("LLEN"), keys.campaignPool(id)}).toInteger();
    state.tasks = redis.command({QByteArrayLiteral("LLEN"), keys.campaignTasks(id)}).toInteger();
    // The draws, "seq:amount" per uid, a page at a time (HSCAN, not HGETALL: DESIGN §3).
    std::set<qint64> envelopes;
    QByteArray cursor = QByteArrayLiteral("0");
    do {
        const RedisValue page = redis.command({QByteArrayLiteral("HSCAN"), keys.campaignDraws(id), cursor, QByteArrayLiteral("COUNT"),
                                               QByteArrayLiteral("1000")});
        if (page.elements.size() != 2)
            throw LanternError(QStringLiteral("HSCAN of the draws returned an unexpected reply"));
        cursor = page.elements[0].toBytes();
        const std::vector<RedisValue> &fields = page.elements[1].elements;
        for (size_t i = 1; i < fields.size(); i += 2) {
            const QByteArray entry = fields[i].toBytes();
            const qsizetype colon = entry.indexOf(':');
            envelopes.insert(entry.left(colon).toLongLong());
            state.drawnCents += entry.mid(colon + 1).toLongLong();
        }
    } while (cursor != "0");
    state.envelopes = static_cast<qint64>(envelopes.size());
    return state;
}

} // namespace lantern::bench
