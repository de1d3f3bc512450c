// The console's own alerts (issue 27): the monitor raises each condition once when it becomes
// true and not again until it has cleared (dead letters, a worker that stopped beating, the
// ledger unbalanced, a backlog growing for the whole window), each can be turned off, thresholds
// are kept per profile; and in the window, against the harness's Redis and SQL, the bar above
// the views lists them from the Queues view's own reads, a click opens the view that shows each,
// and a later read of the same state raises nothing new.
#include "alerts/alertcenter.h"
#include "console/alerts/consolealerts.h"
#include "envelope/campaignservice.h"
#include "shell/mainwindow.h"
#include "operations/ledgerbalancecheck.h"
#include "queues/queuesview.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace tst_consolealerts {

using namespace lantern;
using lantern::ui::AlertCenter;
using lantern::ui::MainWindow;
using lantern::ui::QueuesView;

namespace {

constexpr int AnswerTimeoutMs = 20000;

/** A snapshot read at `atS` seconds with `depth` entries waiting, `deadLetters` set aside, the
    workers (id -> alive) and the ledger's verdicts (campaign -> balanced). */
QueueSnapshot snapshot(qint64 atS, qint64 depth = 0, qint64 deadLetters = 0, const QList<std::pair<QString, bool>> &workers = {},
                       const QList<std::pair<qint64, bool>> &ledger = {})
{
    QueueSnapshot s;
    s.readAtMs = 1'700'000'000'000 + atS * 1000;
    s.overview.queues << QueueStatus{QStringLiteral("checkin"), std::nullopt, depth, 0, deadLetters};
    s.overview.deadLetter = deadLetters;
    for (const auto &[id, alive] : workers) {
        WorkerStatus worker;
        worker.id = id;
        worker.alive = alive;
        s.overview.workers << worker;
    }
    if (!ledger.isEmpty()) {
        LedgerCheckResult result;
        for (const auto &[campaign, balanced] : ledger)
            result.campaigns << LedgerBalance{campaign, balanced};
        s.ledger = result;
    }
    return s;
}

} // namespace

class TestConsoleAlerts : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void raisedOnceUntilCleared_data();
    void raisedOnceUntilCleared();
    void backlogMustGrowTheWholeWindow();
    void thresholdsPerProfile();
    void windowBarOpensTheView();
};

void TestConsoleAlerts::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);  // the thresholds are kept in the settings
    QSettings().clear();
}

void TestConsoleAlerts::raisedOnceUntilCleared_data()
{
    QTest::addColumn<QList<QueueSnapshot>>("reads");
    QTest::addColumn<bool>("enabled");
    QTest::addColumn<QList<int>>("raisedAfter");   // alerts raised so far, after each read
    QTest::addColumn<QList<int>>("clearedAfter");
    QTest::addColumn<QString>("view");
    const QList<QueueSnapshot> deadLetters{snapshot(0), snapshot(5, 0, 2), snapshot(10, 0, 3), snapshot(15), snapshot(20, 0, 1)};
    QTest::newRow("dead letters appear, grow (no repeat), clear, appear again") << deadLetters << true << QList<int>{0, 1, 1, 1, 2}
                                                                                 << QList<int>{0, 0, 0, 1, 1} << QStringLiteral("queues");
    QTest::newRow("dead letters turned off for the profile") << deadLetters << false << QList<int>{0, 0, 0, 0, 0} << QList<int>{0, 0, 0, 0, 0}
                                                             << QStringLiteral("queues");
    const QString a = QStringLiteral("w-a");
    const QString b = QStringLiteral("w-b");
    QTest::newRow("a worker dies, a second one too (no repeat), recovery forgets both")
            << QList<QueueSnapshot>{snapshot(0, 0, 0, {{a, true}, {b, true}}), snapshot(5, 0, 0, {{a, false}, {b, true}}),
                                    snapshot(10, 0, 0, {{a, false}, {b, false}}), snapshot(15)}
            << true << QList<int>{0, 1, 1, 1} << QList<int>{0, 0, 0, 1} << QStringLiteral("recovery");
    QTest::newRow("the ledger unbalanced, then repaired")
            << QList<QueueSnapshot>{snapshot(0, 0, 0, {}, {{7, true}}), snapshot(5, 0, 0, {}, {{7, false}, {8, true}}),
                                    snapshot(10, 0, 0, {}, {{7, false}}), snapshot(15, 0, 0, {}, {{7, true}})}
            << true << QList<int>{0, 1, 1, 1} << QList<int>{0, 0, 0, 1} << QStringLiteral("campaigns");
}

void TestConsoleAlerts::raisedOnceUntilCleared()
{
    QFETCH(QList<QueueSnapshot>, reads);
    QFETCH(bool, enabled);
    QFETCH(QList<int>, raisedAfter);
    QFETCH(QList<int>, clearedAfter);
    QFETCH(QString, view);
    ConsoleAlertMonitor monitor;
    AlertThresholds thresholds;
    thresholds.deadLetters = enabled;
    monitor.setThresholds(thresholds);
    QSignalSpy raised(&monitor, &ConsoleAlertMonitor::raised);
    QSignalSpy cleared(&monitor, &ConsoleAlertMonitor::cleared);
    for (qsizetype i = 0; i < reads.size(); ++i) {
        monitor.observe(reads[i]);
        QCOMPARE(raised.size(), raisedAfter[i]);
        QCOMPARE(cleared.size(), clearedAfter[i]);
    }
    if (!raised.isEmpty()) {
        const auto alert = raised.first().first().value<ConsoleAlert>();
        QCOMPARE(alert.view, view);
        QVERIFY(!alert.text.isEmpty());
    }
}

void TestConsoleAlerts::backlogMustGrowTheWholeWindow()
{
    ConsoleAlertMonitor monitor;
    AlertThresholds thresholds;
    thresholds.backlogDepth = 100;
    thresholds.backlogMinutes = 2;
    monitor.setThresholds(thresholds);
    QSignalSpy raised(&monitor, &ConsoleAlertMonitor::raised);
    QSignalSpy cleared(&monitor, &ConsoleAlertMonitor::cleared);
    // Above 100 and growing, read every 30 s: not for 2 minutes yet at 90 s, an alert at 120 s.
    for (int s = 0; s <= 90; s += 30)
        monitor.observe(snapshot(s, 150 + s));
    QCOMPARE(raised.size(), 0);
    monitor.observe(snapshot(120, 300));
    QCOMPARE(raised.size(), 1);
    QVERIFY(raised.first().first().value<ConsoleAlert>().text.contains(QLatin1String("300")));
    monitor.observe(snapshot(150, 400));  // still growing: nothing new
    QCOMPARE(raised.size(), 1);
    monitor.observe(snapshot(180, 90));  // under the threshold: cleared
    QCOMPARE(cleared.size(), 1);
    // Deep but draining for the whole window: no alert.
    for (int s = 210; s <= 450; s += 30)
        monitor.observe(snapshot(s, 5000 - s));
    QCOMPARE(raised.size(), 1);
    // The history stays bounded however often it is read.
    for (int i = 0; i < 3 * ConsoleAlertMonitor::MaxSamples; ++i)
        monitor.observe(snapshot(500, 10));
    QCOMPARE(raised.size(), 1);
}

void TestConsoleAlerts::thresholdsPerProfile()
{
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("console.ini")), QSettings::IniFormat);
    AlertThresholds production;
    production.backlogDepth = 50000;
    production.backlogMinutes = 15;
    production.workerDied = false;
    production.save(settings, QStringLiteral("production"));
    AlertThresholds staging;
    staging.deadLetters = false;
    staging.backlogMinutes = 0;
    staging.save(settings, QStringLiteral("staging"));
    QCOMPARE(AlertThresholds::load(settings, QStringLiteral("production")), production);
    QCOMPARE(AlertThresholds::load(settings, QStringLiteral("staging")), staging);
    QCOMPARE(AlertThresholds::load(settings, QStringLiteral("other")), AlertThresholds());
    QCOMPARE(AlertThresholds::load(settings, QString()), AlertThresholds());  // the command line's servers: the defaults
}

void TestConsoleAlerts::windowBarOpensTheView()
{
    Config config;
    config.redis = test::redisUrl();
    config.db = test::sqliteUrl();
    config.keyPrefix = test::uniquePrefix();
    config.profile = QStringLiteral("alerts-test");
    test::resetTables(config.db);
    const KeySchema keys(config.keyPrefix, config.shards);
    RedisClient redis(config.redis);
    SqlConnection sql(config.db);
    // Two dead letters; a known worker without a heartbeat; a campaign whose Redis state is gone
    // as the workers' ledger check found it.
    redis.command({"LPUSH", keys.checkinDeadLetter(0), "{broken", "{broken too"});
    redis.command({"SADD", keys.workerSet(), "w-gone"});
    CampaignDraft draft;
    draft.name = QStringLiteral("alerts");
    draft.totalCents = 1000;
    draft.count = 10;
    CampaignService campaigns(redis, sql, keys);
    const qint64 campaign = campaigns.create(draft, QDateTime::currentMSecsSinceEpoch()).id;
    campaigns.launch(campaign);
    redis.command({"DEL", keys.campaignMeta(campaign)});
    LedgerBalanceCheck::run(redis, sql, keys, QDateTime::currentMSecsSinceEpoch());

    AlertThresholds thresholds;
    thresholds.workerDied = true;
    QSettings settings;
    thresholds.save(settings, config.profile);
    MainWindow window(config.checkin);
    window.setConnection(config, false);
    window.resize(MainWindow::DefaultSize);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.alerts()->profile(), config.profile);
    QSignalSpy raised(window.alerts()->monitor(), &ConsoleAlertMonitor::raised);
    window.attachBackend(config);  // the Queues view reads (and samples while hidden)
    QTRY_COMPARE_WITH_TIMEOUT(raised.size(), 3, AnswerTimeoutMs);
    QLabel *bar = window.alerts()->bar()->label();
    QVERIFY(window.alerts()->bar()->isVisible());
    for (const char *words : {"set aside: they need a person", "stopped beating: w-gone", "does not balance for"})
        QVERIFY2(bar->text().contains(QLatin1String(words)), qPrintable(bar->text()));
    QVERIFY(bar->text().contains(QLatin1String("href=\"view:campaigns\"")));
    // Offscreen there is no system tray: the bar is all there is, and nothing else was sent.
    QVERIFY(!window.alerts()->desktopNotifications());
    QVERIFY(window.alerts()->notified().isEmpty());

    // A click opens the view that shows it.
    Q_EMIT bar->linkActivated(QStringLiteral("view:campaigns"));
    QCOMPARE(window.currentView()->viewName(), QStringLiteral("campaigns"));
    Q_EMIT bar->linkActivated(QStringLiteral("view:queues"));
    QCOMPARE(window.currentView()->viewName(), QStringLiteral("queues"));

    // Another read of the same state raises nothing; the dead letters retried (gone): cleared.
    auto *queues = qobject_cast<QueuesView *>(window.view(QStringLiteral("queues")));
    QVERIFY(queues);
    QSignalSpy loaded(queues, &QueuesView::loaded);
    queues->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), AnswerTimeoutMs);
    QCOMPARE(raised.size(), 3);
    QSignalSpy cleared(window.alerts()->monitor(), &ConsoleAlertMonitor::cleared);
    redis.command({"DEL", keys.checkinDeadLetter(0)});
    QTRY_VERIFY_WITH_TIMEOUT((queues->refresh(), cleared.size() == 1), AnswerTimeoutMs);
    QCOMPARE(cleared.first().first().value<ConsoleAlert::Kind>(), ConsoleAlert::Kind::DeadLetters);
    QVERIFY(!bar->text().contains(QLatin1String("set aside")));
    QCOMPARE(raised.size(), 3);
}

LANTERN_WIDGET_TEST_SUITE(TestConsoleAlerts);

} // namespace tst_consolealerts

#include "tst_consolealerts.moc"
