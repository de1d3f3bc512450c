#include "checkin/checkinlayout.h"

#include "core/datetext.h"
#include "redis/keyschema.h"
#include "redis/rediserror.h"
#include "redis/redisvalue.h"

namespace lantern {

UserPlace CheckinLayout::place(qint64 uid) const
{
    UserPlace user;
    user.uid = uid;
    user.shard = m_keys.shardOf(uid);
    user.dense = uid >= 0 && uid < m_keys.denseUids();
    if (user.dense) {
        const qint64 index = uid / m_keys.shards();
        user.block = index / BlockUsers;
        user.slot = static_cast<int>(index % BlockUsers);
    } else {
        user.bucket = static_cast<int>((static_cast<quint64>(uid) * 0x9E3779B97F4A7C15ull) >> (64 - SparseBucketBits));
    }
    return user;
}

qint64 CheckinLayout::denseUid(int shard, qint64 block, int slot) const
{
    return (block * BlockUsers + slot) * m_keys.shards() + shard;
}

QByteArray CheckinLayout::signKey(const UserPlace &user, QDate month) const
{
    return user.dense ? m_keys.monthBlock(user.shard, user.block, month) : m_keys.sparseMonth(user.shard, user.bucket, month);
}

QByteArray CheckinLayout::makeupKey(const UserPlace &user, QDate month) const
{
    return user.dense ? m_keys.makeupMarks(user.shard, user.block, user.slot / MakeupGroupUsers, month)
                      : m_keys.sparseMonth(user.shard, user.bucket, month);
}

std::pair<QByteArray, QByteArray> CheckinLayout::signAndMakeupKeys(const UserPlace &user, QDate month) const
{
    if (!user.dense) {
        QByteArray key = m_keys.sparseMonth(user.shard, user.bucket, month);
        return {key, key};
    }
    return {signKey(user, month), makeupKey(user, month)};
}

QByteArray CheckinLayout::makeupField(const UserPlace &user) const
{
    return user.dense ? QByteArray::number(user.slot) : "m" + QByteArray::number(user.uid);
}

QByteArrayList CheckinLayout::readSign(qint64 uid, QDate month) const
{
    const UserPlace user = place(uid);
    if (user.dense)
        return {QByteArrayLiteral("BITFIELD"), signKey(user, month), QByteArrayLiteral("GET"), QByteArrayLiteral("u32"),
                '#' + QByteArray::number(user.slot)};
    return {QByteArrayLiteral("HGET"), signKey(user, month), QByteArray::number(uid)};
}

QByteArrayList CheckinLayout::readMakeup(qint64 uid, QDate month) const
{
    const UserPlace user = place(uid);
    return {QByteArrayLiteral("HGET"), makeupKey(user, month), makeupField(user)};
}

QList<QByteArrayList> CheckinLayout::setMonth(qint64 uid, const MonthBits &bits) const
{
    const UserPlace user = place(uid);
    const QByteArray word = QByteArray::number(bits.word());
    if (!user.dense)
        return {{QByteArrayLiteral("HSET"), signKey(user, bits.month), QByteArray::number(uid), word}};
    return {{QByteArrayLiteral("BITFIELD"), signKey(user, bits.month), QByteArrayLiteral("SET"), QByteArrayLiteral("u32"),
             '#' + QByteArray::number(user.slot), word},
            {QByteArrayLiteral("SADD"), m_keys.monthBlocks(user.shard, bits.month), QByteArray::number(user.block)}};
}

quint32 CheckinLayout::word(const RedisValue &reply)
{
    throwOnErrorReply(reply);
    if (reply.type == RedisValue::Type::Array) {
        if (reply.elements.size() != 1)
            throw RedisReplyError(tr("unexpected BITFIELD reply"));
        return static_cast<quint32>(reply.elements.front().toInteger());
    }
    return reply.isNil() ? 0 : static_cast<quint32>(reply.toInteger());
}

MonthBits CheckinLayout::bits(QDate month, const RedisValue &reply)
{
    return MonthBits::fromWord(month, word(reply));
}

QByteArray CheckinLayout::placeArgument(const UserPlace &user)
{
    return user.dense ? QByteArray::number(user.block) + ':' + QByteArray::number(user.slot) + ':' + QByteArray::number(BlockBytes) : QByteArray();
}

} // namespace lantern
