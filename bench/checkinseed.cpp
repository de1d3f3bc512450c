#include "checkinseed.h"

#include "checkin/checkinlayout.h"
#include "checkin/monthbits.h"
#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"

#include <QSet>

namespace lantern::bench {

void Pipeliner::add(QByteArrayList command)
{
    m_commands.append(std::move(command));
    if (m_commands.size() >= m_batch)
        flush();
}

void Pipeliner::flush()
{
    if (m_commands.isEmpty())
        return;
    for (const RedisValue &reply : m_redis.pipeline(m_commands)) {
        if (reply.isError())
            throw LanternError(QStringLiteral("Redis refused a command: %1").arg(QString::fromUtf8(reply.toBytes())));
    }
    m_sent += m_commands.size();
    m_commands.clear();
}

qint64 seedBlocks(RedisClient &redis, const KeySchema &keys, QDate month, const std::vector<qint64> &uids,
                  const std::vector<UserMonth> &months, int batch)
{
    static const LuaScript createBlock(QStringLiteral("bench-create-block"),
                                       "if redis.call('EXISTS', KEYS[1]) == 0 then "
                                       "redis.call('SET', KEYS[1], string.rep('\\0', tonumber(ARGV[1]))) end return 1");
    const CheckinLayout layout(keys);
    Pipeliner pipe(redis, batch);
    QSet<QByteArray> created;
    for (size_t i = 0; i < uids.size(); ++i) {
        const UserPlace user = layout.place(uids[i]);
        if (user.dense) {
            const QByteArray block = layout.signKey(user, month);
            if (!created.contains(block)) {
                created.insert(block);
                pipe.flush();
                createBlock.run(redis, {block}, {QByteArray::number(CheckinLayout::BlockBytes)});
            }
        }
        for (QByteArrayList &command : layout.setMonth(uids[i], MonthBits{month, months[i].days}))
            pipe.add(std::move(command));
        if (months[i].makeups != 0)
            pipe.add({QByteArrayLiteral("HSET"), layout.makeupKey(user, month), layout.makeupField(user),
                      QByteArray::number(MonthBits{month, months[i].makeups}.word())});
    }
    pipe.flush();
    return pipe.sent() + created.size();
}

} // namespace lantern::bench
