#include "sandboxseeder.h"

#include "checkin/checkinservice.h"
#include "console/users/makeuppolicy.h"

#include <QHash>
#include <QRandomGenerator>
#include <QSet>

#include <algorithm>
#include <functional>

namespace lantern {

namespace {

/** How one demo user behaves. */
struct DemoUser {
    qint64 uid;
    double rate;              // chance of signing on a given day
    int startDaysAgo;         // first day with any activity
    int stopDaysAgo;          // no activity after this (0: active until today)
    int makeupsPerMonth;      // missed days granted back by support, per month
    bool signsToday;
    bool weekdaysOnly;
};

const QList<DemoUser> &demoUsers()
{
    static const QList<DemoUser> users{
            {10001, 0.88, 95, 0, 2, true, false},   // a regular with a couple of make-ups a month
            {10002, 0.55, 95, 0, 1, false, false},  // casual
            {10003, 0.95, 12, 0, 0, true, false},   // joined less than two weeks ago
            {10004, 0.85, 95, 40, 1, false, false}, // lapsed: stopped about six weeks ago
            {10005, 1.00, 95, 0, 0, false, true},   // weekdays, every one of them; not yet today
            {10006, 0.45, 95, 0, 3, false, false},  // this month's make-up quota used up
            {10007, 0.75, 60, 0, 1, true, false},
            {10008, 1.00, 95, 0, 0, true, false},   // a perfect record
    };
    return users;
}

const QStringList &reasons()
{
    static const QStringList list{QStringLiteral("App outage that evening (incident 4711)"),
                                  QStringLiteral("Check-in button did not respond; ticket #2093"),
                                  QStringLiteral("Goodwill after a support call"),
                                  QStringLiteral("Signed in but the request timed out")};
    return list;
}

/** A stable pseudo-random number for (uid, day, salt), so the history is the same every run. */
quint32 stableRandom(qint64 uid, QDate day, quint32 salt)
{
    QRandomGenerator generator(static_cast<quint32>(uid * 1000003 + day.toJulianDay() * 7919 + salt));
    return generator.generate();
}

bool plansToSign(const DemoUser &user, QDate day, QDate today)
{
    const qint64 ago = day.daysTo(today);
    if (ago > user.startDaysAgo || (user.stopDaysAgo > 0 && ago < user.stopDaysAgo))
        return false;
    if (day == today)
        return user.signsToday;
    if (user.weekdaysOnly)
        return day.dayOfWeek() <= 5;
    return stableRandom(user.uid, day, 1) % 1000 < static_cast<quint32>(user.rate * 1000);
}

} // namespace

SandboxSeeder::SandboxSeeder(RedisClient &redis, const KeySchema &keys, const CheckinRules &rules, QTimeZone timeZone)
    : m_redis(redis), m_keys(keys), m_rules(rules), m_timeZone(std::move(timeZone))
{
}

QList<qint64> SandboxSeeder::demoUids()
{
    QList<qint64> uids;
    for (const DemoUser &user : demoUsers())
        uids << user.uid;
    return uids;
}

SeedSummary SandboxSeeder::seed(QDate today)
{
    CheckinService service(m_redis, m_keys, m_rules);
    const MakeupPolicy policy(m_rules);
    const QDate first = QDate(today.year(), today.month(), 1).addMonths(-2);
    const auto atTime = [this](QDate day, int minutes) {
        return QDateTime(day, QTime(8, 0).addSecs(minutes * 60), m_timeZone).toMSecsSinceEpoch();
    };

    SeedSummary summary;
    summary.uids = demoUids();
    for (const DemoUser &user : demoUsers()) {
        // Pick the make-ups first: per month, missed days (not the month's last day, so the
        // grant can happen the next day of the same month) in a stable random order.
        QHash<QDate, QList<QDate>> grantsOn;  // grant day -> missed days made up that day
        QHash<int, QList<QDate>> missedByMonth;
        for (QDate day = first; day < today; day = day.addDays(1)) {
            const qint64 ago = day.daysTo(today);
            const bool active = ago <= user.startDaysAgo && (user.stopDaysAgo == 0 || ago >= user.stopDaysAgo);
            if (active && !plansToSign(user, day, today) && day.day() < day.daysInMonth())
                missedByMonth[day.year() * 12 + day.month()] << day;
        }
        for (QList<QDate> &missed : missedByMonth) {
            std::sort(missed.begin(), missed.end(), [&user](QDate a, QDate b) {
                return stableRandom(user.uid, a, 2) < stableRandom(user.uid, b, 2);
            });
            const int count = std::min<int>(std::min(user.makeupsPerMonth, m_rules.makeupQuota), static_cast<int>(missed.size()));
            for (int i = 0; i < count; ++i)
                grantsOn[missed.at(i).addDays(1)] << missed.at(i);
        }

        for (QDate day = first; day <= today; day = day.addDays(1)) {
            for (const QDate &missedDay : grantsOn.value(day)) {
                if (!policy.insideWindow(missedDay, day))
                    continue;
                MakeupRequest request;
                request.uid = user.uid;
                request.date = missedDay;
                request.operatorName = QStringLiteral("sandbox");
                request.reason = reasons().at(static_cast<qsizetype>(stableRandom(user.uid, missedDay, 3) % reasons().size()));
                if (!service.makeup(request, day, atTime(day, 120)).already)
                    ++summary.makeups;
            }
            if (plansToSign(user, day, today)) {
                service.checkin(user.uid, day, day, atTime(day, static_cast<int>(stableRandom(user.uid, day, 4) % 720)));
                ++summary.checkins;
            }
        }
    }
    return summary;
}

} // namespace lantern
