#include "envelope/grabservice.h"

#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

#include <utility>

namespace lantern {

namespace {
const LuaScript &grabScript()
{
    static const LuaScript script(QStringLiteral("grab"));
    return script;
}
} // namespace

GrabRun::GrabRun(const KeySchema &keys, qint64 campaignId, qint64 uid, qint64 nowMs)
    : m_campaignId(campaignId),
      m_command(grabScript().evalshaCommand({keys.campaignMeta(campaignId), keys.campaignPool(campaignId), keys.campaignDraws(campaignId),
                                             keys.campaignAttempts(campaignId), keys.campaignTasks(campaignId), keys.campaignRepairLock(campaignId)},
                                            {QByteArray::number(campaignId), QByteArray::number(uid), QByteArray::number(nowMs)}))
{
}

QList<QByteArrayList> GrabRun::nextRound()
{
    if (m_command.isEmpty())
        return {};
    return {std::exchange(m_command, {})};
}

void GrabRun::takeReplies(std::vector<RedisValue> replies)
{
    const RedisValue &reply = replies.at(0);
    if (reply.isError())
        throw RedisReplyError(QString::fromUtf8(reply.string));
    if (reply.type != RedisValue::Type::Array || reply.elements.empty())
        throw RedisReplyError(QStringLiteral("grab.lua returned an unexpected reply"));
    m_outcome.status = QString::fromLatin1(reply.elements[0].toBytes());
    if (m_outcome.status == QLatin1String("repairing"))
        throw UnavailableError(GrabService::tr("campaign %1 is being repaired from the ledger; try again in a moment").arg(m_campaignId));
    if (reply.elements.size() == 2) {
        const QByteArray envelope = reply.elements[1].toBytes();
        const qsizetype colon = envelope.indexOf(':');
        m_outcome.seq = envelope.left(colon).toLongLong();
        m_outcome.amountCents = envelope.mid(colon + 1).toLongLong();
    }
}

GrabOutcome GrabService::grab(qint64 campaignId, qint64 uid, qint64 nowMs)
{
    GrabRun run(m_keys, campaignId, uid, nowMs);
    runConversation(m_redis, run);
    return run.outcome();
}

} // namespace lantern
