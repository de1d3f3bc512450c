// Issue 24, point 8: a language or theme switch builds a new window; it opens where the last one
// was — the user looked up, the month, the selected day, the campaign search, order and
// selection, the audit filters, the dead-letter list — against the harness's Redis and SQLite.
#include "audit/auditview.h"
#include "campaigns/campaignsview.h"
#include "checkin/checkinservice.h"
#include "checkinstats/checkinstatsview.h"
#include "shell/consoleoptions.h"
#include "connections/connectionsview.h"
#include "shell/consolesession.h"
#include "envelope/campaignservice.h"
#include "shell/mainwindow.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"
#include "translations.h"
#include "users/usersview.h"

#include <QDateTime>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

namespace tst_windowrebuild {

using namespace lantern;
using lantern::ui::ConsoleOptions;
using lantern::ui::ConsoleSession;
using lantern::ui::MainWindow;

namespace {
constexpr int AnswerTimeoutMs = 20000;
const QDate Today(2025, 3, 20);
constexpr qint64 Uid = 7007;
} // namespace

class TestWindowRebuild final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void switchesKeepWhatIsShown_data();
    void switchesKeepWhatIsShown();
    void backToTheSandboxStartsAFreshOne();

private:
    DbUrl m_db;
    QString m_prefix;
    qint64 m_campaign = 0;
};

void TestWindowRebuild::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    installTranslations(QStringLiteral("en"));
    m_db = test::sqliteUrl();
    test::resetTables(m_db);
    m_prefix = test::uniquePrefix();
    const KeySchema keys(m_prefix);
    RedisClient redis(test::redisUrl());
    SqlConnection sql(m_db);
    CheckinService checkins(redis, keys, CheckinRules{});
    for (int day : {1, 2, 3, 10})
        checkins.checkin(Uid, QDate(2025, 2, day), QDate(2025, 2, day), QDateTime::currentMSecsSinceEpoch());
    CampaignService campaigns(redis, sql, keys);
    CampaignDraft draft;
    draft.totalCents = 1000;
    draft.count = 10;
    for (const QString &name : {QStringLiteral("rebuild one"), QStringLiteral("rebuild two"), QStringLiteral("other")}) {
        draft.name = name;
        const qint64 id = campaigns.create(draft, QDateTime::currentMSecsSinceEpoch()).id;
        if (name == QLatin1String("rebuild one"))
            m_campaign = id;
    }
}

void TestWindowRebuild::switchesKeepWhatIsShown_data()
{
    QTest::addColumn<QString>("signal");
    QTest::addColumn<QString>("value");
    QTest::newRow("theme: dark") << QStringLiteral("theme") << QStringLiteral("dark");
    QTest::newRow("language: Chinese") << QStringLiteral("language") << QStringLiteral("zh_CN");
}

void TestWindowRebuild::switchesKeepWhatIsShown()
{
    QFETCH(QString, signal);
    QFETCH(QString, value);
    ConsoleSession session(ConsoleOptions::parse({QStringLiteral("lantern"), QStringLiteral("--redis"), test::redisUrl().redacted(),
                                                  QStringLiteral("--db"), m_db.redacted(), QStringLiteral("--prefix"), m_prefix,
                                                  QStringLiteral("--today"), Today.toString(Qt::ISODate)}));
    session.start();
    MainWindow *before = session.window();
    QVERIFY(QTest::qWaitForWindowExposed(before));

    // The operator looks up a user, goes back to February, selects the 10th...
    ui::UsersView *users = before->usersView();
    QSignalSpy shown(users, &ui::UsersView::monthShown);
    users->lookUp(QString::number(Uid), QDate(2025, 2, 1));
    QVERIFY(shown.wait(AnswerTimeoutMs));
    users->selectDay(QDate(2025, 2, 10));
    // ... searches the campaigns, sorts them by name and selects one ...
    auto *campaigns = qobject_cast<ui::CampaignsView *>(before->view(QStringLiteral("campaigns")));
    QVERIFY(campaigns);
    QSignalSpy pages(campaigns, &ui::CampaignsView::pageShown);
    campaigns->search(QStringLiteral("rebuild"));
    QTRY_VERIFY_WITH_TIMEOUT(!pages.isEmpty() && campaigns->listModel()->rowCount() == 2, AnswerTimeoutMs);
    campaigns->sortBy(CampaignListModel::Name, Qt::AscendingOrder);
    QTRY_VERIFY_WITH_TIMEOUT(!campaigns->isBusy(), AnswerTimeoutMs);
    campaigns->selectCampaign(m_campaign);
    // ... filters the audit log by an actor, and picks a month of statistics.
    auto *audit = qobject_cast<ui::AuditView *>(before->view(QStringLiteral("audit")));
    QVERIFY(audit);
    AuditFilter filter;
    filter.actor = QStringLiteral("alice");
    audit->setFilter(filter);
    auto *stats = qobject_cast<ui::CheckinStatsView *>(before->view(QStringLiteral("stats")));
    QVERIFY(stats);
    stats->showMonth(QDate(2025, 1, 1));

    if (signal == QLatin1String("theme"))
        Q_EMIT before->themeChosen(value);
    else
        Q_EMIT before->languageChosen(value);
    QTRY_VERIFY_WITH_TIMEOUT(session.window() != before, AnswerTimeoutMs);
    MainWindow *after = session.window();

    ui::UsersView *newUsers = after->usersView();
    QTRY_VERIFY_WITH_TIMEOUT(newUsers->shownUser().has_value() && !newUsers->isBusy(), AnswerTimeoutMs);
    QCOMPARE(newUsers->shownUser()->uid, Uid);
    QCOMPARE(newUsers->shownUser()->month, QDate(2025, 2, 1));
    QCOMPARE(newUsers->selectedDate(), QDate(2025, 2, 10));

    auto *newCampaigns = qobject_cast<ui::CampaignsView *>(after->view(QStringLiteral("campaigns")));
    QCOMPARE(newCampaigns->searchField()->text(), QStringLiteral("rebuild"));
    QCOMPARE(newCampaigns->listQuery().sortColumn, int(CampaignListModel::Name));
    QCOMPARE(newCampaigns->listQuery().order, Qt::AscendingOrder);
    QTRY_VERIFY_WITH_TIMEOUT(newCampaigns->listModel()->rowCount() == 2 && !newCampaigns->isBusy(), AnswerTimeoutMs);
    QCOMPARE(newCampaigns->listModel()->rowAt(0).campaign.name, QStringLiteral("rebuild one"));
    const QModelIndexList selected = newCampaigns->listView()->selectionModel()->selectedRows();
    QCOMPARE(selected.size(), 1);
    QCOMPARE(newCampaigns->listModel()->rowAt(selected.first().row()).campaign.id, m_campaign);

    auto *newAudit = qobject_cast<ui::AuditView *>(after->view(QStringLiteral("audit")));
    QCOMPARE(newAudit->filter().actor, QStringLiteral("alice"));
    auto *newStats = qobject_cast<ui::CheckinStatsView *>(after->view(QStringLiteral("stats")));
    QCOMPARE(newStats->viewState().value(QStringLiteral("month")).toDate(), QDate(2025, 1, 1));

    installTranslations(QStringLiteral("en"));
}

// Issue 24, point 4: from a profile's servers, "Back to the sandbox…" gives a working sandbox
// session (its own Redis and SQLite file), with the Connections view back on the sandbox.
void TestWindowRebuild::backToTheSandboxStartsAFreshOne()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    ConsoleSession session(ConsoleOptions::parse({QStringLiteral("lantern"), QStringLiteral("--redis"), test::redisUrl().redacted(),
                                                  QStringLiteral("--db"), m_db.redacted(), QStringLiteral("--prefix"), m_prefix,
                                                  QStringLiteral("--sandbox-dir"), root.path()}));
    session.start();
    MainWindow *before = session.window();
    QVERIFY(QTest::qWaitForWindowExposed(before));
    auto *connections = qobject_cast<ui::ConnectionsView *>(before->view(QStringLiteral("connections")));
    QVERIFY(connections && connections->sandboxButton()->isVisibleTo(connections));
    Q_EMIT connections->sandboxRequested();
    QTRY_VERIFY_WITH_TIMEOUT(session.window() != before, AnswerTimeoutMs);
    auto *now = qobject_cast<ui::ConnectionsView *>(session.window()->view(QStringLiteral("connections")));
    // Attached once the sandbox is seeded: the session in use is the sandbox's file, in its own folder.
    QTRY_VERIFY_WITH_TIMEOUT(now->findChild<QLabel *>(QStringLiteral("activeConnection"))->text().contains(root.path() + QStringLiteral("/run-")),
                             60000);
    QVERIFY(!now->sandboxButton()->isVisibleTo(now));
    // ... and a profile of that file is refused as the sandbox's own.
    const QFileInfoList folders = QDir(root.path()).entryInfoList({QStringLiteral("run-*")}, QDir::Dirs);
    QCOMPARE(folders.size(), 1);
    Config itsOwn;
    itsOwn.redis = RedisUrl::parse(QStringLiteral("redis://127.0.0.1:1"));
    itsOwn.db = DbUrl::parse(QStringLiteral("sqlite://") + folders.first().absoluteFilePath() + QStringLiteral("/sandbox.db"));
    QVERIFY(now->pointsAtSandbox(itsOwn));
}

LANTERN_WIDGET_TEST_SUITE(TestWindowRebuild);

} // namespace tst_windowrebuild

#include "tst_windowrebuild.moc"
