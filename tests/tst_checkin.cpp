// Check-in, make-up and calendar through CheckinService on a real private Redis: the Lua
// script's reward agrees with the C++ streak rules, one round trip per check-in, make-up window
// and quota, refusals that change nothing, and one reward under a crowd of concurrent clients.
#include "checkin/checkinlayout.h"
#include "checkin/checkinservice.h"
#include "checkin/monthstats.h"
#include "checkin/streakcalculator.h"
#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "testservers.h"
#include "testsuite.h"

#include <QRandomGenerator>
#include <QTest>
#include <QThread>

#include <atomic>

namespace tst_checkin {

using namespace lantern;

namespace {
constexpr qint64 Now = 1795000000000;

/** Everything a key prefix holds, to prove that a refusal wrote nothing. */
QMap<QByteArray, QByteArray> snapshot(RedisClient &redis, const KeySchema &keys)
{
    QMap<QByteArray, QByteArray> state;
    QByteArray cursor = "0";
    do {
        const RedisValue reply = redis.command({"SCAN", cursor, "MATCH", keys.prefix() + "*", "COUNT", "1000"});
        cursor = reply.elements[0].toBytes();
        for (const RedisValue &key : reply.elements[1].elements)
            state.insert(key.toBytes(), redis.command({"DUMP", key.toBytes()}).toBytes());
    } while (cursor != "0");
    return state;
}
} // namespace

class TestCheckin : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void scriptRewardMatchesStreakRules_data();
    void scriptRewardMatchesStreakRules();
    void oneRoundTripPerCheckin();
    void secondCheckinIsAlreadyAndGrantsNothing();
    void scriptedMonth();
    void rollingStreakAcrossManyMonths();
    void makeupRules_data();
    void makeupRules();
    void makeupQuotaIsAtomicAndRefusalWritesNothing();
    void makeupCanGrantPointsWhenConfigured();
    void calendarOfAnotherMonth();
    void concurrentClientsGrantOneReward();

private:
    RedisUrl m_url;
};

void TestCheckin::initTestCase()
{
    m_url = test::redisUrl();
}

void TestCheckin::scriptRewardMatchesStreakRules_data()
{
    QTest::addColumn<StreakPolicy>("policy");
    QTest::addColumn<QDate>("day");
    QTest::addColumn<int>("seed");
    // Random month patterns for each month length and both policies: the script computes the
    // reward in Lua, the console and CLI compute streaks in C++; they must agree.
    const QList<QDate> days{QDate(2026, 2, 28), QDate(2028, 2, 29), QDate(2026, 11, 30), QDate(2026, 12, 31),
                            QDate(2026, 12, 1), QDate(2026, 3, 2), QDate(2026, 11, 15), QDate(2026, 1, 4)};
    for (const QDate &day : days) {
        for (int seed = 1; seed <= 6; ++seed) {
            QTest::addRow("monthly %s seed %d", qPrintable(day.toString(Qt::ISODate)), seed) << StreakPolicy::Monthly << day << seed;
            QTest::addRow("rolling %s seed %d", qPrintable(day.toString(Qt::ISODate)), seed) << StreakPolicy::Rolling << day << seed;
        }
    }
}

void TestCheckin::scriptRewardMatchesStreakRules()
{
    QFETCH(StreakPolicy, policy);
    QFETCH(QDate, day);
    QFETCH(int, seed);
    RedisClient redis(m_url);
    const KeySchema keys(test::uniquePrefix(), 4);
    CheckinRules rules;
    rules.streakPolicy = policy;
    rules.rewards = {1, 2, 4, 8, 16, 32};  // long enough to see a rolling run's length in the points
    CheckinService service(redis, keys, rules);

    QRandomGenerator random(quint32(seed * 7919 + day.toJulianDay()));
    const qint64 uid = 1000 + seed;
    const QDate month(day.year(), day.month(), 1);
    const QDate previous = month.addMonths(-1);
    QList<int> before;
    QList<int> previousDays;
    // Dense patterns (80% signed) so runs often reach the 1st and cross into the previous month.
    for (int d = 1; d < day.day(); ++d) {
        if (random.bounded(10) < 8 || seed == 1)
            before << d;
    }
    for (int d = 1; d <= previous.daysInMonth(); ++d) {
        if (random.bounded(10) < 8 || seed <= 2)
            previousDays << d;
    }
    const CheckinLayout layout(keys);
    throwOnErrorReply(redis.pipeline(layout.setMonth(uid, MonthBits::fromDays(month, before))
                                     + layout.setMonth(uid, MonthBits::fromDays(previous, previousDays))));

    const CheckinOutcome outcome = service.checkin(uid, day, day, Now);
    QVERIFY(!outcome.already);
    QList<int> after = before;
    after << day.day();
    const QList<MonthBits> months{MonthBits::fromDays(month, after), MonthBits::fromDays(previous, previousDays)};
    const int expectedStreak = StreakCalculator::current(day, months, policy).streak;
    QCOMPARE(outcome.points, rewardFor(rules.rewards, expectedStreak));
    QCOMPARE(outcome.monthCount, after.size());
    if (!(policy == StreakPolicy::Rolling && months[1].isFull() && months[0].runEndingAt(day.day()) == day.day()))
        QCOMPARE(outcome.streak, expectedStreak);  // (a full previous month makes the service look further back)
}

void TestCheckin::oneRoundTripPerCheckin()
{
    RedisClient redis(m_url);
    const KeySchema keys(test::uniquePrefix());
    CheckinService service(redis, keys, CheckinRules{});
    service.checkin(1, QDate(2026, 11, 1), QDate(2026, 11, 1), Now);  // the script is now loaded
    const quint64 before = redis.roundTrips();
    const CheckinOutcome outcome = service.checkin(1, QDate(2026, 11, 2), QDate(2026, 11, 2), Now);
    QCOMPARE(redis.roundTrips() - before, quint64(1));
    QCOMPARE(outcome.streak, 2);
    QCOMPARE(outcome.points, 20);
}

void TestCheckin::secondCheckinIsAlreadyAndGrantsNothing()
{
    RedisClient redis(m_url);
    const KeySchema keys(test::uniquePrefix());
    CheckinService service(redis, keys, CheckinRules{});
    const QDate day(2026, 11, 21);
    const CheckinOutcome first = service.checkin(7, day, day, Now);
    const auto state = snapshot(redis, keys);
    const CheckinOutcome second = service.checkin(7, day, day, Now);
    QVERIFY(!first.already);
    QCOMPARE(first.points, 10);
    QVERIFY(second.already);
    QCOMPARE(second.points, 0);
    QCOMPARE(second.streak, 1);
    QCOMPARE(snapshot(redis, keys), state);
}

void TestCheckin::scriptedMonth()
{
    RedisClient redis(m_url);
    const KeySchema keys(test::uniquePrefix());
    CheckinService service(redis, keys, CheckinRules{});
    const qint64 uid = 42;
    QList<int> points;
    for (int d : {1, 2, 3, 5, 6})
        points << service.checkin(uid, QDate(2026, 11, d), QDate(2026, 11, d), Now).points;
    QCOMPARE(points, (QList<int>{10, 20, 30, 10, 20}));

    const CheckinOutcome makeup = service.makeup({uid, QDate(2026, 11, 4), QStringLiteral("alice"), QStringLiteral("outage")},
                                                 QDate(2026, 11, 6), Now);
    QCOMPARE(makeup.kind, QStringLiteral("makeup"));
    QCOMPARE(makeup.points, 0);
    QCOMPARE(makeup.streak, 6);  // the gap is filled
    QCOMPARE(makeup.monthCount, 6);
    QCOMPARE(service.checkin(uid, QDate(2026, 11, 7), QDate(2026, 11, 7), Now).points, 50);

    const CalendarMonth calendar = service.calendar(uid, QDate(2026, 11, 1), QDate(2026, 11, 9));
    QCOMPARE(calendar.signedDays, (QList<int>{1, 2, 3, 4, 5, 6, 7}));
    QCOMPARE(calendar.makeupDays, QList<int>{4});
    QCOMPARE(calendar.longest, 7);
    QCOMPARE(calendar.streak, 0);  // neither the 9th nor the 8th is signed
    QCOMPARE(service.calendar(uid, QDate(2026, 11, 1), QDate(2026, 11, 8)).streak, 7);

    // Six check-ins plus one make-up: seven log entries queued for persistence.
    QCOMPARE(redis.command({"LLEN", keys.checkinQueue(keys.shardOf(uid))}).toInteger(), 7LL);
}

void TestCheckin::rollingStreakAcrossManyMonths()
{
    RedisClient redis(m_url);
    const KeySchema keys(test::uniquePrefix());
    CheckinRules rules;
    rules.streakPolicy = StreakPolicy::Rolling;
    CheckinService service(redis, keys, rules);
    // Every day from 2026-01-01 to 2026-09-04 signed: 247 days, eight full months behind.
    int days = 0;
    const CheckinLayout layout(keys);
    for (QDate month(2026, 1, 1); month < QDate(2026, 9, 1); month = month.addMonths(1)) {
        throwOnErrorReply(redis.pipeline(layout.setMonth(5, MonthBits{month, (quint32(1) << month.daysInMonth()) - 1})));
        days += month.daysInMonth();
    }
    throwOnErrorReply(redis.pipeline(layout.setMonth(5, MonthBits::fromDays(QDate(2026, 9, 1), {1, 2, 3, 4}))));
    days += 4;
    const CheckinOutcome outcome = service.checkin(5, QDate(2026, 9, 5), QDate(2026, 9, 5), Now);
    QCOMPARE(outcome.streak, days + 1);
    QCOMPARE(outcome.points, 50);
}

void TestCheckin::makeupRules_data()
{
    QTest::addColumn<QDate>("today");
    QTest::addColumn<QDate>("day");
    QTest::addColumn<int>("windowDays");
    QTest::addColumn<QString>("expected");  // ok, invalid, refused
    QTest::newRow("yesterday, month window -> ok") << QDate(2026, 11, 21) << QDate(2026, 11, 20) << 0 << "ok";
    QTest::newRow("the 1st, month window -> ok") << QDate(2026, 11, 21) << QDate(2026, 11, 1) << 0 << "ok";
    QTest::newRow("last month, month window -> refused") << QDate(2026, 11, 21) << QDate(2026, 10, 31) << 0 << "refused";
    QTest::newRow("on the 1st nothing is left to make up") << QDate(2026, 12, 1) << QDate(2026, 11, 30) << 0 << "refused";
    QTest::newRow("today -> invalid") << QDate(2026, 11, 21) << QDate(2026, 11, 21) << 0 << "invalid";
    QTest::newRow("tomorrow -> invalid") << QDate(2026, 11, 21) << QDate(2026, 11, 22) << 0 << "invalid";
    QTest::newRow("7-day window crosses the month -> ok") << QDate(2026, 12, 2) << QDate(2026, 11, 28) << 7 << "ok";
    QTest::newRow("7-day window, 7 days back -> ok") << QDate(2026, 12, 8) << QDate(2026, 12, 1) << 7 << "ok";
    QTest::newRow("7-day window, 8 days back -> refused") << QDate(2026, 12, 9) << QDate(2026, 12, 1) << 7 << "refused";
}

void TestCheckin::makeupRules()
{
    QFETCH(QDate, today);
    QFETCH(QDate, day);
    QFETCH(int, windowDays);
    QFETCH(QString, expected);
    RedisClient redis(m_url);
    const KeySchema keys(test::uniquePrefix());
    CheckinRules rules;
    rules.makeupWindowDays = windowDays;
    CheckinService service(redis, keys, rules);
    const MakeupRequest request{9, day, QStringLiteral("bob"), QStringLiteral("ticket 123")};
    if (expected == QLatin1String("ok")) {
        const CheckinOutcome outcome = service.makeup(request, today, Now);
        QVERIFY(!outcome.already);
        QCOMPARE(service.calendar(9, day, today).makeupDays, QList<int>{day.day()});
        return;
    }
    if (expected == QLatin1String("invalid"))
        QVERIFY_THROWS_EXCEPTION(InvalidInputError, service.makeup(request, today, Now));
    else
        QVERIFY_THROWS_EXCEPTION(RefusedError, service.makeup(request, today, Now));
    QVERIFY(snapshot(redis, keys).isEmpty());
}

void TestCheckin::makeupQuotaIsAtomicAndRefusalWritesNothing()
{
    RedisClient redis(m_url);
    const KeySchema keys(test::uniquePrefix());
    CheckinService service(redis, keys, CheckinRules{});
    const QDate today(2026, 11, 21);
    for (int d : {3, 5, 7})
        QVERIFY(!service.makeup({11, QDate(2026, 11, d), QStringLiteral("op"), QStringLiteral("r")}, today, Now).already);
    // A day already signed is reported, not counted against the quota.
    QVERIFY(service.makeup({11, QDate(2026, 11, 5), QStringLiteral("op"), QStringLiteral("r")}, today, Now).already);
    const auto state = snapshot(redis, keys);
    QVERIFY_THROWS_EXCEPTION(RefusedError, service.makeup({11, QDate(2026, 11, 9), QStringLiteral("op"), QStringLiteral("r")}, today, Now));
    QCOMPARE(snapshot(redis, keys), state);
    // The quota is per month: another user is unaffected.
    QVERIFY(!service.makeup({12, QDate(2026, 11, 9), QStringLiteral("op"), QStringLiteral("r")}, today, Now).already);

    for (const auto &[operatorName, reason] : {std::pair{QString(), QStringLiteral("r")}, std::pair{QStringLiteral("op"), QStringLiteral("  ")}})
        QVERIFY_THROWS_EXCEPTION(InvalidInputError, service.makeup({13, QDate(2026, 11, 9), operatorName, reason}, today, Now));
}

void TestCheckin::makeupCanGrantPointsWhenConfigured()
{
    RedisClient redis(m_url);
    const KeySchema keys(test::uniquePrefix());
    CheckinRules rules;
    rules.makeupGrantsPoints = true;
    CheckinService service(redis, keys, rules);
    service.checkin(3, QDate(2026, 11, 1), QDate(2026, 11, 1), Now);
    QCOMPARE(service.makeup({3, QDate(2026, 11, 2), QStringLiteral("op"), QStringLiteral("r")}, QDate(2026, 11, 5), Now).points, 20);
}

void TestCheckin::calendarOfAnotherMonth()
{
    RedisClient redis(m_url);
    const KeySchema keys(test::uniquePrefix());
    CheckinService service(redis, keys, CheckinRules{});
    for (int d : {27, 28})
        service.checkin(8, QDate(2026, 2, d), QDate(2026, 2, d), Now);
    service.checkin(8, QDate(2026, 3, 1), QDate(2026, 3, 1), Now);
    const CalendarMonth february = service.calendar(8, QDate(2026, 2, 1), QDate(2026, 3, 1));
    QCOMPARE(february.signedDays, (QList<int>{27, 28}));
    QCOMPARE(february.monthCount, 2);
    QCOMPARE(february.longest, 2);
    QCOMPARE(february.streak, 1);  // as of today (March 1st), monthly policy
}

void TestCheckin::concurrentClientsGrantOneReward()
{
    const KeySchema keys(test::uniquePrefix());
    const QDate day(2026, 11, 21);
    constexpr int Clients = 50;
    std::atomic_int granted{0};
    std::atomic_int already{0};
    std::atomic_int points{0};
    QList<QThread *> threads;
    for (int i = 0; i < Clients; ++i) {
        threads << QThread::create([&] {
            RedisClient redis(m_url);
            CheckinService service(redis, keys, CheckinRules{});
            for (int attempt = 0; attempt < 4; ++attempt) {
                const CheckinOutcome outcome = service.checkin(77, day, day, Now);
                (outcome.already ? already : granted) += 1;
                points += outcome.points;
            }
        });
        threads.back()->start();
    }
    for (QThread *thread : threads) {
        QVERIFY(thread->wait(60000));
        delete thread;
    }
    QCOMPARE(granted.load(), 1);
    QCOMPARE(already.load(), Clients * 4 - 1);
    QCOMPARE(points.load(), 10);
    RedisClient redis(m_url);
    QCOMPARE(redis.command({"LLEN", keys.checkinQueue(keys.shardOf(77))}).toInteger(), 1LL);
    QCOMPARE(MonthStatsReader(redis, keys).read(day, day).days.back().checkedIn, 1LL);
}

LANTERN_TEST_SUITE(TestCheckin);

} // namespace tst_checkin

#include "tst_checkin.moc"
