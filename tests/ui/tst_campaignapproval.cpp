// Four eyes in the console (issue 25, point 7) on the harness's MariaDB: two manager accounts made
// by the test as the server's administrator, a console session for each (their own connections,
// as a manager signed in with his account has), and the database as the authority: the creator's
// Approve is refused before anything is asked, the second manager's approval is stamped with his
// account and audited once, a launch before it is refused in words, and a right the server took
// away mid-session is named as the console names it. Waits on the views' signals only.
#include "access/accountidentity.h"
#include "access/accountname.h"
#include "access/role.h"
#include "access/sqlaccounts.h"
#include "campaigns/campaignconfirmation.h"
#include "campaigns/campaignsview.h"
#include "campaignsviewrig.h"
#include "console/campaigns/campaignlistmodel.h"
#include "envelope/campaignservice.h"
#include "common/messagebanner.h"
#include "shell/operatoridentity.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QCoreApplication>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QToolButton>

namespace tst_campaignapproval {

using namespace lantern;
using lantern::ui::CampaignConfirmation;
using lantern::ui::CampaignsView;
using lantern::ui::MessageBanner;

namespace {

constexpr int AnswerTimeoutMs = 15000;
constexpr qint64 BoundCents = 100'000;  // ¥1,000.00: above it, four eyes

qint64 number(SqlConnection &sql, const QString &statement, const QVariantList &values)
{
    QSqlQuery query = sql.exec(statement, values);
    return query.next() ? query.value(0).toLongLong() : -1;
}

QString text(SqlConnection &sql, const QString &statement, const QVariantList &values)
{
    QSqlQuery query = sql.exec(statement, values);
    return query.next() ? query.value(0).toString() : QStringLiteral("<no row>");
}

} // namespace

class TestCampaignApproval final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void theCreatorIsNeverOfferedHisOwnApproval();
    void aSecondManagerApprovesInTheConsole();
    void aLaunchBeforeTheApprovalIsRefusedInWords();
    void aRightTakenAwayMidSessionIsNamed();

private:
    QString account(const QString &who) const { return QStringLiteral("%1_%2").arg(who).arg(QCoreApplication::applicationPid()); }
    DbUrl urlAs(const QString &who) const;
    /** A draft created with `who`'s own connection (the database stamps its creator). */
    qint64 createAs(const QString &who, const QString &name, qint64 totalCents);
    /** Shows campaign `id` in `rig`'s view, read afresh. */
    void showCampaign(test::CampaignsViewRig &rig, qint64 id);
    /** Runs `action` on `rig`'s view and waits for its answer: true when it was done. */
    bool act(test::CampaignsViewRig &rig, void (CampaignsView::*action)());
    QPushButton *button(test::CampaignsViewRig &rig, const char *name) { return rig.view->findChild<QPushButton *>(QLatin1String(name)); }
    bool auditedApproval(qint64 id);

    DbUrl m_root;
    std::unique_ptr<SqlConnection> m_admin;
    QHash<QString, QByteArray> m_passwords;
    test::CampaignsViewRig m_creator;  // manager "alice": creates
    test::CampaignsViewRig m_second;   // manager "bob": approves
    QStringList m_asked;
};

DbUrl TestCampaignApproval::urlAs(const QString &who) const
{
    DbUrl url = m_root;
    url.user = account(who);
    url.password = QString::fromUtf8(m_passwords.value(who));
    return url;
}

void TestCampaignApproval::initTestCase()
{
    m_root = test::mysqlUrl();
    m_admin = std::make_unique<SqlConnection>(m_root);
    Migrator(*m_admin).migrate();
    access::SqlAccounts accounts(*m_admin);
    accounts.install(BoundCents);
    for (const QString &who : {QStringLiteral("alice"), QStringLiteral("bob")}) {
        m_passwords.insert(who, access::AccountName::generatedPassword());
        accounts.add(account(who), access::Role::Manager, m_passwords.value(who));
    }
    const QString prefix = test::uniquePrefix();
    for (auto [rig, who] : {std::pair{&m_creator, QStringLiteral("alice")}, std::pair{&m_second, QStringLiteral("bob")}}) {
        rig->start(QTimeZone::systemTimeZone(), urlAs(who), prefix);
        if (QTest::currentTestFailed())
            return;
        // Signed in with his account: the console takes the name and role from the database.
        const access::AccountIdentity identity = access::AccountIdentity::of(*rig->sql);
        QCOMPARE(identity.account, account(who));
        QCOMPARE(identity.role, std::optional(access::Role::Manager));
        rig->view->operatorIdentity()->setAccount(identity);
        rig->view->setConfirmation([this](QWidget *, const CampaignConfirmation &ask) {
            m_asked << ask.title;
            return true;
        });
        rig->show(QSize(1200, 760), AnswerTimeoutMs);
        if (QTest::currentTestFailed())
            return;
    }
}

void TestCampaignApproval::cleanupTestCase()
{
    m_creator.stop();
    m_second.stop();
    if (!m_admin)
        return;
    for (const QString &who : m_passwords.keys())
        m_admin->exec(QStringLiteral("DROP USER IF EXISTS '%1'@'%'").arg(account(who)));
    for (const access::Role role : access::Roles::all())
        m_admin->exec(QStringLiteral("DROP ROLE IF EXISTS `%1`").arg(access::Roles::sqlRole(role, m_root.database)));
}

qint64 TestCampaignApproval::createAs(const QString &who, const QString &name, qint64 totalCents)
{
    SqlConnection sql(urlAs(who));
    RedisClient redis(m_creator.config.redis);
    CampaignDraft draft;
    draft.name = name;
    draft.totalCents = totalCents;
    draft.count = 20;
    const CampaignCreation creation{account(who), QDateTime::currentMSecsSinceEpoch(), {}, {}, 0};
    return CampaignService(redis, sql, *m_creator.keys).create(draft, creation).id;
}

void TestCampaignApproval::showCampaign(test::CampaignsViewRig &rig, qint64 id)
{
    QSignalSpy pages(rig.view.get(), &CampaignsView::pageShown);
    QSignalSpy shown(rig.view.get(), &CampaignsView::campaignShown);
    rig.view->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(!pages.isEmpty(), AnswerTimeoutMs);
    rig.view->selectCampaign(id);
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() && rig.view->detailPanel() && !rig.view->isBusy(), AnswerTimeoutMs);
    QCOMPARE(rig.view->selectedCampaignId(), id);
}

bool TestCampaignApproval::act(test::CampaignsViewRig &rig, void (CampaignsView::*action)())
{
    QSignalSpy done(rig.view.get(), &CampaignsView::actionDone);
    QSignalSpy failed(rig.view.get(), &CampaignsView::failed);
    (rig.view.get()->*action)();
    if (!QTest::qWaitFor([&] { return !done.isEmpty() || !failed.isEmpty(); }, AnswerTimeoutMs))
        return false;
    return QTest::qWaitFor([&] { return !rig.view->isBusy(); }, AnswerTimeoutMs) && !done.isEmpty();
}

bool TestCampaignApproval::auditedApproval(qint64 id)
{
    return number(*m_admin, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = 'campaign.approve' AND target = ?"),
                  {QStringLiteral("campaign:%1").arg(id)})
           > 0;
}

void TestCampaignApproval::theCreatorIsNeverOfferedHisOwnApproval()
{
    const qint64 big = createAs(QStringLiteral("alice"), QStringLiteral("Festival gala"), 200'000);
    showCampaign(m_creator, big);
    QPushButton *approve = button(m_creator, "approveButton");
    QPushButton *launch = button(m_creator, "launchButton");
    QVERIFY(approve->isVisibleTo(m_creator.view.get()));
    QVERIFY(!approve->isEnabled());
    QCOMPARE(approve->toolTip(), QStringLiteral("You created campaign #%1: another manager must approve it.").arg(big));
    QVERIFY(!launch->isEnabled());
    QCOMPARE(launch->toolTip(), QStringLiteral("Campaign #%1 is above the four-eyes bound: a manager other than %2 must approve it before it is launched.")
                                        .arg(big)
                                        .arg(account(QStringLiteral("alice"))));
    // The list names who created it and that it awaits approval; the filter says how many do.
    const int row = m_creator.view->listModel()->rowOf(big);
    QVERIFY(row >= 0);
    QCOMPARE(m_creator.view->listModel()->index(row, CampaignListModel::CreatedBy).data().toString(), account(QStringLiteral("alice")));
    QCOMPARE(m_creator.view->listModel()->index(row, CampaignListModel::Approval).data().toString(), QStringLiteral("awaiting approval"));
    QVERIFY(!m_creator.view->listView()->isColumnHidden(CampaignListModel::Approval));
    auto *fourEyes = m_creator.view->findChild<QToolButton *>(QStringLiteral("fourEyesFilter"));
    QVERIFY(fourEyes->isVisibleTo(m_creator.view.get()));
    QCOMPARE(fourEyes->text(), QStringLiteral("Four eyes: 1 awaiting approval"));

    // Asked anyway (a shortcut, a stale click): nothing is asked, nothing is sent.
    QSignalSpy requests(m_creator.view.get(), &CampaignsView::actionRequested);
    m_asked.clear();
    m_creator.view->approveSelected();
    QVERIFY(m_asked.isEmpty());
    QVERIFY(requests.isEmpty());
    QVERIFY(!auditedApproval(big));

    // Under the bound, nobody approves anything: no Approve, Launch as before.
    const qint64 small = createAs(QStringLiteral("alice"), QStringLiteral("Tea break"), 5'000);
    showCampaign(m_creator, small);
    QVERIFY(!approve->isVisibleTo(m_creator.view.get()));
    QVERIFY(launch->isEnabled());
    QCOMPARE(m_creator.view->listModel()->index(m_creator.view->listModel()->rowOf(small), CampaignListModel::Approval).data().toString(), QString());
}

void TestCampaignApproval::aSecondManagerApprovesInTheConsole()
{
    const qint64 id = createAs(QStringLiteral("alice"), QStringLiteral("New year draw"), 300'000);
    showCampaign(m_second, id);
    QPushButton *approve = button(m_second, "approveButton");
    QVERIFY(approve->isVisibleTo(m_second.view.get()));
    QVERIFY2(approve->isEnabled(), qPrintable(approve->toolTip()));
    QVERIFY(!button(m_second, "launchButton")->isEnabled());

    m_asked.clear();
    QVERIFY2(act(m_second, &CampaignsView::approveSelected), qPrintable(m_second.view->banner()->text()));
    QCOMPARE(m_asked, QStringList{QStringLiteral("Approve campaign #%1?").arg(id)});
    const QString bob = account(QStringLiteral("bob"));
    QCOMPARE(m_second.view->banner()->text(), QStringLiteral("Campaign #%1 is approved by %2: a manager can launch it now.").arg(id).arg(bob));
    // The database stamped the approver from the connection's account, and the row is audited once.
    QCOMPARE(text(*m_admin, QStringLiteral("SELECT approved_by FROM campaign WHERE id = ?"), {id}), bob);
    QCOMPARE(number(*m_admin, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = 'campaign.approve' AND target = ? AND account = ?"),
                    {QStringLiteral("campaign:%1").arg(id), bob}),
             1);
    QTRY_VERIFY_WITH_TIMEOUT(!approve->isVisibleTo(m_second.view.get()) && button(m_second, "launchButton")->isEnabled(), AnswerTimeoutMs);

    // The four-eyes list: the drafts above the bound, with who approved each.
    QSignalSpy pages(m_second.view.get(), &CampaignsView::pageShown);
    m_second.view->showFourEyesOnly(true);
    QTRY_VERIFY_WITH_TIMEOUT(!pages.isEmpty(), AnswerTimeoutMs);
    CampaignListModel *model = m_second.view->listModel();
    QVERIFY(model->rowCount() >= 1);
    for (int row = 0; row < model->rowCount(); ++row)
        QVERIFY(model->rowAt(row).campaign.needsApproval && model->rowAt(row).campaign.status == CampaignStatus::Draft);
    QCOMPARE(model->index(model->rowOf(id), CampaignListModel::Approval).data().toString(), QStringLiteral("approved by %1").arg(bob));
    pages.clear();
    m_second.view->showFourEyesOnly(false);
    QTRY_VERIFY_WITH_TIMEOUT(!pages.isEmpty(), AnswerTimeoutMs);

    // The creator's console sees it approved, and may launch it now.
    showCampaign(m_creator, id);
    QVERIFY(!button(m_creator, "approveButton")->isVisibleTo(m_creator.view.get()));
    QVERIFY(button(m_creator, "launchButton")->isEnabled());
    QVERIFY(act(m_creator, &CampaignsView::launchSelected));
    QCOMPARE(text(*m_admin, QStringLiteral("SELECT status FROM campaign WHERE id = ?"), {id}), QStringLiteral("live"));
}

void TestCampaignApproval::aLaunchBeforeTheApprovalIsRefusedInWords()
{
    const qint64 id = createAs(QStringLiteral("alice"), QStringLiteral("Lantern festival"), 400'000);
    showCampaign(m_second, id);
    QVERIFY(!button(m_second, "launchButton")->isEnabled());
    // Sent anyway: the ledger refuses it before anything is written, and says why.
    QVERIFY(!act(m_second, &CampaignsView::launchSelected));
    QCOMPARE(m_second.view->banner()->kind(), MessageBanner::Kind::Error);
    QCOMPARE(m_second.view->banner()->text(),
             QStringLiteral("Campaign #%1 is above the four-eyes bound: a manager other than its creator must approve it before it is launched.").arg(id));
    QCOMPARE(text(*m_admin, QStringLiteral("SELECT status FROM campaign WHERE id = ?"), {id}), QStringLiteral("draft"));
    QCOMPARE(number(*m_admin, QStringLiteral("SELECT COUNT(*) FROM envelope WHERE campaign_id = ?"), {id}), 0);
    QCOMPARE(m_second.redis->command({"EXISTS", m_second.keys->campaignMeta(QByteArray::number(id))}).toInteger(), 0);
}

void TestCampaignApproval::aRightTakenAwayMidSessionIsNamed()
{
    const qint64 id = createAs(QStringLiteral("alice"), QStringLiteral("Mid-autumn"), 500'000);
    showCampaign(m_second, id);
    QVERIFY(button(m_second, "approveButton")->isEnabled());
    // The administrator takes the managers' writes away while bob's console is open.
    const QString role = access::Roles::sqlRole(access::Role::Manager, m_root.database);
    m_admin->exec(QStringLiteral("REVOKE ALL PRIVILEGES, GRANT OPTION FROM `%1`").arg(role));
    const bool approved = act(m_second, &CampaignsView::approveSelected);
    access::SqlAccounts(*m_admin).install(BoundCents);  // the rights back, for what follows
    QVERIFY(!approved);
    QCOMPARE(m_second.view->banner()->text(),
             QStringLiteral("The account %1 (manager) may not approve campaigns: the servers refused it (its rights may have changed since the "
                            "console read them).")
                     .arg(account(QStringLiteral("bob"))));
    QCOMPARE(text(*m_admin, QStringLiteral("SELECT COALESCE(approved_by, '') FROM campaign WHERE id = ?"), {id}), QString());
    QVERIFY(!auditedApproval(id));
}

LANTERN_WIDGET_TEST_SUITE(TestCampaignApproval);

} // namespace tst_campaignapproval

#include "tst_campaignapproval.moc"
