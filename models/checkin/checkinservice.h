#pragma once

#include "checkin/monthbits.h"
#include "checkin/checkinrules.h"

#include <QCoreApplication>
#include <QString>

namespace lantern {

class KeySchema;
class RedisClient;

/** What `checkin` and `makeup` report (DESIGN §6). */
struct CheckinOutcome {
    qint64 uid = 0;
    QDate date;
    QString kind;  // "normal" or "makeup"
    bool already = false;
    int streak = 0;
    int monthCount = 0;
    int points = 0;  // granted by this action
};

/** The Redis side of a user's month: what `calendar` shows except the SQL balance. */
struct CalendarMonth {
    qint64 uid = 0;
    QDate month;
    QList<int> signedDays;  // make-ups included
    QList<int> makeupDays;
    int monthCount = 0;
    int streak = 0;   // current streak as of today
    int longest = 0;  // longest run inside the month
};

/** A make-up request, validated by CheckinService::makeup. */
struct MakeupRequest {
    qint64 uid = 0;
    QDate date;
    QString operatorName;
    QString reason;
};

/** Check-in, make-up and calendar on the Redis hot path (DESIGN §4). Every write is one Lua
    script run; the reply's bits give streak and count with no second round trip. */
class CheckinService final {
    Q_DECLARE_TR_FUNCTIONS(lantern::CheckinService)

public:
    CheckinService(RedisClient &redis, const KeySchema &keys, const CheckinRules &rules);

    /** Signs `day` (the business day: never after `today`). */
    CheckinOutcome checkin(qint64 uid, QDate day, QDate today, qint64 nowMs);
    /** Throws InvalidInputError (today, future, missing reason/operator) or RefusedError
        (outside the window, quota used up); in both cases nothing is written. */
    CheckinOutcome makeup(const MakeupRequest &request, QDate today, qint64 nowMs);
    CalendarMonth calendar(qint64 uid, QDate month, QDate today);

    /** The pure part of make-up validation, usable before any connection is opened. */
    static void validateMakeup(const MakeupRequest &request, QDate today, const CheckinRules &rules);
    /** Whether a make-up of `day` lies inside the configured window (DESIGN §4). */
    static bool insideMakeupWindow(QDate day, QDate today, const CheckinRules &rules);
    /** Throws InvalidInputError for a check-in day after today. */
    static void validateCheckin(QDate day, QDate today);

private:
    /** Runs checkin.lua for `day` (CheckinRun); the streak reported is the one as of `streakAsOf`. */
    CheckinOutcome sign(qint64 uid, QDate day, QDate streakAsOf, const MakeupRequest *makeup, qint64 nowMs);
    /** The user's sign bits for `count` months ending with `month`'s, newest first. */
    QList<MonthBits> fetchMonths(qint64 uid, QDate month, int count);
    /** Current streak as of `asOf`, fetching earlier months only while a rolling run needs them. */
    int currentStreak(qint64 uid, QDate asOf, QList<MonthBits> newestFirst);

    RedisClient &m_redis;
    const KeySchema &m_keys;
    CheckinRules m_rules;
};

} // namespace lantern
