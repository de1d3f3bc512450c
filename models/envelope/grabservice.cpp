#include "envelope/grabservice.h"

#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

namespace lantern {

namespace {
const LuaScript &grabScript()
{
    static const LuaScript script(QStringLiteral("grab"));
    return script;
}
} // namespace

GrabOutcome GrabService::grab(qint64 campaignId, qint64 uid, qint64 nowMs)
{
    const RedisValue reply = grabScript().run(m_redis,
                                              {m_keys.campaignMeta(campaignId), m_keys.campaignPool(campaignId), m_keys.campaignDraws(campaignId),
                                               m_keys.campaignAttempts(campaignId), m_keys.campaignTasks(campaignId)},
                                              {QByteArray::number(campaignId), QByteArray::number(uid), QByteArray::number(nowMs)});
    if (reply.type != RedisValue::Type::Array || reply.elements.empty())
        throw RedisReplyError(QStringLiteral("grab.lua returned an unexpected reply"));
    GrabOutcome outcome;
    outcome.status = QString::fromLatin1(reply.elements[0].toBytes());
    if (reply.elements.size() == 2) {
        const QByteArray envelope = reply.elements[1].toBytes();
        const qsizetype colon = envelope.indexOf(':');
        outcome.seq = envelope.left(colon).toLongLong();
        outcome.amountCents = envelope.mid(colon + 1).toLongLong();
    }
    return outcome;
}

} // namespace lantern
