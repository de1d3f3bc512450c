// The Check-in statistics view against the private Redis: a month's check-ins and make-ups per
// day and its cohorts, as the view shows them, compared with the check-ins the test made (and the
// figures a worker keeps, with their time); the
// item model passes QAbstractItemModelTester; the chart follows the light and dark palettes; an unreachable Redis shows its message. No sleeps:
// waits on the view's signals.
#include "checkin/checkinservice.h"
#include "checkin/keptmonthstats.h"
#include "console/checkinstats/monthstatsmodel.h"
#include "checkinstats/checkinstatsview.h"
#include "common/consoletheme.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "testservers.h"
#include "testsuite.h"

#include <QAbstractItemModelTester>
#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>

namespace tst_checkinstatsview {

using namespace lantern;
using lantern::ui::CheckinStatsView;
using lantern::ui::ConsoleTheme;

namespace {
constexpr int AnswerTimeoutMs = 20000;
constexpr qint64 Now = 1795000000000;
const QDate Today(2026, 4, 6);
} // namespace

class TestCheckinStatsView final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void showsTheMonthsFigures();
    void showsWhyItFailed();
};

void TestCheckinStatsView::initTestCase()
{
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
}

void TestCheckinStatsView::showsTheMonthsFigures()
{
    Config config;
    config.redis = test::redisUrl();
    config.keyPrefix = test::uniquePrefix();
    config.shards = 4;
    config.todayOverride = Today;
    const KeySchema keys(config.keyPrefix, config.shards);
    RedisClient redis(config.redis);
    CheckinService service(redis, keys, config.checkin);
    // uid u signs days 1 .. u of April (so day d has 10 - d + 1 users of 1..10), 10 every day;
    // 3 gets the 5th as a make-up.
    for (qint64 uid = 1; uid <= 10; ++uid) {
        for (int day = 1; day <= std::min<int>(int(uid), Today.day()); ++day)
            service.checkin(uid, QDate(2026, 4, day), Today, Now);
    }
    service.makeup({3, QDate(2026, 4, 5), QStringLiteral("carol"), QStringLiteral("outage")}, Today, Now);

    CheckinStatsView view;
    QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy shown(&view, &CheckinStatsView::monthShown);
    view.attachBackend(config);
    QVERIFY(shown.wait(AnswerTimeoutMs));
    const MonthStatsModel *model = view.model();
    QCOMPARE(model->rowCount(), Today.day());
    for (int row = 0; row < model->rowCount(); ++row) {
        const int day = row + 1;
        const qint64 expected = 10 - day + 1 + (day == 5 ? 1 : 0);
        QCOMPARE(model->index(row, MonthStatsModel::Date).data(Qt::UserRole).toDate(), QDate(2026, 4, day));
        QCOMPARE(model->index(row, MonthStatsModel::CheckedIn).data(Qt::UserRole).toLongLong(), expected);
        QCOMPARE(model->index(row, MonthStatsModel::Makeups).data(Qt::UserRole).toLongLong(), day == 5 ? 1 : 0);
    }
    QCOMPARE(view.activeLabel()->text(), QStringLiteral("Active this month: 10"));
    QCOMPARE(view.everyDayLabel()->text(), QStringLiteral("Every day so far: 5"));  // 6..10 signed 1..6

    QCOMPARE(view.chartView()->chart()->title(), QStringLiteral("Check-ins and make-ups per day, April 2026"));

    // Another month, in the dark theme: March, nobody signed; the chart in the dark palette.
    ConsoleTheme::apply(ConsoleTheme::Theme::Dark);
    view.showMonth(QDate(2026, 3, 1));
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QCOMPARE(model->rowCount(), 31);
    QCOMPARE(view.activeLabel()->text(), QStringLiteral("Active this month: 0"));
    const QChart *chart = view.chartView()->chart();
    QVERIFY2(chart->backgroundBrush().color().lightness() < 100, qPrintable(chart->backgroundBrush().color().name()));
    QVERIFY(chart->titleBrush().color().lightness() > 150);
    ConsoleTheme::apply(ConsoleTheme::Theme::Light);
    view.showMonth(QDate(2026, 4, 1));
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QVERIFY(view.chartView()->chart()->backgroundBrush().color().lightness() > 200);
    QVERIFY(view.asOfLabel()->isHidden());  // read from the blocks: nothing to say

    // A worker keeps the month (issue 26): the view shows those figures and when they were read,
    // even after one more user checked in.
    KeptMonthStats::keep(redis, keys, Today, Now);
    service.checkin(11, Today, Today, Now);
    view.showMonth(QDate(2026, 4, 1));
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QCOMPARE(view.activeLabel()->text(), QStringLiteral("Active this month: 10"));
    QVERIFY(!view.asOfLabel()->isHidden());
    QCOMPARE(view.asOfLabel()->text(), QStringLiteral("As of ") + QLocale().toString(QDateTime::fromMSecsSinceEpoch(Now).time(), QLocale::ShortFormat));
}

void TestCheckinStatsView::showsWhyItFailed()
{
    Config config;
    config.redis = RedisUrl::parse(QStringLiteral("redis://127.0.0.1:1"));
    config.keyPrefix = test::uniquePrefix();
    config.todayOverride = Today;
    CheckinStatsView view;
    QSignalSpy failed(&view, &CheckinStatsView::failed);
    view.attachBackend(config);
    QVERIFY(failed.wait(AnswerTimeoutMs));
    QVERIFY(!failed.first().at(0).toString().isEmpty());
    QCOMPARE(view.model()->rowCount(), 0);
}

LANTERN_WIDGET_TEST_SUITE(TestCheckinStatsView);

} // namespace tst_checkinstatsview

#include "tst_checkinstatsview.moc"
