#include "operations/deadletters.h"

#include "audit/auditlog.h"
#include "checkin/checkinentry.h"
#include "core/errors.h"
#include "envelope/campaignpools.h"
#include "envelope/payouttask.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "sql/sqlconnection.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace lantern {

namespace {

const LuaScript &moveScript()
{
    static const LuaScript script(QStringLiteral("deadletter_move"));
    return script;
}

const LuaScript &takeScript()
{
    static const LuaScript script(QStringLiteral("deadletter_take"));
    return script;
}

const LuaScript &replaceScript()
{
    static const LuaScript script(QStringLiteral("deadletter_replace"));
    return script;
}

/** Runs `body` in one SQL transaction and never again after a failure (unlike
    SqlConnection::transaction): the Redis script inside must not run twice. */
template<typename Body>
auto inOneTransaction(SqlConnection &sql, Body body)
{
    sql.begin();
    try {
        auto result = body();
        sql.commit();
        return result;
    } catch (...) {
        sql.rollback();
        throw;
    }
}

/** An entry in an audit row: its JSON when it is an object, else its text. */
QJsonValue auditedEntry(const QByteArray &raw)
{
    const QJsonDocument parsed = QJsonDocument::fromJson(raw);
    return parsed.isObject() ? QJsonValue(parsed.object()) : QJsonValue(QString::fromUtf8(raw));
}

} // namespace

DeadLetters::DeadLetters(RedisClient &redis, const KeySchema &keys) : m_redis(redis), m_keys(keys) {}

QList<DeadLetterList> DeadLetters::lists(bool nonEmptyOnly)
{
    QList<DeadLetterList> all;
    for (int shard = 0; shard < m_keys.shards(); ++shard)
        all << DeadLetterList{QStringLiteral("checkin:%1").arg(shard), m_keys.checkinDeadLetter(shard), m_keys.checkinQueue(shard), 0};
    for (const QByteArray &pool : CampaignPools::launched(m_redis, m_keys))
        all << DeadLetterList{QStringLiteral("payout:%1").arg(QString::fromLatin1(pool)), m_keys.campaignDeadLetter(pool), m_keys.campaignTasks(pool), 0};
    QList<QByteArrayList> commands;
    for (const DeadLetterList &list : std::as_const(all))
        commands << QByteArrayList{QByteArrayLiteral("LLEN"), list.key};
    const std::vector<RedisValue> replies = m_redis.pipeline(commands);
    throwOnErrorReply(replies);
    QList<DeadLetterList> result;
    for (qsizetype i = 0; i < all.size(); ++i) {
        all[i].depth = replies[size_t(i)].toInteger();
        if (!nonEmptyOnly || all[i].depth > 0)
            result << all[i];
    }
    return result;
}

DeadLetterList DeadLetters::list(const QString &name) const
{
    const qsizetype colon = name.indexOf(QLatin1Char(':'));
    bool ok = false;
    const qint64 number = colon > 0 ? name.mid(colon + 1).toLongLong(&ok) : 0;
    const QStringView kind = QStringView(name).left(colon);
    if (ok && kind == u"checkin" && number >= 0 && number < m_keys.shards())
        return {name, m_keys.checkinDeadLetter(int(number)), m_keys.checkinQueue(int(number)), 0};
    if (kind == u"payout" && colon > 0) {
        const QByteArray pool = name.mid(colon + 1).toLatin1();  // "42", or "42.7" for a sub-pool
        if (CampaignPools::campaignOf(pool))
            return {name, m_keys.campaignDeadLetter(pool), m_keys.campaignTasks(pool), 0};
    }
    throw InvalidInputError(tr("no dead-letter list called '%1': expected checkin:<shard> or payout:<campaign id> (payout:<campaign id>.<n> for a sub-pool)").arg(name));
}

DeadLetterPage DeadLetters::page(const QString &name, qint64 offset, int count)
{
    return slice(name, offset, count, false);
}

DeadLetterPage DeadLetters::oldestFirstPage(const QString &name, qint64 offset, int count)
{
    return slice(name, offset, count, true);
}

DeadLetterPage DeadLetters::slice(const QString &name, qint64 offset, int count, bool oldestFirst)
{
    const DeadLetterList target = list(name);
    offset = std::max<qint64>(0, offset);
    count = std::clamp(count, 1, MaxPage);
    // From the oldest end: negative indices, -1 the oldest entry.
    const qint64 first = oldestFirst ? -(offset + count) : offset;
    const qint64 last = oldestFirst ? -(offset + 1) : offset + count - 1;
    const std::vector<RedisValue> replies = m_redis.pipeline(
            {{QByteArrayLiteral("LLEN"), target.key},
             {QByteArrayLiteral("LRANGE"), target.key, QByteArray::number(first), QByteArray::number(last)}});
    throwOnErrorReply(replies);
    DeadLetterPage page;
    page.list = name;
    page.offset = offset;
    page.depth = replies[0].toInteger();
    for (const RedisValue &entry : replies[1].elements)
        page.entries << entry.toBytes();
    if (oldestFirst)
        std::reverse(page.entries.begin(), page.entries.end());
    for (qsizetype i = 0; i < page.entries.size(); ++i)
        page.positions << (oldestFirst ? page.depth - offset - i : offset + i + 1);
    readNotes(target, page);
    return page;
}

std::optional<DeadLetterPage> DeadLetters::whole(const QString &name, qint64 maxDepth)
{
    const DeadLetterList target = list(name);
    // One more than allowed tells a list that is too deep, whatever LLEN said a moment before.
    const std::vector<RedisValue> replies = m_redis.pipeline(
            {{QByteArrayLiteral("LLEN"), target.key},
             {QByteArrayLiteral("LRANGE"), target.key, QByteArrayLiteral("0"), QByteArray::number(maxDepth)}});
    throwOnErrorReply(replies);
    if (replies[0].toInteger() > maxDepth || qint64(replies[1].elements.size()) > maxDepth)
        return std::nullopt;
    DeadLetterPage page;
    page.list = name;
    for (const RedisValue &entry : replies[1].elements)
        page.entries << entry.toBytes();
    page.depth = page.entries.size();
    for (qsizetype i = 0; i < page.entries.size(); ++i)
        page.positions << i + 1;
    readNotes(target, page);
    return page;
}

void DeadLetters::readNotes(const DeadLetterList &target, DeadLetterPage &page)
{
    page.notes.clear();
    if (page.entries.isEmpty())
        return;
    QList<QByteArrayList> commands;
    for (qsizetype at = 0; at < page.entries.size(); at += MaxPage) {
        QByteArrayList command{QByteArrayLiteral("HMGET"), DeadLetterNote::notesKey(target.key)};
        command += page.entries.mid(at, MaxPage);
        commands << command;
    }
    const std::vector<RedisValue> replies = m_redis.pipeline(commands);
    throwOnErrorReply(replies);
    for (const RedisValue &reply : replies) {
        for (const RedisValue &note : reply.elements)
            page.notes << DeadLetterNote::fromJson(note.toBytes());
    }
    while (page.notes.size() < page.entries.size())
        page.notes << DeadLetterNote();
}

QByteArrayList DeadLetters::oldest(const QString &name, int count, qint64 skip)
{
    const DeadLetterList target = list(name);
    count = std::clamp(count, 1, MaxPage);
    skip = std::max<qint64>(skip, 0);
    QByteArrayList entries;
    for (const RedisValue &entry :
         m_redis.command({QByteArrayLiteral("LRANGE"), target.key, QByteArray::number(-(skip + count)), QByteArray::number(-(skip + 1))}).elements)
        entries << entry.toBytes();
    std::reverse(entries.begin(), entries.end());
    return entries;
}

QList<bool> DeadLetters::apply(DeadLetterAction action, const QString &name, const QByteArrayList &entries)
{
    QList<bool> taken;
    if (entries.isEmpty())
        return taken;
    const DeadLetterList target = list(name);
    QByteArrayList keys{target.key, DeadLetterNote::notesKey(target.key)};
    if (action == DeadLetterAction::Retry)
        keys << target.queueKey;
    const RedisValue reply = moveScript().run(m_redis, keys, entries);
    for (const RedisValue &element : reply.elements)
        taken << (element.toInteger() > 0);
    if (taken.size() != entries.size())
        throw RedisReplyError(tr("unexpected reply of deadletter_move.lua"));
    return taken;
}

std::optional<QList<bool>> DeadLetters::takeOldest(DeadLetterAction action, const QString &name, qint64 skip, const QByteArrayList &entries,
                                                   const QList<bool> &take)
{
    if (entries.isEmpty())
        return QList<bool>();
    const DeadLetterList target = list(name);
    QByteArrayList keys{target.key, DeadLetterNote::notesKey(target.key)};
    if (action == DeadLetterAction::Retry)
        keys << target.queueKey;
    QByteArray flags;
    for (qsizetype i = 0; i < entries.size(); ++i)
        flags += i < take.size() && take.at(i) ? '1' : '0';
    const RedisValue reply = takeScript().run(m_redis, keys, QByteArrayList{QByteArray::number(std::max<qint64>(skip, 0)), flags} + entries);
    if (reply.isNil())
        return std::nullopt;
    if (reply.toInteger() != flags.count('1'))
        throw RedisReplyError(tr("unexpected reply of deadletter_take.lua"));
    QList<bool> taken;
    for (const char flag : std::as_const(flags))
        taken << (flag == '1');
    return taken;
}

bool DeadLetters::isReadable(const QString &name, const QByteArray &entry)
{
    if (name.startsWith(QLatin1String("payout:")))
        return PayoutTask::fromJson(entry).has_value();
    if (name.startsWith(QLatin1String("checkin:")))
        return CheckinEntry::fromJson(entry).has_value();
    return false;
}

bool DeadLetters::retryEdited(const QString &name, const QByteArray &entry, const QByteArray &edited)
{
    const DeadLetterList target = list(name);
    if (!isReadable(name, edited))
        throw InvalidInputError(tr("the edited entry is not a task a worker of %1 can read").arg(name));
    const RedisValue reply = replaceScript().run(m_redis, {target.key, DeadLetterNote::notesKey(target.key), target.queueKey}, {entry, edited});
    return reply.toInteger() > 0;
}

QString DeadLetters::actionName(DeadLetterAction action)
{
    return action == DeadLetterAction::Retry ? QStringLiteral("deadletter.retry") : QStringLiteral("deadletter.discard");
}

namespace {

/** One audit row per entry taken; how many were. */
qint64 auditTaken(SqlConnection &sql, DeadLetterAction action, const QString &name, const QByteArrayList &entries, const QList<bool> &taken,
                  const QString &actor, const QString &via, qint64 nowMs)
{
    qint64 count = 0;
    AuditLog audit(sql);
    for (qsizetype i = 0; i < entries.size(); ++i) {
        if (!taken.at(i))
            continue;
        ++count;
        audit.record(actor, DeadLetters::actionName(action), name, {{QStringLiteral("entry"), auditedEntry(entries.at(i))}, {QStringLiteral("via"), via}},
                     nowMs);
    }
    return count;
}

} // namespace

qint64 applyDeadLettersAudited(DeadLetters &deadLetters, SqlConnection &sql, DeadLetterAction action, const QString &name,
                               const QByteArrayList &entries, const QString &actor, const QString &via, qint64 nowMs)
{
    if (entries.isEmpty())
        return qint64(0);
    deadLetters.list(name);  // a bad name throws before anything is written
    return inOneTransaction(sql, [&] {
        return auditTaken(sql, action, name, entries, deadLetters.apply(action, name, entries), actor, via, nowMs);
    });
}

std::optional<qint64> takeOldestDeadLettersAudited(DeadLetters &deadLetters, SqlConnection &sql, DeadLetterAction action, const QString &name,
                                                   qint64 skip, const QByteArrayList &entries, const QList<bool> &take, const QString &actor,
                                                   const QString &via, qint64 nowMs)
{
    if (entries.isEmpty())
        return qint64(0);
    deadLetters.list(name);  // a bad name throws before anything is written
    return inOneTransaction(sql, [&]() -> std::optional<qint64> {
        const std::optional<QList<bool>> taken = deadLetters.takeOldest(action, name, skip, entries, take);
        if (!taken)
            return std::nullopt;
        return auditTaken(sql, action, name, entries, *taken, actor, via, nowMs);
    });
}

qint64 applyDeadLetterBatchAudited(DeadLetters &deadLetters, SqlConnection &sql, DeadLetterAction action, const QString &name, qint64 skip,
                                   const QByteArrayList &batch, const QList<bool> &take, bool oldestRead, const QString &actor,
                                   const QString &via, qint64 nowMs)
{
    QByteArrayList chosen;
    for (qsizetype i = 0; i < batch.size(); ++i) {
        if (i < take.size() && take.at(i))
            chosen << batch.at(i);
    }
    if (chosen.isEmpty())
        return 0;
    if (oldestRead || deadLetters.oldest(name, int(batch.size()), skip) == batch) {
        if (const auto acted = takeOldestDeadLettersAudited(deadLetters, sql, action, name, skip, batch, take, actor, via, nowMs))
            return *acted;
    }
    return applyDeadLettersAudited(deadLetters, sql, action, name, chosen, actor, via, nowMs);
}

bool retryEditedDeadLetterAudited(DeadLetters &deadLetters, SqlConnection &sql, const QString &name, const QByteArray &entry,
                                  const QByteArray &edited, const QString &actor, const QString &via, qint64 nowMs)
{
    deadLetters.list(name);  // a bad name throws before anything is written
    return inOneTransaction(sql, [&] {
        const bool replaced = deadLetters.retryEdited(name, entry, edited);
        if (replaced) {
            AuditLog(sql).record(actor, QStringLiteral("deadletter.edit_retry"), name,
                                 {{QStringLiteral("entry"), auditedEntry(entry)}, {QStringLiteral("edited"), auditedEntry(edited)}, {QStringLiteral("via"), via}},
                                 nowMs);
        }
        return replaced;
    });
}

} // namespace lantern
