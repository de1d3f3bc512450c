#include "checkin/checkinrun.h"

#include "checkin/checkinlayout.h"
#include "checkin/streakcalculator.h"
#include "core/datetext.h"
#include "core/errors.h"
#include "core/textwriter.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/rediserror.h"

#include <utility>
#include <vector>

namespace lantern {

namespace {

const LuaScript &checkinScript()
{
    static const LuaScript script(QStringLiteral("checkin"));
    return script;
}

/** Months fetched per extra round of a rolling streak. */
constexpr int EarlierMonthsPerRound = 6;

/** The arguments of checkin.lua that a day's check-ins share, and its shard keys: built once per
    thread, day and configuration, then shared (issue 28: they were half the allocations of a
    check-in in `lanternd serve`). */
struct DayArguments {
    bool matches(const KeySchema &keys, const CheckinRules &rules, QDate day) const
    {
        return day == this->day && keys.prefix() == prefix && keys.shards() == shards && rules.streakPolicy == policy
                && rules.makeupGrantsPoints == makeupGrantsPoints && rules.makeupQuota == makeupQuota && rules.rewards == rewards;
    }
    const QByteArray &blocksKey(const KeySchema &keys, int shard)
    {
        QByteArray &key = shardKeys[size_t(shard)].first;
        if (key.isEmpty())
            key = keys.monthBlocks(shard, month);
        return key;
    }
    const QByteArray &queueKey(const KeySchema &keys, int shard)
    {
        QByteArray &key = shardKeys[size_t(shard)].second;
        if (key.isEmpty())
            key = keys.checkinQueue(shard);
        return key;
    }

    QByteArray prefix;
    int shards = 0;
    StreakPolicy policy = StreakPolicy::Monthly;
    bool makeupGrantsPoints = false;
    int makeupQuota = 0;
    QList<int> rewards;
    QDate day;
    QDate month;
    QDate previous;
    QByteArray isoDay;
    QByteArray dayOfMonth;
    QByteArray monthDays;
    QByteArray previousDays;
    QByteArray quota;
    QByteArrayList rewardArguments;
    std::vector<std::pair<QByteArray, QByteArray>> shardKeys;  // per shard: blocks, queue
};

DayArguments &dayArguments(const KeySchema &keys, const CheckinRules &rules, QDate day)
{
    thread_local DayArguments cached;
    if (!cached.matches(keys, rules, day)) {
        DayArguments fresh;
        fresh.prefix = keys.prefix();
        fresh.shards = keys.shards();
        fresh.policy = rules.streakPolicy;
        fresh.makeupGrantsPoints = rules.makeupGrantsPoints;
        fresh.makeupQuota = rules.makeupQuota;
        fresh.rewards = rules.rewards;
        fresh.day = day;
        fresh.month = firstOfMonth(day);
        fresh.previous = fresh.month.addMonths(-1);
        fresh.isoDay = isoDay(day);
        fresh.dayOfMonth = QByteArray::number(day.day());
        fresh.monthDays = QByteArray::number(fresh.month.daysInMonth());
        fresh.previousDays = QByteArray::number(fresh.previous.daysInMonth());
        fresh.quota = QByteArray::number(rules.makeupQuota);
        for (const int points : rules.rewards)
            fresh.rewardArguments << QByteArray::number(points);
        fresh.shardKeys.resize(size_t(keys.shards()));
        cached = std::move(fresh);
    }
    return cached;
}

} // namespace

CheckinRun::CheckinRun(const KeySchema &keys, const CheckinRules &rules, qint64 uid, QDate day, QDate streakAsOf, const MakeupRequest *makeup,
                       qint64 nowMs)
    : m_keys(keys), m_rules(rules), m_streakAsOf(streakAsOf)
{
    DayArguments &shared = dayArguments(keys, rules, day);
    const QDate month = shared.month;
    m_month = month;
    m_previousMonth = shared.previous;
    const CheckinLayout layout(keys);
    const UserPlace user = layout.place(uid);
    auto [signKey, makeupKey] = layout.signAndMakeupKeys(user, month);
    QByteArrayList scriptKeys{std::move(signKey), std::move(makeupKey), layout.signKey(user, shared.previous),
                              shared.blocksKey(keys, user.shard), shared.queueKey(keys, user.shard)};
    QByteArrayList scriptArgs;
    scriptArgs.reserve(13 + shared.rewardArguments.size());
    scriptArgs << decimal(uid) << shared.isoDay << shared.dayOfMonth << shared.monthDays << shared.previousDays
               << (makeup ? QByteArrayLiteral("makeup") : QByteArrayLiteral("normal"))
               << (rules.streakPolicy == StreakPolicy::Rolling ? QByteArrayLiteral("1") : QByteArrayLiteral("0"))
               << (rules.makeupGrantsPoints ? QByteArrayLiteral("1") : QByteArrayLiteral("0")) << shared.quota
               << CheckinLayout::placeArgument(user) << (makeup ? makeup->operatorName.trimmed().toUtf8() : QByteArray())
               << (makeup ? makeup->reason.trimmed().toUtf8() : QByteArray()) << decimal(nowMs) << shared.rewardArguments;
    m_scriptCommand = checkinScript().evalshaCommand(std::move(scriptKeys), std::move(scriptArgs));
    m_outcome.uid = uid;
    m_outcome.date = day;
    m_outcome.kind = makeup ? QStringLiteral("makeup") : QStringLiteral("normal");
}

QList<QByteArrayList> CheckinRun::nextRound()
{
    if (m_done)
        return {};
    if (!m_scriptSent)
        return {std::exchange(m_scriptCommand, {})};  // a round is asked for once
    const CheckinLayout layout(m_keys);
    QList<QByteArrayList> commands;
    for (const QDate &first : std::as_const(m_pendingMonths))
        commands << layout.readSign(m_outcome.uid, first);
    return commands;
}

void CheckinRun::takeReplies(std::vector<RedisValue> replies)
{
    if (!m_scriptSent) {
        m_scriptSent = true;
        takeScriptReply(replies.at(0));
    } else {
        takeMonths(replies);
    }
    settleStreak();
}

void CheckinRun::takeScriptReply(const RedisValue &reply)
{
    throwOnErrorReply(reply);
    if (reply.type != RedisValue::Type::Array || reply.elements.size() != 4)
        throw RedisReplyError(tr("checkin script returned an unexpected reply"));
    const QByteArray status = reply.elements[0].toBytes();
    const QDate day = m_outcome.date;
    if (status == "quota")
        throw RefusedError(tr("make-up of %1 refused: the monthly quota of %2 make-ups for %3 is used up")
                                   .arg(day.toString(Qt::ISODate))
                                   .arg(m_rules.makeupQuota)
                                   .arg(day.toString(u"yyyy-MM")));
    const QDate month = m_month;
    const bool rolling = m_rules.streakPolicy == StreakPolicy::Rolling;
    const QList<MonthBits> months{MonthBits::fromBitfield(month, reply.elements[1].toInteger()),
                                  MonthBits::fromBitfield(m_previousMonth, reply.elements[2].toInteger())};
    m_outcome.already = status == "already";
    m_outcome.points = static_cast<int>(reply.elements[3].toInteger());
    m_outcome.monthCount = months.front().count();
    if (m_streakAsOf == day || firstOfMonth(m_streakAsOf) == month) {
        m_months = rolling ? months : months.mid(0, 1);
    } else {
        // A make-up of an earlier month reports the streak as of today: fetch today's months.
        const QDate asOfMonth = firstOfMonth(m_streakAsOf);
        m_pendingMonths = {asOfMonth};
        if (rolling)
            m_pendingMonths << asOfMonth.addMonths(-1);
    }
}

void CheckinRun::takeMonths(const std::vector<RedisValue> &replies)
{
    for (qsizetype i = 0; i < m_pendingMonths.size(); ++i)
        m_months << CheckinLayout::bits(m_pendingMonths.at(i), replies.at(size_t(i)));
    m_pendingMonths.clear();
}

void CheckinRun::settleStreak()
{
    if (!m_pendingMonths.isEmpty())
        return;
    const auto result = StreakCalculator::current(m_streakAsOf, m_months, m_rules.streakPolicy);
    if (!result.needsEarlierMonth) {
        m_outcome.streak = result.streak;
        m_done = true;
        return;
    }
    // A rolling run that fills whole months: the next round fetches six earlier months at once.
    const QDate before = m_months.back().month.addMonths(-1);
    for (int i = 0; i < EarlierMonthsPerRound; ++i)
        m_pendingMonths << before.addMonths(-i);
}

} // namespace lantern
