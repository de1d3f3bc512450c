// The console on the harness's real Redis Cluster (issue 10, point 3): the window started as
// `lantern --redis <seed list> --db ...` would be, and every view that reads the servers reads
// them without a failure: Campaigns (a campaign of sub-pools on every master), Queues, Recovery,
// Audit log and Check-in statistics (check-ins on every shard, so every master); and the
// console's writes go through the cluster too: a make-up granted in the Users view and a campaign
// of sub-pools launched in the Campaigns view, each audited with the session's operator.
#include "checkin/checkinservice.h"
#include "shell/consoleoptions.h"
#include "shell/consolesession.h"
#include "common/consoleview.h"
#include "envelope/campaignservice.h"
#include "envelope/grabservice.h"
#include "campaigns/campaignconfirmation.h"
#include "campaigns/campaignsview.h"
#include "users/makeupdialog.h"
#include "shell/mainwindow.h"
#include "users/usersummarypanel.h"
#include "users/usersview.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
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
    void init();
    void everyViewReadsTheCluster();
    void actionsWriteThroughTheCluster();

private:
    /** The window as `lantern --redis <seed list> --db <sqlite> --prefix <fresh>` opens it. */
    ConsoleOptions options(const QStringList &more = {}) const;

    QString m_seeds;
    DbUrl m_db;
    QString m_prefix;
};

void TestConsoleCluster::init()
{
    QStandardPaths::setTestModeEnabled(true);
    m_seeds = qEnvironmentVariable("LANTERN_TEST_REDIS_CLUSTER");
    QVERIFY2(!m_seeds.isEmpty(), "LANTERN_TEST_REDIS_CLUSTER is not set: run the tests through scripts/test");
    m_db = test::sqliteUrl();
    test::resetTables(m_db);
    m_prefix = test::uniquePrefix();
}

ConsoleOptions TestConsoleCluster::options(const QStringList &more) const
{
    return ConsoleOptions::parse(QStringList{QStringLiteral("lantern"), QStringLiteral("--redis"), m_seeds, QStringLiteral("--db"), m_db.redacted(),
                                             QStringLiteral("--prefix"), m_prefix}
                                 + more);
}

void TestConsoleCluster::everyViewReadsTheCluster()
{
    // Data on every master: check-ins of users on all 16 shards, a campaign of three sub-pools.
    {
        const KeySchema keys(m_prefix);
        RedisClient redis(RedisUrl::parse(m_seeds));
        SqlConnection sql(m_db);
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

    QVERIFY(!options().sandbox);
    ConsoleSession session(options());
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

void TestConsoleCluster::actionsWriteThroughTheCluster()
{
    const KeySchema keys(m_prefix);
    RedisClient redis(RedisUrl::parse(m_seeds));
    SqlConnection sql(m_db);
    const QDate today(2025, 3, 20);
    const qint64 uid = 4242;
    CheckinService checkins(redis, keys, CheckinRules{});
    for (const QDate day : {QDate(2025, 3, 17), QDate(2025, 3, 18), today})
        checkins.checkin(uid, day, today, QDateTime(day, QTime(9, 0)).toMSecsSinceEpoch());
    CampaignService campaigns(redis, sql, keys);
    CampaignDraft draft;
    draft.name = QStringLiteral("launched from the console");
    draft.totalCents = 3000;
    draft.count = 30;
    draft.pools = 3;
    const qint64 id = campaigns.create(draft, QDateTime::currentMSecsSinceEpoch()).id;

    ConsoleSession session(options({QStringLiteral("--today"), today.toString(Qt::ISODate)}));
    session.start();
    ui::MainWindow *window = session.window();
    QVERIFY(QTest::qWaitForWindowExposed(window));

    // A make-up of the 19th, granted in the Users view: the bit is set on the user's master.
    auto *users = qobject_cast<ui::UsersView *>(window->view(QStringLiteral("users")));
    QVERIFY(users);
    QVERIFY(window->showView(QStringLiteral("users")));
    QVERIFY(users->operatorIdentity()->setName(QStringLiteral("oncall")));
    QTest::keyClicks(users->searchField(), QString::number(uid));
    QTest::keyClick(users->searchField(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(!users->isBusy(), AnswerTimeoutMs);
    users->selectDay(QDate(2025, 3, 19));
    QPushButton *makeup = users->summaryPanel()->makeupButton();
    QVERIFY(makeup->isEnabled());
    QTest::mouseClick(makeup, Qt::LeftButton);
    ui::MakeupDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = users->findChild<ui::MakeupDialog *>()) != nullptr && dialog->isVisible());
    QTest::keyClicks(dialog->reasonEdit(), QStringLiteral("outage on the 19th"));
    QTest::mouseClick(dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!users->isBusy(), AnswerTimeoutMs);
    const CalendarMonth month = checkins.calendar(uid, QDate(2025, 3, 1), today);
    QCOMPARE(month.makeupDays, QList<int>{19});
    QCOMPARE(month.streak, 4);
    {
        // (Scoped: an unfinished SQLite statement would keep this connection on its snapshot.)
        QSqlQuery makeupAudit = sql.exec(QStringLiteral("SELECT actor, target FROM audit_log WHERE action = 'checkin.makeup'"));
        QVERIFY(makeupAudit.next());
        QCOMPARE(makeupAudit.value(0).toString(), QStringLiteral("oncall"));
        QCOMPARE(makeupAudit.value(1).toString(), QStringLiteral("uid:%1").arg(uid));
    }

    // The campaign launched in the Campaigns view: dealt into three pools that grabs then drain.
    auto *campaignsView = qobject_cast<ui::CampaignsView *>(window->view(QStringLiteral("campaigns")));
    QVERIFY(campaignsView);
    campaignsView->setConfirmation([](QWidget *, const ui::CampaignConfirmation &) { return true; });
    QSignalSpy shown(campaignsView, &ui::CampaignsView::campaignShown);
    QSignalSpy done(campaignsView, &ui::CampaignsView::actionDone);
    QSignalSpy failed(campaignsView, &ConsoleView::failed);
    QVERIFY(window->showView(QStringLiteral("campaigns")));
    campaignsView->selectCampaign(id);
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() || !failed.isEmpty(), AnswerTimeoutMs);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.isEmpty() ? QString() : failed.first().first().toString()));
    campaignsView->launchSelected();
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty() || !failed.isEmpty(), AnswerTimeoutMs);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.isEmpty() ? QString() : failed.first().first().toString()));
    {
        QSqlQuery status = sql.exec(QStringLiteral("SELECT status, pools FROM campaign WHERE id = ?"), {id});
        QVERIFY(status.next());
        QCOMPARE(status.value(0).toString(), QStringLiteral("live"));
        QCOMPARE(status.value(1).toInt(), 3);
    }
    GrabService grabs(redis, keys);
    qint64 grabbed = 0;
    for (qint64 grabber = 1; grabber <= 31; ++grabber) {
        const auto outcome = grabs.grab(id, grabber, QDateTime::currentMSecsSinceEpoch());
        grabbed += outcome.status == QLatin1String("ok") ? outcome.amountCents : 0;
    }
    QCOMPARE(grabbed, draft.totalCents);  // every envelope of every pool, none twice
    QSqlQuery launchAudit = sql.exec(QStringLiteral("SELECT actor FROM audit_log WHERE action = 'campaign.launch' AND target = ?"),
                                     {QStringLiteral("campaign:%1").arg(id)});
    QVERIFY(launchAudit.next());
    QCOMPARE(launchAudit.value(0).toString(), QStringLiteral("oncall"));
}

LANTERN_WIDGET_TEST_SUITE(TestConsoleCluster);

} // namespace tst_consolecluster

#include "tst_consolecluster.moc"
