#include "checkin/checkinservice.h"

#include "checkin/checkinlayout.h"
#include "checkin/checkinrun.h"
#include "checkin/streakcalculator.h"
#include "core/datetext.h"
#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

namespace lantern {

namespace {

constexpr int MaxOperatorLength = 64;
constexpr int MaxReasonLength = 255;

} // namespace

CheckinService::CheckinService(RedisClient &redis, const KeySchema &keys, const CheckinRules &rules)
    : m_redis(redis), m_keys(keys), m_rules(rules)
{
}

void CheckinService::validateCheckin(QDate day, QDate today)
{
    if (day > today)
        throw InvalidInputError(tr("cannot check in on %1: it is after today (%2)")
                                        .arg(day.toString(Qt::ISODate), today.toString(Qt::ISODate)));
}

void CheckinService::validateMakeup(const MakeupRequest &request, QDate today, const CheckinRules &rules)
{
    const QString operatorName = request.operatorName.trimmed();
    const QString reason = request.reason.trimmed();
    if (operatorName.isEmpty())
        throw InvalidInputError(tr("a make-up needs --operator: who grants it"));
    if (reason.isEmpty())
        throw InvalidInputError(tr("a make-up needs --reason: why it is granted"));
    if (operatorName.size() > MaxOperatorLength || reason.size() > MaxReasonLength)
        throw InvalidInputError(tr("operator (max %1 characters) or reason (max %2) too long").arg(MaxOperatorLength).arg(MaxReasonLength));
    for (const QChar c : QString(operatorName + reason)) {
        if (c.category() == QChar::Other_Control)
            throw InvalidInputError(tr("operator and reason must not contain control characters"));
    }
    const QString day = request.date.toString(Qt::ISODate);
    if (request.date == today)
        throw InvalidInputError(tr("cannot make up %1: it is today; a make-up is for a past day").arg(day));
    if (request.date > today)
        throw InvalidInputError(tr("cannot make up %1: it is in the future").arg(day));
    if (!insideMakeupWindow(request.date, today, rules)) {
        throw RefusedError(rules.makeupWindowDays == 0
                                   ? tr("make-up of %1 refused: only days of the current month (%2) can be made up")
                                             .arg(day, today.toString(u"yyyy-MM"))
                                   : tr("make-up of %1 refused: only the last %2 days can be made up").arg(day).arg(rules.makeupWindowDays));
    }
}

bool CheckinService::insideMakeupWindow(QDate day, QDate today, const CheckinRules &rules)
{
    if (rules.makeupWindowDays == 0)
        return firstOfMonth(day) == firstOfMonth(today);
    return day >= today.addDays(-rules.makeupWindowDays);
}

CheckinOutcome CheckinService::checkin(qint64 uid, QDate day, QDate today, qint64 nowMs)
{
    validateCheckin(day, today);
    return sign(uid, day, day, nullptr, nowMs);
}

CheckinOutcome CheckinService::makeup(const MakeupRequest &request, QDate today, qint64 nowMs)
{
    validateMakeup(request, today, m_rules);
    // The streak a make-up restores is the user's current one, as of today.
    return sign(request.uid, request.date, today, &request, nowMs);
}

CheckinOutcome CheckinService::sign(qint64 uid, QDate day, QDate streakAsOf, const MakeupRequest *makeup, qint64 nowMs)
{
    CheckinRun run(m_keys, m_rules, uid, day, streakAsOf, makeup, nowMs);
    runConversation(m_redis, run);
    return run.outcome();
}

QList<MonthBits> CheckinService::fetchMonths(qint64 uid, QDate month, int count)
{
    const CheckinLayout layout(m_keys);
    QList<QByteArrayList> commands;
    QList<QDate> firsts;
    for (int i = 0; i < count; ++i) {
        const QDate first = firstOfMonth(month).addMonths(-i);
        firsts << first;
        commands << layout.readSign(uid, first);
    }
    const std::vector<RedisValue> replies = m_redis.pipeline(commands);
    QList<MonthBits> result;
    for (qsizetype i = 0; i < firsts.size(); ++i)
        result << CheckinLayout::bits(firsts.at(i), replies.at(static_cast<size_t>(i)));
    return result;
}

int CheckinService::currentStreak(qint64 uid, QDate asOf, QList<MonthBits> newestFirst)
{
    if (newestFirst.isEmpty())
        newestFirst = fetchMonths(uid, asOf, m_rules.streakPolicy == StreakPolicy::Rolling ? 2 : 1);
    for (;;) {
        const auto result = StreakCalculator::current(asOf, newestFirst, m_rules.streakPolicy);
        if (!result.needsEarlierMonth)
            return result.streak;
        // A rolling run that fills whole months: fetch the next six earlier months at once.
        newestFirst << fetchMonths(uid, newestFirst.back().month.addMonths(-1), 6);
    }
}

CalendarMonth CheckinService::calendar(qint64 uid, QDate month, QDate today)
{
    const QDate first = firstOfMonth(month);
    const CheckinLayout layout(m_keys);
    const std::vector<RedisValue> replies = m_redis.pipeline({layout.readSign(uid, first), layout.readMakeup(uid, first)});
    const MonthBits signedBits = CheckinLayout::bits(first, replies[0]);
    const MonthBits makeupBits = CheckinLayout::bits(first, replies[1]);

    CalendarMonth result;
    result.uid = uid;
    result.month = first;
    result.signedDays = signedBits.signedDays();
    result.makeupDays = makeupBits.signedDays();
    result.monthCount = signedBits.count();
    result.longest = signedBits.longestRun();
    result.streak = currentStreak(uid, today, firstOfMonth(today) == first && m_rules.streakPolicy == StreakPolicy::Monthly
                                                     ? QList<MonthBits>{signedBits}
                                                     : QList<MonthBits>{});
    return result;
}

} // namespace lantern
