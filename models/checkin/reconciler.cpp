#include "checkin/reconciler.h"

#include "checkin/checkinentry.h"
#include "checkin/checkinlayout.h"
#include "checkin/checkinstore.h"
#include "checkin/monthscan.h"
#include "checkin/streakcalculator.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"

namespace lantern {

Reconciler::Reconciler(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, const CheckinRules &rules)
    : m_redis(redis), m_sql(sql), m_keys(keys), m_rules(rules)
{
}

ReconcileReport Reconciler::reconcile(QDate day, qint64 nowMs)
{
    ReconcileReport report;
    report.date = day;
    report.dbCount = CheckinStore(m_sql).countOn(day);
    MonthScan(m_redis, m_keys, day).signWords([&](const MonthRound &round) { reconcileRound(round, day, nowMs, report); });
    return report;
}

void Reconciler::reconcileRound(const MonthRound &round, QDate day, qint64 nowMs, ReconcileReport &report)
{
    const QDate month(day.year(), day.month(), 1);
    const MonthBits none{month, 0};
    QList<UserWord> signedThatDay;
    for (const UserWord &user : round.words) {
        if (MonthBits::fromWord(month, user.word).isSigned(day.day()))
            signedThatDay << user;
    }
    report.redisCount += signedThatDay.size();
    if (signedThatDay.isEmpty())
        return;
    CheckinStore store(m_sql);
    QSet<qint64> inSql;
    if (round.dense) {
        inSql = store.uidsOnBetween(day, round.firstUid, round.endUid);
    } else {
        QList<qint64> uids;
        for (const UserWord &user : std::as_const(signedThatDay))
            uids << user.uid;
        inSql = store.uidsOnAmong(day, uids);
    }
    QList<UserWord> missing;
    for (const UserWord &user : std::as_const(signedThatDay)) {
        if (!inSql.contains(user.uid))
            missing << user;
    }
    report.missing += missing.size();
    if (missing.isEmpty())
        return;

    // The make-up word and the previous month of each missing user, in one pipeline.
    const CheckinLayout layout(m_keys);
    const QDate previous = month.addMonths(-1);
    const bool rolling = m_rules.streakPolicy == StreakPolicy::Rolling;
    QList<QByteArrayList> commands;
    for (const UserWord &user : std::as_const(missing))
        commands << layout.readMakeup(user.uid, month) << layout.readSign(user.uid, previous);
    const std::vector<RedisValue> replies = m_redis.pipeline(commands);
    QList<CheckinEntry> entries;
    for (qsizetype i = 0; i < missing.size(); ++i) {
        const UserWord &user = missing.at(i);
        const bool makeup = CheckinLayout::bits(month, replies.at(size_t(i * 2))).isSigned(day.day());
        const QList<MonthBits> months{MonthBits::fromWord(month, user.word),
                                      rolling ? CheckinLayout::bits(previous, replies.at(size_t(i * 2 + 1))) : none};
        const int streak = StreakCalculator::current(day, rolling ? months : months.mid(0, 1), m_rules.streakPolicy).streak;
        CheckinEntry entry;
        entry.uid = user.uid;
        entry.date = day;
        entry.kind = makeup ? QStringLiteral("makeup") : QStringLiteral("normal");
        entry.points = !makeup || m_rules.makeupGrantsPoints ? rewardFor(m_rules.rewards, streak) : 0;
        entry.operatorName = makeup ? QStringLiteral("reconcile") : QString();
        entry.reason = makeup ? QStringLiteral("back-filled by reconcile; original reason lost") : QString();
        entry.atMs = nowMs;
        entries << entry;
    }
    report.backfilled += store.persist(entries);
}

} // namespace lantern
