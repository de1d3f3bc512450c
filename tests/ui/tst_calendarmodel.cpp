// CalendarModel: month layouts (Monday first, 4 to 6 weeks) and day states, with
// QAbstractItemModelTester watching every change.
#include "console/users/calendarmodel.h"
#include "testsuite.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

namespace tst_calendarmodel {

using lantern::CalendarModel;
using State = CalendarModel::DayState;

namespace {
QDate day(const char *iso)
{
    return QDate::fromString(QLatin1String(iso), Qt::ISODate);
}
} // namespace

class TestCalendarModel final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void layout_data();
    void layout();
    void paddingCellsHaveNoDate();
    void states_data();
    void states();
    void unmarkedMonthShowsUnknownPastDays();
    void sameMonthMarksChangeDataNotShape();
    void headerIsMondayFirst();
};

void TestCalendarModel::layout_data()
{
    QTest::addColumn<QDate>("month");
    QTest::addColumn<int>("weeks");
    QTest::addColumn<int>("firstColumn");  // column of day 1 in row 0
    QTest::addColumn<int>("lastRow");
    QTest::addColumn<int>("lastColumn");

    QTest::newRow("28 days from a Monday fill exactly 4 weeks (Feb 2010)") << day("2010-02-01") << 4 << 0 << 3 << 6;
    QTest::newRow("28 days from a Sunday spill into 5 weeks (Feb 2009)") << day("2009-02-01") << 5 << 6 << 4 << 5;
    QTest::newRow("29 days from a Monday: 5 weeks, last alone on Monday (Feb 2016)") << day("2016-02-01") << 5 << 0 << 4 << 0;
    QTest::newRow("29 days from a Sunday: 5 weeks ending Sunday (Feb 2004)") << day("2004-02-01") << 5 << 6 << 4 << 6;
    QTest::newRow("29 days from a Thursday (Feb 2024)") << day("2024-02-01") << 5 << 3 << 4 << 3;
    QTest::newRow("30 days from a Monday: 5 weeks (Apr 2002)") << day("2002-04-01") << 5 << 0 << 4 << 1;
    QTest::newRow("30 days from a Sunday: 6 weeks (Apr 2001)") << day("2001-04-01") << 6 << 6 << 5 << 0;
    QTest::newRow("31 days from a Monday: 5 weeks (May 2000)") << day("2000-05-01") << 5 << 0 << 4 << 2;
    QTest::newRow("31 days from a Sunday: 6 weeks (Oct 2000)") << day("2000-10-01") << 6 << 6 << 5 << 1;
    QTest::newRow("31 days from a Saturday: 6 weeks ending Monday (Mar 2025)") << day("2025-03-01") << 6 << 5 << 5 << 0;
    QTest::newRow("any day of the month selects the month (15 Feb 2010)") << day("2010-02-15") << 4 << 0 << 3 << 6;
}

void TestCalendarModel::layout()
{
    QFETCH(QDate, month);
    QFETCH(int, weeks);
    QFETCH(int, firstColumn);
    QFETCH(int, lastRow);
    QFETCH(int, lastColumn);

    CalendarModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setMonth(month, day("2030-01-01"));

    QCOMPARE(model.rowCount(), weeks);
    QCOMPARE(model.columnCount(), int(CalendarModel::ColumnCount));
    const QDate first(month.year(), month.month(), 1);
    const QDate last(month.year(), month.month(), month.daysInMonth());
    QCOMPARE(model.indexOf(first), model.index(0, firstColumn));
    QCOMPARE(model.indexOf(last), model.index(lastRow, lastColumn));
    QCOMPARE(model.dateAt(model.index(0, firstColumn)), first);
    QCOMPARE(model.dateAt(model.index(lastRow, lastColumn)), last);

    // Every day has exactly one cell, in order, each in its weekday's column.
    QDate expected = first;
    for (int row = 0; row < model.rowCount(); ++row) {
        for (int column = 0; column < model.columnCount(); ++column) {
            const QDate date = model.index(row, column).data(CalendarModel::DateRole).toDate();
            if (!date.isValid())
                continue;
            QCOMPARE(date, expected);
            QCOMPARE(column, date.dayOfWeek() - 1);
            QCOMPARE(model.index(row, column).data().toInt(), date.day());
            expected = expected.addDays(1);
        }
    }
    QCOMPARE(expected, last.addDays(1));
    QVERIFY(!model.indexOf(first.addDays(-1)).isValid());
    QVERIFY(!model.indexOf(last.addDays(1)).isValid());
}

void TestCalendarModel::paddingCellsHaveNoDate()
{
    CalendarModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setMarks(day("2025-03-01"), day("2025-03-20"), {1, 2}, {});
    const QModelIndex padding = model.index(0, 0);  // Monday 24 Feb: not March
    QVERIFY(!model.dateAt(padding).isValid());
    QCOMPARE(padding.data(CalendarModel::StateRole).value<State>(), State::Outside);
    QVERIFY(!padding.data(Qt::DisplayRole).isValid());
    QVERIFY(!(model.flags(padding) & Qt::ItemIsSelectable));
    QVERIFY(!(model.flags(padding) & Qt::ItemIsEnabled));
    QVERIFY(model.flags(model.indexOf(day("2025-03-01"))) & Qt::ItemIsSelectable);
}

void TestCalendarModel::states_data()
{
    QTest::addColumn<QDate>("month");
    QTest::addColumn<QDate>("today");
    QTest::addColumn<QList<int>>("signedDays");
    QTest::addColumn<QList<int>>("makeupDays");
    QTest::addColumn<QDate>("date");
    QTest::addColumn<State>("state");
    QTest::addColumn<bool>("isToday");

    const QDate march = day("2025-03-01");
    const QDate today = day("2025-03-20");
    const QList<int> signedDays{1, 2, 3, 5, 19, 20};
    const QList<int> makeups{3};
    QTest::newRow("signed day") << march << today << signedDays << makeups << day("2025-03-02") << State::Signed << false;
    QTest::newRow("make-up day (also in the signed list)") << march << today << signedDays << makeups << day("2025-03-03") << State::MakeUp << false;
    QTest::newRow("past unsigned day is missed") << march << today << signedDays << makeups << day("2025-03-04") << State::Missed << false;
    QTest::newRow("yesterday unsigned is missed") << march << day("2025-03-21") << QList<int>{1, 19} << makeups << day("2025-03-20") << State::Missed << false;
    QTest::newRow("today signed stays signed, marked today") << march << today << signedDays << makeups << today << State::Signed << true;
    QTest::newRow("today unsigned is pending") << march << day("2025-03-21") << signedDays << makeups << day("2025-03-21") << State::Today << true;
    QTest::newRow("tomorrow is future") << march << today << signedDays << makeups << day("2025-03-21") << State::Future << false;
    QTest::newRow("last day of month is future") << march << today << signedDays << makeups << day("2025-03-31") << State::Future << false;
    QTest::newRow("first of month missed") << march << today << QList<int>{2} << QList<int>{} << day("2025-03-01") << State::Missed << false;
    QTest::newRow("whole past month: unsigned is missed") << day("2025-02-01") << today << QList<int>{28} << QList<int>{} << day("2025-02-27") << State::Missed << false;
    QTest::newRow("whole past month: 28th signed") << day("2025-02-01") << today << QList<int>{28} << QList<int>{} << day("2025-02-28") << State::Signed << false;
    QTest::newRow("whole future month is future") << day("2025-04-01") << today << QList<int>{} << QList<int>{} << day("2025-04-01") << State::Future << false;
    QTest::newRow("day 31 bit maps to 31 March") << march << day("2025-04-02") << QList<int>{31} << QList<int>{} << day("2025-03-31") << State::Signed << false;
    QTest::newRow("out-of-range days are ignored") << march << today << QList<int>{0, 32, -1} << QList<int>{40} << day("2025-03-01") << State::Missed << false;
}

void TestCalendarModel::states()
{
    QFETCH(QDate, month);
    QFETCH(QDate, today);
    QFETCH(QList<int>, signedDays);
    QFETCH(QList<int>, makeupDays);
    QFETCH(QDate, date);
    QFETCH(State, state);
    QFETCH(bool, isToday);

    CalendarModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setMarks(month, today, signedDays, makeupDays);
    const QModelIndex index = model.indexOf(date);
    QVERIFY(index.isValid());
    QCOMPARE(index.data(CalendarModel::StateRole).value<State>(), state);
    QCOMPARE(model.stateOf(date), state);
    QCOMPARE(index.data(CalendarModel::IsTodayRole).toBool(), isToday);
    QVERIFY(index.data(Qt::ToolTipRole).toString().contains(CalendarModel::stateName(state)));
}

void TestCalendarModel::unmarkedMonthShowsUnknownPastDays()
{
    CalendarModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setMonth(day("2025-03-10"), day("2025-03-20"));
    QVERIFY(!model.hasMarks());
    QCOMPARE(model.month(), day("2025-03-01"));
    QCOMPARE(model.stateOf(day("2025-03-01")), State::Unknown);
    QCOMPARE(model.stateOf(day("2025-03-20")), State::Today);
    QCOMPARE(model.stateOf(day("2025-03-21")), State::Future);

    model.setMarks(day("2025-03-01"), day("2025-03-20"), {1}, {});
    QCOMPARE(model.stateOf(day("2025-03-01")), State::Signed);
    model.clearMarks();
    QCOMPARE(model.stateOf(day("2025-03-01")), State::Unknown);
    QCOMPARE(model.rowCount(), 6);
}

void TestCalendarModel::sameMonthMarksChangeDataNotShape()
{
    CalendarModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setMarks(day("2025-03-01"), day("2025-03-20"), {1, 2}, {});
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);

    model.setMarks(day("2025-03-01"), day("2025-03-20"), {1, 2, 4}, {4});  // a make-up of the 4th
    QCOMPARE(resets.size(), 0);
    QCOMPARE(changes.size(), 1);
    QCOMPARE(model.stateOf(day("2025-03-04")), State::MakeUp);

    model.setMarks(day("2025-03-01"), day("2025-03-20"), {1, 2, 4}, {4});  // nothing new
    QCOMPARE(changes.size(), 1);

    model.setMarks(day("2025-04-01"), day("2025-03-20"), {}, {});  // another month: new shape
    QCOMPARE(resets.size(), 1);
    QCOMPARE(model.rowCount(), 5);  // April 2025 starts on a Tuesday
}

void TestCalendarModel::headerIsMondayFirst()
{
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedKingdom));
    CalendarModel model;
    model.setMonth(day("2025-03-01"), day("2025-03-20"));
    QCOMPARE(model.headerData(CalendarModel::Monday, Qt::Horizontal).toString(), QStringLiteral("Mon"));
    QCOMPARE(model.headerData(CalendarModel::Sunday, Qt::Horizontal).toString(), QStringLiteral("Sun"));
    QCOMPARE(model.headerData(0, Qt::Vertical).toInt(), 9);  // ISO week of Monday 24 Feb 2025
}

LANTERN_TEST_SUITE(TestCalendarModel);

} // namespace tst_calendarmodel

#include "tst_calendarmodel.moc"
