// The check-in keys' exact text (KeySchema, written in one buffer since issue 28), the date
// digits they and checkin.lua's arguments carry (core/datetext), and TextWriter, which writes
// them: what Redis already holds must still be found under the same names.
#include "core/datetext.h"
#include "core/textwriter.h"
#include "redis/keyschema.h"
#include "testsuite.h"

#include <QTest>

#include <limits>

namespace tst_keyschema {

using namespace lantern;

class TestKeySchema final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void checkinMonthKeys_data();
    void checkinMonthKeys();
    void dateDigits();
    void textWriterNumbers();
};

void TestKeySchema::checkinMonthKeys_data()
{
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<int>("shard");
    QTest::addColumn<qint64>("block");
    QTest::addColumn<int>("group");
    QTest::addColumn<QDate>("month");
    QTest::addColumn<QByteArray>("monthBlock");
    QTest::addColumn<QByteArray>("makeupMarks");
    QTest::addColumn<QByteArray>("sparseMonth");

    QTest::newRow("default prefix, shard 0, March: the month's leading zero")
            << QStringLiteral("lt:") << 0 << qint64(0) << 0 << QDate(2026, 3, 1) << QByteArray("lt:{ck:0}:mb:0:202603")
            << QByteArray("lt:{ck:0}:mk:0:0:202603") << QByteArray("lt:{ck:0}:sp:0:202603");
    QTest::newRow("a bench prefix, shard 15, a large block, December")
            << QStringLiteral("ltbench:") << 15 << qint64(1099511627) << 7 << QDate(2026, 12, 31)
            << QByteArray("ltbench:{ck:15}:mb:1099511627:202612") << QByteArray("ltbench:{ck:15}:mk:1099511627:7:202612")
            << QByteArray("ltbench:{ck:15}:sp:1099511627:202612");
    QTest::newRow("empty prefix, shard 16383, year 2000")
            << QString() << 16383 << qint64(175) << 12 << QDate(2000, 1, 15) << QByteArray("{ck:16383}:mb:175:200001")
            << QByteArray("{ck:16383}:mk:175:12:200001") << QByteArray("{ck:16383}:sp:175:200001");
}

void TestKeySchema::checkinMonthKeys()
{
    QFETCH(QString, prefix);
    QFETCH(int, shard);
    QFETCH(qint64, block);
    QFETCH(int, group);
    QFETCH(QDate, month);
    QFETCH(QByteArray, monthBlock);
    QFETCH(QByteArray, makeupMarks);
    QFETCH(QByteArray, sparseMonth);

    const KeySchema keys(prefix, 16384);
    QCOMPARE(keys.monthBlock(shard, block, month), monthBlock);
    QCOMPARE(keys.makeupMarks(shard, block, group, month), makeupMarks);
    QCOMPARE(keys.sparseMonth(shard, int(block), month), sparseMonth);
}

void TestKeySchema::dateDigits()
{
    const QDate day(2026, 2, 5);
    QCOMPARE(compactMonth(day), QByteArray("202602"));
    QCOMPARE(compactDay(day), QByteArray("20260205"));
    QCOMPARE(isoDay(day), QByteArray("2026-02-05"));
    TextWriter key(4);  // too small: it grows
    key << "x:";
    writeCompactMonth(key, QDate(2099, 11, 30));
    key << ':';
    writeIsoDay(key, day);
    QCOMPARE(key.take(), QByteArray("x:209911:2026-02-05"));
}

void TestKeySchema::textWriterNumbers()
{
    TextWriter text(0);
    QByteArray expected;
    for (const qint64 value : {qint64(0), qint64(-1), qint64(42), std::numeric_limits<qint64>::min(), std::numeric_limits<qint64>::max()}) {
        text.number(value) << ',';
        expected += QByteArray::number(value) + ',';
    }
    QCOMPARE(text.size(), expected.size());
    QCOMPARE(text.take(), expected);
}

LANTERN_TEST_SUITE(TestKeySchema);

} // namespace tst_keyschema

#include "tst_keyschema.moc"
