#include "layoutmigrationscenario.h"

#include "checkin/checkinservice.h"
#include "checkin/layoutmigration.h"
#include "checkin/streakcalculator.h"
#include "redis/keyschema.h"
#include "redis/masterscan.h"
#include "redis/redisclient.h"

#include <QMap>
#include <QRandomGenerator>
#include <QSet>
#include <QTest>

namespace lantern::test {

namespace {
constexpr qint64 Now = 1795000000000;
const QDate Today(2026, 11, 20);
const QDate November(2026, 11, 1);
const QDate October(2026, 10, 1);

/** One user's months as the old layout holds them. */
struct OldUser {
    MonthBits october;
    MonthBits november;
    MonthBits novemberMakeups;
};

/** Writes the old layout as the old checkin.lua left it: SETBIT per day on the sign bitmap,
    the make-up bitmap, SADD into the day's set. */
void writeOld(RedisClient &redis, const KeySchema &keys, qint64 uid, const OldUser &user)
{
    QList<QByteArrayList> commands;
    for (const MonthBits &bits : {user.october, user.november}) {
        for (const int day : bits.signedDays()) {
            const QDate date = bits.month.addDays(day - 1);
            commands << QByteArrayList{"SETBIT", keys.signBits(uid, bits.month), QByteArray::number(day - 1), "1"}
                     << QByteArrayList{"SADD", keys.daySet(keys.shardOf(uid), date), QByteArray::number(uid)};
        }
    }
    for (const int day : user.novemberMakeups.signedDays())
        commands << QByteArrayList{"SETBIT", keys.makeupBits(uid, November), QByteArray::number(day - 1), "1"};
    throwOnErrorReply(redis.pipeline(commands));
}

/** What the old CheckinService read from the old keys (BITFIELD GET u<days> 0). */
OldUser readOld(RedisClient &redis, const KeySchema &keys, qint64 uid)
{
    const auto read = [&](const QByteArray &key, QDate month) {
        const RedisValue reply = redis.command({"BITFIELD", key, "GET", "u" + QByteArray::number(month.daysInMonth()), "0"});
        return MonthBits::fromBitfield(month, reply.elements.at(0).toInteger());
    };
    return {read(keys.signBits(uid, October), October), read(keys.signBits(uid, November), November),
            read(keys.makeupBits(uid, November), November)};
}
} // namespace

qint64 countKeys(RedisClient &redis, const QByteArray &pattern)
{
    qint64 count = 0;
    MasterScan::run(redis, pattern, 1000, [&](const QByteArrayList &keys) { count += keys.size(); });
    return count;
}

void migratesWhileCheckinsArrive(RedisClient &redis, const KeySchema &keys, const std::function<void()> &oldWritten)
{
    QRandomGenerator random(5);

    // 300 users: dense ones over two blocks, sparse 13-digit ones, some every day of October.
    QList<qint64> uids;
    for (int i = 0; i < 240; ++i)
        uids << 1 + qint64(random.bounded(quint32(2 * 65533 * 4)));
    for (int i = 0; i < 60; ++i)
        uids << 1'000'000'000'000 + i * 7919;
    std::sort(uids.begin(), uids.end());
    uids.erase(std::unique(uids.begin(), uids.end()), uids.end());
    QMap<qint64, OldUser> old;
    for (const qint64 uid : std::as_const(uids)) {
        OldUser user{{October, 0}, {November, 0}, {November, 0}};
        for (int day = 1; day <= 31; ++day) {
            if (uid % 10 == 0 || random.bounded(4) != 0)
                user.october.bits |= 1u << (day - 1);
        }
        for (int day = 1; day < Today.day(); ++day) {
            if (random.bounded(3) != 0)
                user.november.bits |= 1u << (day - 1);
        }
        if (uid % 3 == 0) {  // a make-up or two among the signed days
            for (int day = 1, marked = 0; day < Today.day() && marked < 2; ++day) {
                if (user.november.isSigned(day) && random.bounded(4) == 0) {
                    user.novemberMakeups.bits |= 1u << (day - 1);
                    ++marked;
                }
            }
        }
        writeOld(redis, keys, uid, user);
        old.insert(uid, user);
    }
    // "Before": what the old keys say, as the old service read them.
    for (const qint64 uid : std::as_const(uids)) {
        const OldUser read = readOld(redis, keys, uid);
        QCOMPARE(read.november.bits, old.value(uid).november.bits);
        QCOMPARE(read.october.bits, old.value(uid).october.bits);
        QCOMPARE(read.novemberMakeups.bits, old.value(uid).novemberMakeups.bits);
    }
    const qint64 oldSignKeys = countKeys(redis, keys.prefix() + "{ck:*}:sign:*");
    QCOMPARE(oldSignKeys, 2 * qint64(uids.size()));
    if (oldWritten) {
        oldWritten();
        if (QTest::currentTestFailed())
            return;
    }

    // A dry run counts and writes nothing.
    const LayoutMigrationReport dry = LayoutMigration(redis, keys, 20).run(true);
    QVERIFY(dry.dryRun);
    QCOMPARE(dry.scanned, oldSignKeys);
    QCOMPARE(dry.migrated, 0);
    QVERIFY(dry.daySets > 0);
    QCOMPARE(dry.daySetsRemoved, 0);
    QCOMPARE(countKeys(redis, keys.prefix() + "{ck:*}:sign:*"), oldSignKeys);
    QCOMPARE(countKeys(redis, keys.prefix() + "{ck:*}:mb:*"), 0);

    // The migration, small pages; after each page, check-ins of today arrive (through the new
    // layout), for users already moved and users not moved yet.
    CheckinService service(redis, keys, CheckinRules{});
    QSet<qint64> checkedInToday;
    qsizetype next = 0;
    int pages = 0;
    const LayoutMigrationReport report = LayoutMigration(redis, keys, 20).run(false, [&](const LayoutMigrationReport &) {
        ++pages;
        for (int i = 0; i < 7 && next < uids.size(); ++i, next += 3) {
            service.checkin(uids.at(next), Today, Today, Now);
            checkedInToday.insert(uids.at(next));
        }
    });
    QVERIFY(pages > 5);
    QVERIFY(checkedInToday.size() > 20);
    QVERIFY(report.scanned >= oldSignKeys);  // SCAN may return a key twice; the second finds it moved
    QCOMPARE(report.migrated, oldSignKeys);
    QCOMPARE(report.daySetsRemoved, report.daySets);
    QCOMPARE(countKeys(redis, keys.prefix() + "{ck:*}:sign:*"), 0);
    QCOMPARE(countKeys(redis, keys.prefix() + "{ck:*}:makeup:*"), 0);
    QCOMPARE(countKeys(redis, keys.prefix() + "{ck:*}:day:*"), 0);

    // "After": every user's calendar, streak and make-ups are the old ones plus today's check-in.
    CheckinRules rolling;
    rolling.streakPolicy = StreakPolicy::Rolling;
    CheckinService rollingService(redis, keys, rolling);
    for (const qint64 uid : std::as_const(uids)) {
        const OldUser &before = old[uid];
        MonthBits november = before.november;
        if (checkedInToday.contains(uid))
            november.bits |= 1u << (Today.day() - 1);
        const CalendarMonth calendar = service.calendar(uid, November, Today);
        QCOMPARE(calendar.signedDays, november.signedDays());
        QCOMPARE(calendar.makeupDays, before.novemberMakeups.signedDays());
        QCOMPARE(calendar.makeupDays.size(), before.novemberMakeups.count());
        QCOMPARE(calendar.monthCount, november.count());
        QCOMPARE(calendar.longest, november.longestRun());
        QCOMPARE(calendar.streak, StreakCalculator::current(Today, {november}, StreakPolicy::Monthly).streak);
        QCOMPARE(rollingService.calendar(uid, November, Today).streak,
                 StreakCalculator::current(Today, {november, before.october, MonthBits{October.addMonths(-1), 0}}, StreakPolicy::Rolling).streak);
        QCOMPARE(service.calendar(uid, October, Today).signedDays, before.october.signedDays());
    }

    // Again: nothing left to do.
    const LayoutMigrationReport again = LayoutMigration(redis, keys, 20).run(false);
    QCOMPARE(again.scanned, 0);
    QCOMPARE(again.migrated, 0);
    QCOMPARE(again.daySets, 0);
}

} // namespace lantern::test
