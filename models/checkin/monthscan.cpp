#include "checkin/monthscan.h"

#include "checkin/checkinlayout.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"

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
    sparseWords(false, take);
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
    sparseWords(true, take);
}

void MonthScan::sparseWords(bool makeups, const Take &take)
{
    for (int shard = 0; shard < m_keys.shards(); ++shard) {
        for (int first = 0; first < CheckinLayout::SparseBuckets; first += BucketsPerRound) {
            QList<QByteArrayList> commands;
            for (int bucket = first; bucket < std::min(first + BucketsPerRound, CheckinLayout::SparseBuckets); ++bucket)
                commands << QByteArrayList{QByteArrayLiteral("HGETALL"), m_keys.sparseMonth(shard, bucket, m_month)};
            const std::vector<RedisValue> replies = m_redis.pipeline(commands);
            throwOnErrorReply(replies);
            MonthRound round;
            round.dense = false;
            for (const RedisValue &reply : replies) {
                for (size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
                    const QByteArray field = reply.elements[i].toBytes();
                    if (field.startsWith('m') != makeups)
                        continue;  // make-up marks ("m<uid>") or sign words ("<uid>"), whichever is asked for
                    const quint32 word = static_cast<quint32>(reply.elements[i + 1].toInteger());
                    if (word != 0)
                        round.words.append({(makeups ? field.mid(1) : field).toLongLong(), word});
                }
            }
            if (!round.words.isEmpty())
                take(round);
        }
    }
}

} // namespace lantern
