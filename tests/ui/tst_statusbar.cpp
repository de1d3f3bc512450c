// The window's status bar has one source of truth for its servers (issue 14, point 4): every
// view's fresh read marks them up at once, news older than the newest is ignored, a failed
// request has the servers probed at once, and nothing (a raw error, a second latency readout)
// replaces the badges. A private redis-server of its own is stopped and started again. And
// one operator per session (point 6): set in the window, seen by every view and dialog, and an
// unset one ($USER empty) disables no button.
#include "campaigns/campaigncreatedialog.h"
#include "campaigns/campaignsview.h"
#include "console/common/serverstatus.h"
#include "shell/mainwindow.h"
#include "shell/operatordialog.h"
#include "shell/operatoridentity.h"
#include "privateredis.h"
#include "queues/queuesview.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testsuite.h"

#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>

namespace tst_statusbar {

using namespace lantern;
using lantern::ui::CampaignCreateDialog;
using lantern::ui::CampaignsView;
using lantern::ui::ConsoleView;
using lantern::ui::MainWindow;
using lantern::ui::OperatorDialog;
using lantern::ui::QueuesView;

namespace {

constexpr int AnswerTimeoutMs = 20000;

QDateTime at(int second)
{
    return QDateTime(QDate(2026, 11, 23), QTime(12, 0, second));
}

/** Status-bar labels whose text reads as a round trip ("… ms"). */
int latencyReadouts(const MainWindow &window)
{
    int count = 0;
    for (const QLabel *label : window.statusBar()->findChildren<QLabel *>()) {
        if (label->isVisible() && label->text().contains(QLatin1String(" ms")))
            ++count;
    }
    return count;
}

} // namespace

class TestStatusBar final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void serverStatusKeepsTheNewestNews_data();
    void serverStatusKeepsTheNewestNews();
    void statusBarFollowsAnOutageAndTheRecovery();
    void oneOperatorForEveryView();
    void backgroundSamplingOnlyAfterAViewWasShown();

private:
    QTemporaryDir m_dir;
    std::unique_ptr<test::PrivateRedis> m_redis;
    Config m_config;
};

void TestStatusBar::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);  // the operator's name is remembered in the settings
    QSettings().remove(QStringLiteral("console/operator"));  // no suggestion from an earlier run
    QVERIFY(m_dir.isValid());
    m_redis = std::make_unique<test::PrivateRedis>();
    m_config = Config::resolve({{QStringLiteral("redis"), m_redis->urlText()},
                                {QStringLiteral("db"), QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("console.db"))}});
    SqlConnection sql(m_config.db);
    Migrator(sql).migrate();
}

void TestStatusBar::serverStatusKeepsTheNewestNews_data()
{
    // Steps: "answer S" (a view read both servers, asked at second S), "probe S R Q" (a probe
    // sent at S measured Redis R ms and SQL Q ms; negative: down).
    QTest::addColumn<QStringList>("steps");
    QTest::addColumn<bool>("redisUp");
    QTest::addColumn<double>("redisMs");
    QTest::addColumn<bool>("sqlUp");
    QTest::addColumn<int>("lastRefresh");
    QTest::newRow("probe down, then a fresher read: up at once, no waiting for the next probe")
            << QStringList{QStringLiteral("probe 1 -1 2"), QStringLiteral("answer 3")} << true << -1.0 << true << 3;
    QTest::newRow("a read, then a probe sent before it fails late: stays up")
            << QStringList{QStringLiteral("answer 5"), QStringLiteral("probe 4 -1 -1")} << true << -1.0 << true << 5;
    QTest::newRow("a read, then a probe sent after it fails: down")
            << QStringList{QStringLiteral("answer 5"), QStringLiteral("probe 6 -1 1.5")} << false << -1.0 << true << 5;
    QTest::newRow("a stale probe that answered still gives its round trip")
            << QStringList{QStringLiteral("answer 5"), QStringLiteral("probe 4 0.5 0.7")} << true << 0.5 << true << 5;
    QTest::newRow("an older read does not move the last refresh back")
            << QStringList{QStringLiteral("answer 9"), QStringLiteral("answer 7")} << true << -1.0 << true << 9;
}

void TestStatusBar::serverStatusKeepsTheNewestNews()
{
    QFETCH(QStringList, steps);
    QFETCH(bool, redisUp);
    QFETCH(double, redisMs);
    QFETCH(bool, sqlUp);
    QFETCH(int, lastRefresh);
    ServerStatus status;
    QSignalSpy changed(&status, &ServerStatus::changed);
    for (const QString &step : steps) {
        const QStringList words = step.split(QLatin1Char(' '));
        if (words.first() == QLatin1String("answer"))
            status.recordAnswer(ServerStatus::both(), at(words.at(1).toInt()));
        else
            status.recordProbe(at(words.at(1).toInt()), words.at(2).toDouble(), words.at(3).toDouble(), {});
    }
    QVERIFY(!changed.isEmpty());
    QCOMPARE(status.redis().up, redisUp);
    QCOMPARE(status.redis().ms, redisMs);
    QCOMPARE(status.sql().up, sqlUp);
    QCOMPARE(status.lastRefresh(), at(lastRefresh));
    if (!redisUp)
        QVERIFY(!status.redis().problem.isEmpty());
}

void TestStatusBar::statusBarFollowsAnOutageAndTheRecovery()
{
    MainWindow window(m_config.checkin);
    window.resize(1400, 800);
    window.show();
    QVERIFY(window.showView(QStringLiteral("queues")));
    auto *queues = qobject_cast<QueuesView *>(window.view(QStringLiteral("queues")));
    QVERIFY(queues);
    QSignalSpy loaded(queues, &QueuesView::loaded);
    QSignalSpy failed(queues, &ConsoleView::failed);
    window.setConnection(m_config, false);
    window.attachBackend(m_config);
    QLabel *servers = window.serversLabel();

    // Up: one round-trip readout, and when the data was read.
    QTRY_VERIFY_WITH_TIMEOUT(servers->text().contains(QLatin1String("SQL")) && !servers->text().contains(QStringLiteral("…"))
                                     && servers->text().count(QLatin1String(" ms")) == 2,
                             AnswerTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), AnswerTimeoutMs);
    QVERIFY2(window.refreshedLabel()->text().startsWith(QLatin1String("Last refresh ")), qPrintable(window.refreshedLabel()->text()));
    QCOMPARE(latencyReadouts(window), 1);

    // Redis goes away: the view's failed refresh has the servers probed at once (the periodic
    // probe is 15 s away), and the bar says so without a raw message over its badges.
    m_redis->stop();
    queues->refresh();
    QVERIFY(failed.wait(AnswerTimeoutMs));
    QTRY_VERIFY_WITH_TIMEOUT(servers->text().contains(QLatin1String("Redis down")), AnswerTimeoutMs);
    QVERIFY(!window.serverStatus()->redis().up);
    QVERIFY(window.serverStatus()->sql().up);
    QVERIFY(window.statusBar()->currentMessage().isEmpty());
    QVERIFY(window.refreshedLabel()->isVisible());

    // Redis is back: the first fresh read turns the bar at once.
    m_redis->start();
    loaded.clear();
    queues->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), AnswerTimeoutMs);
    QVERIFY2(!servers->text().contains(QLatin1String("down")), qPrintable(servers->text()));
    QVERIFY(window.serverStatus()->redis().up);
    QVERIFY(servers->styleSheet().isEmpty());  // no longer red
    QVERIFY(window.statusBar()->currentMessage().isEmpty());

    // The sandbox worker's trouble and its recovery: the reason in a tooltip, never over the bar.
    window.setWorkerStatus(QStringLiteral("Worker: retrying"), true, QStringLiteral("failed while reading a reply: timed out"));
    QCOMPARE(window.workerLabel()->toolTip(), QStringLiteral("failed while reading a reply: timed out"));
    QVERIFY(window.statusBar()->currentMessage().isEmpty());
    window.setWorkerStatus(QStringLiteral("Worker: running again"), false);
    QCOMPARE(window.workerLabel()->text(), QStringLiteral("Worker: running again"));
    QVERIFY(window.workerLabel()->styleSheet().isEmpty());
}

void TestStatusBar::oneOperatorForEveryView()
{
    qunsetenv("USER");
    MainWindow window(m_config.checkin);
    window.resize(1400, 800);
    window.show();
    auto *campaigns = qobject_cast<CampaignsView *>(window.view(QStringLiteral("campaigns")));
    QVERIFY(campaigns);
    QSignalSpy shown(campaigns, &CampaignsView::pageShown);
    window.setConnection(m_config, false);
    window.attachBackend(m_config);
    QVERIFY(shown.wait(AnswerTimeoutMs));

    // Nobody set yet: said in the window, and no button is disabled for it.
    QVERIFY(!window.operatorIdentity()->isSet());
    QVERIFY(window.operatorButton()->text().contains(QLatin1String("not set")));
    auto *create = campaigns->findChild<QPushButton *>(QStringLiteral("newCampaignButton"));
    QVERIFY(create->isEnabled());
    QVERIFY(create->statusTip().contains(QLatin1String("asked for your name")));
    // Hovering it never hides the operator and servers behind the tip (issue 24, point 10).
    QStatusTipEvent tip(create->statusTip());
    QCoreApplication::sendEvent(create, &tip);
    QVERIFY(window.statusBar()->currentMessage().isEmpty());
    QVERIFY(window.operatorButton()->isVisible());

    // The first change asks for the name (a modal dialog, answered as soon as it is up), then
    // goes on: the create dialog opens, showing it.
    bool asked = false;
    QTimer::singleShot(0, &window, [&asked] {
        auto *dialog = qobject_cast<OperatorDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        asked = true;
        QVERIFY(!dialog->okButton()->isEnabled());  // $USER is empty: nothing proposed
        dialog->nameField()->setText(QStringLiteral("erin"));
        QTest::mouseClick(dialog->okButton(), Qt::LeftButton);
    });
    CampaignCreateDialog *createDialog = campaigns->openCreateDialog();
    QVERIFY(asked);
    QVERIFY(createDialog);
    QCOMPARE(window.operatorIdentity()->name(), QStringLiteral("erin"));
    QCOMPARE(createDialog->operatorName(), QStringLiteral("erin"));
    createDialog->reject();

    // Set once in the window, seen by every view.
    QVERIFY(!window.operatorIdentity()->setName(QStringLiteral("   ")));
    QVERIFY(window.operatorIdentity()->setName(QStringLiteral("  carol ")));
    QCOMPARE(window.operatorButton()->text(), QStringLiteral("Operator: carol"));
    for (ConsoleView *view : window.views())
        QCOMPARE(view->operatorIdentity()->name(), QStringLiteral("carol"));
    QCOMPARE(campaigns->operatorName(), QStringLiteral("carol"));
    QVERIFY(create->statusTip().contains(QLatin1String("carol")));
}

// Issue 14, point 8: a hidden view keeps sampling so its chart has no hole, but only once the
// operator opened it — a view never shown reads nothing in the background.
void TestStatusBar::backgroundSamplingOnlyAfterAViewWasShown()
{
    MainWindow window(m_config.checkin);
    window.resize(1400, 800);
    QVERIFY(window.showView(QStringLiteral("users")));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *queues = qobject_cast<QueuesView *>(window.view(QStringLiteral("queues")));
    auto *campaigns = qobject_cast<CampaignsView *>(window.view(QStringLiteral("campaigns")));
    QVERIFY(queues && campaigns);
    QVERIFY(!queues->isSamplingInBackground());
    QVERIFY(!campaigns->isSamplingInBackground());

    QVERIFY(window.showView(QStringLiteral("queues")));
    QVERIFY(!queues->isSamplingInBackground());  // on screen: the window refreshes it
    QVERIFY(window.showView(QStringLiteral("users")));
    QVERIFY(queues->isSamplingInBackground());   // shown once, now hidden: it samples
    QVERIFY(!campaigns->isSamplingInBackground());
    QVERIFY(window.showView(QStringLiteral("queues")));
    QVERIFY(!queues->isSamplingInBackground());
}

LANTERN_WIDGET_TEST_SUITE(TestStatusBar);

} // namespace tst_statusbar

#include "tst_statusbar.moc"
