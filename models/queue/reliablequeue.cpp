#include "queue/reliablequeue.h"

#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace lantern {

namespace {
const LuaScript &requeueScript()
{
    static const LuaScript script(QStringLiteral("requeue"));
    return script;
}
} // namespace

const LuaScript &ReliableQueue::claimScript()
{
    static const LuaScript script(QStringLiteral("claim"));
    return script;
}

const LuaScript &ReliableQueue::acknowledgeScript()
{
    static const LuaScript script(QStringLiteral("acknowledge"));
    return script;
}

ReliableQueue::ReliableQueue(QByteArray queue, QByteArray backup, QByteArray deadLetter)
    : m_queue(std::move(queue)), m_backup(std::move(backup)), m_deadLetter(std::move(deadLetter))
{
}

QByteArrayList ReliableQueue::claim(RedisClient &redis, int max) const
{
    return claimScript().run(redis, {m_queue, m_backup}, {QByteArray::number(max)}).toBytesList();
}

QByteArrayList ReliableQueue::inFlight(RedisClient &redis, int max) const
{
    // The backup list grows on the left, so its oldest entries are on the right.
    QByteArrayList entries = redis.command({QByteArrayLiteral("LRANGE"), m_backup, QByteArray::number(-max), QByteArrayLiteral("-1")}).toBytesList();
    std::reverse(entries.begin(), entries.end());
    return entries;
}

void ReliableQueue::acknowledge(RedisClient &redis, const QByteArrayList &entries) const
{
    if (!entries.isEmpty())
        acknowledgeScript().run(redis, {m_backup}, entries);
}

QByteArray DeadLetterNote::toJson() const
{
    QJsonObject object{{QStringLiteral("reason"), reason}, {QStringLiteral("failed_at_ms"), failedAtMs > 0 ? failedAtMs : QDateTime::currentMSecsSinceEpoch()}};
    if (attempts > 0)
        object.insert(QStringLiteral("attempts"), attempts);
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

DeadLetterNote DeadLetterNote::fromJson(const QByteArray &json)
{
    const QJsonObject object = QJsonDocument::fromJson(json).object();
    DeadLetterNote note;
    note.reason = object.value(QStringLiteral("reason")).toString();
    note.attempts = object.value(QStringLiteral("attempts")).toInt();
    note.failedAtMs = object.value(QStringLiteral("failed_at_ms")).toInteger();
    return note;
}

void ReliableQueue::deadLetter(RedisClient &redis, const QByteArray &entry, const DeadLetterNote &note) const
{
    throwOnErrorReply(redis.pipeline({{QByteArrayLiteral("MULTI")},
                                 {QByteArrayLiteral("LPUSH"), m_deadLetter, entry},
                                 {QByteArrayLiteral("HSET"), DeadLetterNote::notesKey(m_deadLetter), entry, note.toJson()},
                                 {QByteArrayLiteral("LREM"), m_backup, QByteArrayLiteral("1"), entry},
                                 {QByteArrayLiteral("EXEC")}}));
}

void ReliableQueue::retryLater(RedisClient &redis, const QByteArray &entry) const
{
    throwOnErrorReply(redis.pipeline({{QByteArrayLiteral("MULTI")},
                                 {QByteArrayLiteral("LPUSH"), m_queue, entry},
                                 {QByteArrayLiteral("LREM"), m_backup, QByteArrayLiteral("1"), entry},
                                 {QByteArrayLiteral("EXEC")}}));
}

qint64 ReliableQueue::requeueBackup(RedisClient &redis) const
{
    qint64 total = 0;
    for (;;) {
        const qint64 moved = requeueScript().run(redis, {m_backup, m_queue}, {QByteArrayLiteral("1000")}).toInteger();
        total += moved;
        if (moved < 1000)
            return total;
    }
}

} // namespace lantern
