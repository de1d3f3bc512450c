// The HTTP API's check-in and grab answers written straight as text (api/answertext.h) are byte
// for byte what the JSON objects the command line prints turn into, for every shape they take.
#include "api/answertext.h"
#include "api/resultjson.h"
#include "checkin/checkinservice.h"
#include "envelope/grabservice.h"
#include "testsuite.h"

#include <QJsonDocument>
#include <QTest>

#include <limits>

namespace tst_answertext {

using namespace lantern;

class TestAnswerText : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void checkinAnswers_data();
    void checkinAnswers();
    void grabAnswers_data();
    void grabAnswers();
};

void TestAnswerText::checkinAnswers_data()
{
    QTest::addColumn<qint64>("uid");
    QTest::addColumn<QDate>("date");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<bool>("already");
    QTest::addColumn<int>("streak");
    QTest::addColumn<int>("points");
    QTest::newRow("a first check-in") << qint64(1) << QDate(2026, 11, 27) << QStringLiteral("normal") << false << 1 << 10;
    QTest::newRow("already, a 13-digit uid") << qint64(1999999999999) << QDate(2026, 1, 1) << QStringLiteral("normal") << true << 31 << 0;
    QTest::newRow("a make-up, the largest uid") << std::numeric_limits<qint64>::max() << QDate(2000, 2, 29) << QStringLiteral("makeup") << false
                                                << 0 << 50;
    QTest::newRow("a kind JSON escapes (fallback)") << qint64(7) << QDate(2026, 3, 5) << QStringLiteral("a\"b\\c\n\u00e9") << false << 2 << 20;
    QTest::newRow("no date (fallback)") << qint64(7) << QDate() << QStringLiteral("normal") << false << 2 << 20;
    QTest::newRow("negative numbers") << qint64(-5) << QDate(9999, 12, 31) << QStringLiteral("normal") << false << -1 << -30;
}

void TestAnswerText::checkinAnswers()
{
    CheckinOutcome outcome;
    QFETCH(qint64, uid);
    QFETCH(QDate, date);
    QFETCH(QString, kind);
    QFETCH(bool, already);
    QFETCH(int, streak);
    QFETCH(int, points);
    outcome.uid = uid;
    outcome.date = date;
    outcome.kind = kind;
    outcome.already = already;
    outcome.streak = streak;
    outcome.monthCount = streak + 3;
    outcome.points = points;
    QCOMPARE(checkinAnswerText(outcome), QJsonDocument(checkinOutcomeJson(outcome)).toJson(QJsonDocument::Compact));
}

void TestAnswerText::grabAnswers_data()
{
    QTest::addColumn<QString>("status");
    QTest::addColumn<qint64>("seq");
    QTest::addColumn<qint64>("amount");
    QTest::addColumn<int>("replicas");
    QTest::newRow("ok") << QStringLiteral("ok") << qint64(1) << qint64(129) << -1;
    QTest::newRow("already, large figures") << QStringLiteral("already") << qint64(10000000) << std::numeric_limits<qint64>::max() << -1;
    QTest::newRow("sold_out") << QStringLiteral("sold_out") << qint64(0) << qint64(0) << -1;
    QTest::newRow("too_many_attempts") << QStringLiteral("too_many_attempts") << qint64(0) << qint64(0) << -1;
    QTest::newRow("ok with grab-wait") << QStringLiteral("ok") << qint64(3) << qint64(77) << 0;
    QTest::newRow("not_live with grab-wait") << QStringLiteral("not_live") << qint64(0) << qint64(0) << 2;
    QTest::newRow("a status JSON escapes (fallback)") << QStringLiteral("\u4e2d\t\"") << qint64(0) << qint64(0) << -1;
}

void TestAnswerText::grabAnswers()
{
    GrabOutcome outcome;
    QFETCH(QString, status);
    QFETCH(qint64, seq);
    QFETCH(qint64, amount);
    QFETCH(int, replicas);
    outcome.status = status;
    outcome.seq = seq;
    outcome.amountCents = amount;
    outcome.replicas = replicas;
    QCOMPARE(grabAnswerText(outcome), QJsonDocument(grabOutcomeJson(outcome)).toJson(QJsonDocument::Compact));
}

LANTERN_TEST_SUITE(TestAnswerText);

} // namespace tst_answertext

#include "tst_answertext.moc"
