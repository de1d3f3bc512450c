// MakeupPolicy: the console's reading of the make-up rules, which decides whether the
// "Make-up…" action is offered and how a refusal is worded.
#include "console/users/makeuppolicy.h"
#include "testsuite.h"

#include <QTest>

namespace tst_makeuppolicy {

using lantern::CheckinRules;
using lantern::MakeupBlock;
using lantern::MakeupPolicy;

class TestMakeupPolicy final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void check_data();
    void check();
};

void TestMakeupPolicy::check_data()
{
    QTest::addColumn<int>("windowDays");
    QTest::addColumn<int>("quota");
    QTest::addColumn<QDate>("day");
    QTest::addColumn<bool>("alreadySigned");
    QTest::addColumn<int>("used");
    QTest::addColumn<MakeupBlock>("expected");

    const QDate today(2025, 3, 20);
    QTest::newRow("missed day of this month, quota left: allowed") << 0 << 3 << QDate(2025, 3, 4) << false << 2 << MakeupBlock::None;
    QTest::newRow("no day selected") << 0 << 3 << QDate() << false << 0 << MakeupBlock::NoDay;
    QTest::newRow("today is not a make-up") << 0 << 3 << today << false << 0 << MakeupBlock::NotPast;
    QTest::newRow("future day") << 0 << 3 << QDate(2025, 3, 25) << false << 0 << MakeupBlock::NotPast;
    QTest::newRow("signed day") << 0 << 3 << QDate(2025, 3, 4) << true << 0 << MakeupBlock::AlreadySigned;
    QTest::newRow("last month, monthly window") << 0 << 3 << QDate(2025, 2, 28) << false << 0 << MakeupBlock::OutsideWindow;
    QTest::newRow("quota used up") << 0 << 3 << QDate(2025, 3, 4) << false << 3 << MakeupBlock::QuotaUsed;
    QTest::newRow("7-day window reaches last month") << 7 << 3 << QDate(2025, 3, 13) << false << 0 << MakeupBlock::None;
    QTest::newRow("7-day window: 8 days ago refused") << 7 << 3 << QDate(2025, 3, 12) << false << 0 << MakeupBlock::OutsideWindow;
    QTest::newRow("quota 0 allows none") << 0 << 0 << QDate(2025, 3, 4) << false << 0 << MakeupBlock::QuotaUsed;
}

void TestMakeupPolicy::check()
{
    QFETCH(int, windowDays);
    QFETCH(int, quota);
    QFETCH(QDate, day);
    QFETCH(bool, alreadySigned);
    QFETCH(int, used);
    QFETCH(MakeupBlock, expected);

    CheckinRules rules;
    rules.makeupWindowDays = windowDays;
    rules.makeupQuota = quota;
    QCOMPARE(MakeupPolicy(rules).check(day, QDate(2025, 3, 20), alreadySigned, used), expected);
}

LANTERN_TEST_SUITE(TestMakeupPolicy);

} // namespace tst_makeuppolicy

#include "tst_makeuppolicy.moc"
