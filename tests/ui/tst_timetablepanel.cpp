// The Campaigns view's timetable (issue 30) against the harness's Redis and an SQLite file: each
// scheduled transition with its time, countdown (ticking on the servers' clock), prepared ✓ and
// what happened (made and how late, missed and why), the warning when one is due within 10
// minutes and no worker is alive; in English and in Chinese.
#include "console/campaigns/campaignconsoleservice.h"
#include "envelope/campaignschedule.h"
#include "envelope/campaignservice.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"
#include "campaigns/timetablepanel.h"
#include "translations.h"

#include <QAbstractItemModelTester>
#include <QTableView>
#include <QTest>

namespace tst_timetablepanel {

using namespace lantern;
using lantern::ui::TimetablePanel;

namespace {

qint64 createCampaign(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, const QString &name)
{
    CampaignDraft draft;
    draft.name = name;
    draft.totalCents = 1000;
    draft.count = 10;
    return CampaignService(redis, sql, keys).create(draft, 1).id;
}

} // namespace

class TestTimetablePanel final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase() { installTranslations(QStringLiteral("en")); }
    void showsTheTimetable_data();
    void showsTheTimetable();
    void showsTheFourEyes();

private:
    Config m_config;
    qint64 m_coming = 0;
    qint64 m_missed = 0;
    qint64 m_made = 0;
};

void TestTimetablePanel::initTestCase()
{
    m_config.redis = test::redisUrl();
    m_config.db = test::sqliteUrl();
    m_config.keyPrefix = test::uniquePrefix();
    m_config.timeZone = QTimeZone::utc();
    RedisClient redis(m_config.redis);
    SqlConnection sql(m_config.db);
    Migrator(sql).migrate();
    const KeySchema keys(m_config.keyPrefix);
    const qint64 now = redisTimeMs(redis);
    CampaignSchedule schedule(sql);
    // Coming: a launch in 5 minutes (no worker alive: a warning) and its close an hour later.
    m_coming = createCampaign(redis, sql, keys, QStringLiteral("Lantern rain"));
    schedule.apply(m_coming, ScheduleRequest{now + 300'000, now + 3'900'000, std::nullopt, false}, QStringLiteral("planner"), now);
    // Missed an hour ago (its late limit), and made 1.5 s late.
    m_missed = createCampaign(redis, sql, keys, QStringLiteral("Too late"));
    schedule.apply(m_missed, ScheduleRequest{now - 3'600'000, std::nullopt, 60, false}, QStringLiteral("planner"), now - 7'200'000);
    schedule.settle(m_missed, ScheduledAction::Launch, ScheduledTransition::State::Missed, now - 3'000'000, 600'000,
                    QStringLiteral("600.0 s late, over its late limit of 60 s"));
    m_made = createCampaign(redis, sql, keys, QStringLiteral("On time"));
    schedule.apply(m_made, ScheduleRequest{now - 60'000, std::nullopt, std::nullopt, false}, QStringLiteral("planner"), now - 120'000);
    schedule.settle(m_made, ScheduledAction::Launch, ScheduledTransition::State::Done, now - 58'500, 1'500, {});
}

void TestTimetablePanel::showsTheTimetable_data()
{
    QTest::addColumn<QString>("language");
    QTest::newRow("en") << QStringLiteral("en");
    QTest::newRow("zh_CN") << QStringLiteral("zh_CN");
}

void TestTimetablePanel::showsTheTimetable()
{
    QFETCH(QString, language);
    installTranslations(language);
    CampaignConsoleService service(m_config);
    TimetablePanel panel;
    panel.setTimeZone(m_config.timeZone);
    panel.setService(&service);
    QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.refresh();
    QTRY_COMPARE_WITH_TIMEOUT(panel.model()->rowCount(), 4, 10000);
    TimetableModel *model = panel.model();
    const auto text = [model](int row, int column) { return model->data(model->index(row, column)).toString(); };
    const bool zh = language == QLatin1String("zh_CN");
    const auto translated = [zh](const QString &shown, const QString &english) {
        if (!zh)
            return shown == english;
        return shown != english && std::any_of(shown.cbegin(), shown.cend(), [](QChar c) { return c.script() == QChar::Script_Han; });
    };

    // By time: the missed launch, the one made, then the coming launch and close.
    QCOMPARE(text(0, TimetableModel::Campaign), QStringLiteral("#%1 Too late").arg(m_missed));
    QCOMPARE(text(1, TimetableModel::Campaign), QStringLiteral("#%1 On time").arg(m_made));
    QCOMPARE(text(2, TimetableModel::Campaign), QStringLiteral("#%1 Lantern rain").arg(m_coming));
    QCOMPARE(text(3, TimetableModel::Campaign), QStringLiteral("#%1 Lantern rain").arg(m_coming));
    QVERIFY(translated(text(2, TimetableModel::Transition), QStringLiteral("Launch")));
    QVERIFY(translated(text(3, TimetableModel::Transition), QStringLiteral("Close")));
    QVERIFY(translated(model->headerData(TimetableModel::Countdown, Qt::Horizontal).toString(), QStringLiteral("Countdown")));
    QCOMPARE(text(2, TimetableModel::ScheduledBy), QStringLiteral("planner"));
    QCOMPARE(text(2, TimetableModel::Due), model->timeText(model->overview().entries.at(2).transition.dueAtMs));

    // Missed, and why; made, and how late; a launch to come, not prepared yet (no worker ran).
    QVERIFY2(text(0, TimetableModel::State).contains(QStringLiteral("600.0 s late, over its late limit of 60 s")), qPrintable(text(0, TimetableModel::State)));
    QVERIFY(translated(text(0, TimetableModel::State).section(u':', 0, 0).section(u'：', 0, 0), QStringLiteral("Missed")));
    QVERIFY(text(1, TimetableModel::Countdown).contains(QStringLiteral("1.5")));
    QVERIFY(translated(text(1, TimetableModel::State), QStringLiteral("Done")));
    QVERIFY(translated(text(2, TimetableModel::Prepared), QStringLiteral("not yet")));
    QCOMPARE(text(3, TimetableModel::Prepared), QString());  // a close has nothing to prepare
    QVERIFY(translated(text(2, TimetableModel::State), QStringLiteral("Pending")));

    // The countdown: about 5 minutes, ticking on the servers' clock between reads.
    const QString countdown = text(2, TimetableModel::Countdown);
    QVERIFY2(countdown.contains(QStringLiteral("4")) || countdown.contains(QStringLiteral("5")), qPrintable(countdown));
    QVERIFY(model->data(model->index(2, TimetableModel::Countdown), TimetableModel::ValueRole).toLongLong() > 240'000);
    QTRY_VERIFY_WITH_TIMEOUT(text(2, TimetableModel::Countdown) != countdown, 5000);

    // Due within 10 minutes and no worker alive under this prefix: the panel says so.
    QVERIFY(!panel.warningText().isEmpty());
    QVERIFY(panel.warningText().contains(model->timeText(model->overview().entries.at(2).transition.dueAtMs)));
    if (zh)
        QVERIFY(std::any_of(panel.warningText().cbegin(), panel.warningText().cend(), [](QChar c) { return c.script() == QChar::Script_Han; }));
    else
        QVERIFY2(panel.warningText().contains(QStringLiteral("no worker is alive")), qPrintable(panel.warningText()));
    QCOMPARE(panel.table()->model(), static_cast<QAbstractItemModel *>(model));
}

void TestTimetablePanel::showsTheFourEyes()
{
    installTranslations(QStringLiteral("en"));
    // The coming launch is above the four-eyes bound (issue 25): on MariaDB the database stamps
    // it; SQLite keeps the column, set here as the stamp would.
    SqlConnection sql(m_config.db);
    sql.exec(QStringLiteral("UPDATE campaign SET needs_approval = 1 WHERE id = ?"), {m_coming});
    CampaignConsoleService service(m_config);
    TimetablePanel panel;
    panel.setTimeZone(m_config.timeZone);
    panel.setService(&service);
    TimetableModel *model = panel.model();
    const auto approved = [model](int row) { return model->data(model->index(row, TimetableModel::Approved)).toString(); };
    panel.refresh();
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 4, 10000);
    QCOMPARE(approved(2), QStringLiteral("awaiting"));
    QCOMPARE(model->data(model->index(2, TimetableModel::Approved), TimetableModel::ValueRole), QVariant(false));
    QVERIFY(model->data(model->index(2, TimetableModel::Approved), Qt::ToolTipRole).toString().contains(QStringLiteral("four-eyes")));
    QCOMPARE(approved(3), QString());  // a close needs no approval
    QCOMPARE(approved(0), QString());  // a launch below the bound, missed
    QCOMPARE(model->headerData(TimetableModel::Approved, Qt::Horizontal).toString(), QStringLiteral("Approved"));

    sql.exec(QStringLiteral("UPDATE campaign SET approved_by = 'bob' WHERE id = ?"), {m_coming});
    panel.refresh();
    QTRY_COMPARE_WITH_TIMEOUT(approved(2), QStringLiteral("✓ bob"), 10000);
    QCOMPARE(model->data(model->index(2, TimetableModel::Approved), TimetableModel::ValueRole), QVariant(true));
    sql.exec(QStringLiteral("UPDATE campaign SET needs_approval = 0, approved_by = NULL WHERE id = ?"), {m_coming});
}

LANTERN_WIDGET_TEST_SUITE(TestTimetablePanel);

} // namespace tst_timetablepanel

#include "tst_timetablepanel.moc"
