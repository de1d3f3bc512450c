#include "checkin/monthscan.h"

#include "checkin/checkinlayout.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

#include <QSet>
#include <algorithm>
#include <QtEndian>

#include <map>

namespace lantern {

MonthScan::MonthScan(RedisClient &redis, const KeySchema &keys, QDate month)
    : m_redis(redis), m_keys(keys), m_month(month.addDays(1 - month.day()))
{
}

QList<std::pair<qint64, QList<int>>> MonthScan::blocks()
{
    QList<QByteArrayList> commands;
    for (int shard = 0; shard < m_keys.shards(); ++shard)
        commands << QByteArrayList{QByteArrayLiteral("SMEMBERS"), m_keys.monthBlocks(shard, m_month)};
    const std::vector<RedisValue> replies = m_redis.pipeline(commands);
    throwOnErrorReply(replies);
    std::map<qint64, QList<int>> byBlock;
    for (int shard = 0; shard < m_keys.shards(); ++shard) {
        for (const RedisValue &member : replies.at(size_t(shard)).elements)
            byBlock[member.toInteger()] << shard;
    }
    return {byBlock.begin(), byBlock.end()};
}

void MonthScan::signWords(const Take &take)
{
    const CheckinLayout layout(m_keys);
    for (const auto &[block, shards] : blocks()) {
        for (int first = 0; first < CheckinLayout::BlockUsers; first += ChunkUsers) {
            QList<QByteArrayList> commands;
            for (const int shard : shards)
                commands << QByteArrayList{QByteArrayLiteral("GETRANGE"), m_keys.monthBlock(shard, block, m_month),
                                           QByteArray::number(qint64(first) * CheckinLayout::WordBytes),
                                           QByteArray::number(qint64(first + ChunkUsers) * CheckinLayout::WordBytes - 1)};
            const std::vector<RedisValue> replies = m_redis.pipeline(commands);
            throwOnErrorReply(replies);
            MonthRound round;
            round.firstUid = layout.denseUid(0, block, first);
            round.endUid = layout.denseUid(0, block, first + ChunkUsers);
            bool anyBytes = false;
            for (qsizetype i = 0; i < shards.size(); ++i) {
                const QByteArray bytes = replies.at(size_t(i)).toBytes();
                anyBytes = anyBytes || !bytes.isEmpty();
                const auto *data = reinterpret_cast<const uchar *>(bytes.constData());
                for (qsizetype slot = 0; slot + CheckinLayout::WordBytes <= bytes.size(); slot += CheckinLayout::WordBytes) {
                    const quint32 word = qFromBigEndian<quint32>(data + slot);
                    if (word != 0)
                        round.words.append({layout.denseUid(shards.at(i), block, first + int(slot / CheckinLayout::WordBytes)), word});
                }
            }
            if (!anyBytes)
                break;  // past the end of every shard's block: a block grows only as far as its highest slot
            std::sort(round.words.begin(), round.words.end(), [](const UserWord &a, const UserWord &b) { return a.uid < b.uid; });
            take(round);
        }
    }
    for (int shard = 0; shard < m_keys.shards(); ++shard) {
        scanHash(m_keys.sparseMonth(shard, m_month),
                 [](const QByteArray &field, const QByteArray &value) {
                     return field.startsWith('m') ? UserWord{} : UserWord{field.toLongLong(), static_cast<quint32>(value.toLongLong())};
                 },
                 take);
    }
}

void MonthScan::makeupWords(const Take &take)
{
    const CheckinLayout layout(m_keys);
    for (const auto &[block, shards] : blocks()) {
        for (const int shard : shards) {
            // A block's make-up groups in one round trip: each holds at most 1,024 marks.
            QList<QByteArrayList> commands;
            for (int group = 0; group < CheckinLayout::MakeupGroups; ++group)
                commands << QByteArrayList{QByteArrayLiteral("HGETALL"), m_keys.makeupMarks(shard, block, group, m_month)};
            const std::vector<RedisValue> replies = m_redis.pipeline(commands);
            throwOnErrorReply(replies);
            MonthRound round;
            for (const RedisValue &reply : replies) {
                for (size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
                    const quint32 word = static_cast<quint32>(reply.elements[i + 1].toInteger());
                    if (word != 0)
                        round.words.append({layout.denseUid(shard, block, static_cast<int>(reply.elements[i].toInteger())), word});
                }
            }
            if (!round.words.isEmpty())
                take(round);
        }
    }
    for (int shard = 0; shard < m_keys.shards(); ++shard) {
        scanHash(m_keys.sparseMonth(shard, m_month),
                 [](const QByteArray &field, const QByteArray &value) {
                     return field.startsWith('m') ? UserWord{field.mid(1).toLongLong(), static_cast<quint32>(value.toLongLong())} : UserWord{};
                 },
                 take);
    }
}

void MonthScan::scanHash(const QByteArray &key, const std::function<UserWord(const QByteArray &, const QByteArray &)> &field, const Take &take)
{
    QSet<qint64> seen;
    QByteArray cursor = "0";
    do {
        const RedisValue reply = m_redis.command({QByteArrayLiteral("HSCAN"), key, cursor, QByteArrayLiteral("COUNT"), QByteArray::number(ScanCount)});
        if (reply.isError())
            throw RedisReplyError(QString::fromUtf8(reply.string));
        if (reply.elements.size() != 2)
            throw RedisReplyError(tr("unexpected HSCAN reply"));
        cursor = reply.elements[0].toBytes();
        const std::vector<RedisValue> &pairs = reply.elements[1].elements;
        MonthRound round;
        round.dense = false;
        for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
            const UserWord user = field(pairs[i].toBytes(), pairs[i + 1].toBytes());
            if (user.uid == 0 && user.word == 0)
                continue;
            if (user.word != 0 && !seen.contains(user.uid)) {
                seen.insert(user.uid);
                round.words.append(user);
            }
        }
        if (!round.words.isEmpty())
            take(round);
    } while (cursor != "0");
}

} // namespace lantern
