// The console on the harness's real Redis Cluster (issue 10, point 3): the window started as
// `lantern --redis <seed list> --db ...` would be, and every view that reads the servers reads
// them without a failure: Campaigns (a campaign of sub-pools on every master), Queues, Recovery,
// Audit log and Check-in statistics (check-ins on every shard, so every master).
#include "checkin/checkinservice.h"
#include "consoleoptions.h"
#include "consolesession.h"
#include "consoleview.h"
#include "envelope/campaignservice.h"
#include "envelope/grabservice.h"
#include "mainwindow.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QDateTime>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

namespace tst_consolecluster {

using namespace lantern;
using lantern::ui::ConsoleOptions;
using lantern::ui::ConsoleSession;
using lantern::ui::ConsoleView;

namespace {
constexpr int AnswerTimeoutMs = 20000;
}

class TestConsoleCluster final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyViewReadsTheCluster();
};

void TestConsoleCluster::everyViewReadsTheCluster()
{
    QStandardPaths::setTestModeEnabled(true);
    const QString seeds = qEnvironmentVariable("LANTERN_TEST_REDIS_CLUSTER");
    QVERIFY2(!seeds.isEmpty(), "LANTERN_TEST_REDIS_CLUSTER is not set: run the tests through scripts/test");
    const DbUrl db = test::sqliteUrl();
    test::resetTables(db);
    const QString prefix = test::uniquePrefix();

    // Data on every master: check-ins of users on all 16 shards, a campaign of three sub-pools.
    {
        const KeySchema keys(prefix);
        RedisClient redis(RedisUrl::parse(seeds));
        SqlConnection sql(db);
        CheckinService checkins(redis, keys, CheckinRules{});
        const QDate today = QDate::currentDate();
        for (qint64 uid = 1; uid <= 32; ++uid)
            checkins.checkin(uid, today, today, QDateTime::currentMSecsSinceEpoch());
        CampaignService campaigns(redis, sql, keys);
        CampaignDraft draft;
        draft.name = QStringLiteral("cluster console");
        draft.totalCents = 3000;
        draft.count = 30;
        draft.pools = 3;
        const qint64 id = campaigns.launch(campaigns.create(draft, QDateTime::currentMSecsSinceEpoch()).id).id;
        GrabService grabs(redis, keys);
        for (qint64 uid = 1; uid <= 10; ++uid)
            grabs.grab(id, uid, QDateTime::currentMSecsSinceEpoch());
    }

    const ConsoleOptions options = ConsoleOptions::parse(
            {QStringLiteral("lantern"), QStringLiteral("--redis"), seeds, QStringLiteral("--db"), db.redacted(), QStringLiteral("--prefix"), prefix});
    QVERIFY(!options.sandbox);
    ConsoleSession session(options);
    session.start();
    ui::MainWindow *window = session.window();
    QVERIFY(QTest::qWaitForWindowExposed(window));
    for (const QString &name : {QStringLiteral("campaigns"), QStringLiteral("queues"), QStringLiteral("recovery"), QStringLiteral("audit"),
                                QStringLiteral("stats")}) {
        ConsoleView *view = window->view(name);
        QVERIFY2(view, qPrintable(name));
        QVERIFY(window->showView(name));
        QSignalSpy read(view, &ConsoleView::dataRead);
        QSignalSpy failed(view, &ConsoleView::failed);
        view->refresh();
        QTRY_VERIFY2_WITH_TIMEOUT(!read.isEmpty() || !failed.isEmpty(), qPrintable(name), AnswerTimeoutMs);
        const QString why = failed.isEmpty() ? QString() : failed.first().first().toString();
        QVERIFY2(failed.isEmpty(), qPrintable(name + QStringLiteral(": ") + why));
    }
}

LANTERN_WIDGET_TEST_SUITE(TestConsoleCluster);

} // namespace tst_consolecluster

#include "tst_consolecluster.moc"
