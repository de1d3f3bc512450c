#include "checkin/checkinrun.h"

#include "checkin/checkinlayout.h"
#include "checkin/streakcalculator.h"
#include "core/datetext.h"
#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/rediserror.h"

namespace lantern {

namespace {

const LuaScript &checkinScript()
{
    static const LuaScript script(QStringLiteral("checkin"));
    return script;
}

/** Months fetched per extra round of a rolling streak. */
constexpr int EarlierMonthsPerRound = 6;

} // namespace

CheckinRun::CheckinRun(const KeySchema &keys, const CheckinRules &rules, qint64 uid, QDate day, QDate streakAsOf, const MakeupRequest *makeup,
                       qint64 nowMs)
    : m_keys(keys), m_rules(rules), m_streakAsOf(streakAsOf)
{
    const QDate month = firstOfMonth(day);
    const QDate previous = month.addMonths(-1);
    const CheckinLayout layout(keys);
    const UserPlace user = layout.place(uid);
    m_scriptKeys = {layout.signKey(user, month), layout.makeupKey(user, month), layout.signKey(user, previous),
                    keys.monthBlocks(user.shard, month), keys.checkinQueue(user.shard)};
    m_scriptArgs = {QByteArray::number(uid),
                    isoDay(day),
                    QByteArray::number(day.day()),
                    QByteArray::number(month.daysInMonth()),
                    QByteArray::number(previous.daysInMonth()),
                    makeup ? QByteArrayLiteral("makeup") : QByteArrayLiteral("normal"),
                    rules.streakPolicy == StreakPolicy::Rolling ? QByteArrayLiteral("1") : QByteArrayLiteral("0"),
                    rules.makeupGrantsPoints ? QByteArrayLiteral("1") : QByteArrayLiteral("0"),
                    QByteArray::number(rules.makeupQuota),
                    CheckinLayout::placeArgument(user),
                    makeup ? makeup->operatorName.trimmed().toUtf8() : QByteArray(),
                    makeup ? makeup->reason.trimmed().toUtf8() : QByteArray(),
                    QByteArray::number(nowMs)};
    for (const int points : rules.rewards)
        m_scriptArgs << QByteArray::number(points);
    m_outcome.uid = uid;
    m_outcome.date = day;
    m_outcome.kind = makeup ? QStringLiteral("makeup") : QStringLiteral("normal");
}

QList<QByteArrayList> CheckinRun::nextRound()
{
    if (m_done)
        return {};
    if (!m_scriptSent)
        return scriptRound();
    const CheckinLayout layout(m_keys);
    QList<QByteArrayList> commands;
    for (const QDate &first : std::as_const(m_pendingMonths))
        commands << layout.readSign(m_outcome.uid, first);
    return commands;
}

QList<QByteArrayList> CheckinRun::scriptRound() const
{
    return {checkinScript().evalshaCommand(m_scriptKeys, m_scriptArgs)};
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
    if (reply.isError())
        throw RedisReplyError(QString::fromUtf8(reply.string));
    if (reply.type != RedisValue::Type::Array || reply.elements.size() != 4)
        throw RedisReplyError(tr("checkin script returned an unexpected reply"));
    const QByteArray status = reply.elements[0].toBytes();
    const QDate day = m_outcome.date;
    if (status == "quota")
        throw RefusedError(tr("make-up of %1 refused: the monthly quota of %2 make-ups for %3 is used up")
                                   .arg(day.toString(Qt::ISODate))
                                   .arg(m_rules.makeupQuota)
                                   .arg(day.toString(u"yyyy-MM")));
    const QDate month = firstOfMonth(day);
    const bool rolling = m_rules.streakPolicy == StreakPolicy::Rolling;
    const QList<MonthBits> months{MonthBits::fromBitfield(month, reply.elements[1].toInteger()),
                                  MonthBits::fromBitfield(month.addMonths(-1), reply.elements[2].toInteger())};
    m_outcome.already = status == "already";
    m_outcome.points = static_cast<int>(reply.elements[3].toInteger());
    m_outcome.monthCount = months.front().count();
    if (firstOfMonth(m_streakAsOf) == month) {
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
