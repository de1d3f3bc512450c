// Streak, month count, longest run and reward over many bit patterns, with no I/O.
#include "checkin/monthbits.h"
#include "checkin/streakcalculator.h"
#include "testsuite.h"

#include <QTest>

namespace tst_streak {

using namespace lantern;

class TestStreak : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void bitfieldDecoding_data();
    void bitfieldDecoding();
    void currentStreak_data();
    void currentStreak();
    void longestAndCount_data();
    void longestAndCount();
    void reward_data();
    void reward();
};

void TestStreak::bitfieldDecoding_data()
{
    QTest::addColumn<QDate>("month");
    QTest::addColumn<qint64>("bitfield");
    QTest::addColumn<QList<int>>("days");
    // BITFIELD GET u<days> 0 reads day 1 (offset 0) as the most significant bit.
    QTest::newRow("31-day month, day 1 only is the top bit") << QDate(2026, 1, 1) << (qint64(1) << 30) << QList<int>{1};
    QTest::newRow("31-day month, day 31 only is bit 0") << QDate(2026, 1, 1) << qint64(1) << QList<int>{31};
    QTest::newRow("28-day February, days 1 and 28") << QDate(2026, 2, 1) << ((qint64(1) << 27) | 1) << QList<int>{1, 28};
    QTest::newRow("29-day leap February, day 29") << QDate(2028, 2, 1) << qint64(1) << QList<int>{29};
    QTest::newRow("30-day month, all days") << QDate(2026, 11, 1) << ((qint64(1) << 30) - 1)
                                            << QList<int>{1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                                          16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30};
    QTest::newRow("empty month") << QDate(2026, 4, 1) << qint64(0) << QList<int>{};
}

void TestStreak::bitfieldDecoding()
{
    QFETCH(QDate, month);
    QFETCH(qint64, bitfield);
    QFETCH(QList<int>, days);
    const MonthBits bits = MonthBits::fromBitfield(month, bitfield);
    QCOMPARE(bits.signedDays(), days);
    QCOMPARE(bits.count(), days.size());
    QCOMPARE(bits.bits, MonthBits::fromDays(month, days).bits);
}

void TestStreak::currentStreak_data()
{
    QTest::addColumn<QDate>("asOf");
    QTest::addColumn<QList<int>>("thisMonth");
    QTest::addColumn<QList<int>>("previousMonth");
    QTest::addColumn<StreakPolicy>("policy");
    QTest::addColumn<int>("streak");
    QTest::addColumn<bool>("needsEarlier");

    const auto M = StreakPolicy::Monthly;
    const auto R = StreakPolicy::Rolling;
    QTest::newRow("nothing signed -> 0") << QDate(2026, 11, 10) << QList<int>{} << QList<int>{} << M << 0 << false;
    QTest::newRow("today signed alone -> 1") << QDate(2026, 11, 10) << QList<int>{10} << QList<int>{} << M << 1 << false;
    QTest::newRow("today unsigned, counts from yesterday -> 3") << QDate(2026, 11, 10) << QList<int>{7, 8, 9} << QList<int>{} << M << 3 << false;
    QTest::newRow("today and yesterday unsigned -> 0") << QDate(2026, 11, 10) << QList<int>{7, 8} << QList<int>{} << M << 0 << false;
    QTest::newRow("gap breaks the run -> 2") << QDate(2026, 11, 6) << QList<int>{1, 2, 3, 5, 6} << QList<int>{} << M << 2 << false;
    QTest::newRow("make-up fills gap, streak 2 -> 6") << QDate(2026, 11, 6) << QList<int>{1, 2, 3, 4, 5, 6} << QList<int>{} << M << 6 << false;
    QTest::newRow("signed days after asOf are ignored") << QDate(2026, 11, 3) << QList<int>{1, 2, 3, 4, 5} << QList<int>{} << M << 3 << false;
    QTest::newRow("1st of month, monthly restarts -> 1") << QDate(2026, 12, 1) << QList<int>{1} << QList<int>{28, 29, 30} << M << 1 << false;
    QTest::newRow("1st unsigned, monthly: last month does not count") << QDate(2026, 12, 1) << QList<int>{} << QList<int>{29, 30} << M << 0 << false;
    QTest::newRow("1st of month, rolling crosses -> 4") << QDate(2026, 12, 1) << QList<int>{1} << QList<int>{28, 29, 30} << R << 4 << false;
    QTest::newRow("1st unsigned, rolling counts last month's end -> 2") << QDate(2026, 12, 1) << QList<int>{} << QList<int>{29, 30} << R << 2 << false;
    QTest::newRow("rolling, gap on last day of previous month -> 2") << QDate(2026, 12, 2) << QList<int>{1, 2} << QList<int>{28, 29} << R << 2 << false;
    QTest::newRow("rolling, run not reaching the 1st stays in month") << QDate(2026, 12, 5) << QList<int>{3, 4, 5} << QList<int>{30} << R << 3 << false;
    QTest::newRow("monthly on 31st of a 31-day month, full month -> 31") << QDate(2026, 12, 31)
                                                                         << MonthBits::fromBitfield(QDate(2026, 12, 1), (qint64(1) << 31) - 1).signedDays()
                                                                         << QList<int>{} << M << 31 << false;
    QTest::newRow("28-day February end, crossing into March rolling") << QDate(2026, 3, 2) << QList<int>{1, 2} << QList<int>{27, 28} << R << 4 << false;
    QTest::newRow("29-day leap February end, rolling") << QDate(2028, 3, 1) << QList<int>{1} << QList<int>{26, 27, 28, 29} << R << 5 << false;
    QTest::newRow("30-day November end, rolling into December") << QDate(2026, 12, 1) << QList<int>{1} << QList<int>{30} << R << 2 << false;
    const QList<int> fullNovember = MonthBits::fromBitfield(QDate(2026, 11, 1), (qint64(1) << 30) - 1).signedDays();
    QTest::newRow("rolling, previous month full -> needs an earlier month") << QDate(2026, 12, 2) << QList<int>{1, 2} << fullNovember << R << 32 << true;
}

void TestStreak::currentStreak()
{
    QFETCH(QDate, asOf);
    QFETCH(QList<int>, thisMonth);
    QFETCH(QList<int>, previousMonth);
    QFETCH(StreakPolicy, policy);
    QFETCH(int, streak);
    QFETCH(bool, needsEarlier);
    const QDate month(asOf.year(), asOf.month(), 1);
    const QList<MonthBits> months{MonthBits::fromDays(month, thisMonth), MonthBits::fromDays(month.addMonths(-1), previousMonth)};
    const auto result = StreakCalculator::current(asOf, months, policy);
    QCOMPARE(result.streak, streak);
    QCOMPARE(result.needsEarlierMonth, needsEarlier);
}

void TestStreak::longestAndCount_data()
{
    QTest::addColumn<QDate>("month");
    QTest::addColumn<QList<int>>("days");
    QTest::addColumn<int>("longest");
    QTest::addColumn<int>("count");
    QTest::newRow("empty") << QDate(2026, 11, 1) << QList<int>{} << 0 << 0;
    QTest::newRow("two runs, the later longer") << QDate(2026, 11, 1) << QList<int>{1, 2, 5, 6, 7} << 3 << 5;
    QTest::newRow("run ending on the 30th") << QDate(2026, 11, 1) << QList<int>{28, 29, 30} << 3 << 3;
    QTest::newRow("alternate days") << QDate(2026, 2, 1) << QList<int>{1, 3, 5, 7} << 1 << 4;
    QTest::newRow("full February 2026") << QDate(2026, 2, 1) << MonthBits::fromBitfield(QDate(2026, 2, 1), (1 << 28) - 1).signedDays() << 28 << 28;
}

void TestStreak::longestAndCount()
{
    QFETCH(QDate, month);
    QFETCH(QList<int>, days);
    QFETCH(int, longest);
    QFETCH(int, count);
    const MonthBits bits = MonthBits::fromDays(month, days);
    QCOMPARE(bits.longestRun(), longest);
    QCOMPARE(bits.count(), count);
}

void TestStreak::reward_data()
{
    QTest::addColumn<QList<int>>("table");
    QTest::addColumn<int>("streakDay");
    QTest::addColumn<int>("points");
    const QList<int> seeds{10, 20, 30, 50};
    QTest::newRow("day 1 -> 10") << seeds << 1 << 10;
    QTest::newRow("day 2 -> 20") << seeds << 2 << 20;
    QTest::newRow("day 3 -> 30") << seeds << 3 << 30;
    QTest::newRow("day 4 -> 50") << seeds << 4 << 50;
    QTest::newRow("day 31 stays at the last entry") << seeds << 31 << 50;
    QTest::newRow("no streak -> 0") << seeds << 0 << 0;
    QTest::newRow("custom one-entry table") << QList<int>{5} << 9 << 5;
}

void TestStreak::reward()
{
    QFETCH(QList<int>, table);
    QFETCH(int, streakDay);
    QFETCH(int, points);
    QCOMPARE(rewardFor(table, streakDay), points);
}

LANTERN_TEST_SUITE(TestStreak);

} // namespace tst_streak

#include "tst_streak.moc"
