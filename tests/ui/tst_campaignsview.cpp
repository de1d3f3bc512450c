// The Campaigns view against the real private Redis of scripts/test and a temp SQLite file:
// create through the dialog (inline validation, the split preview), launch, pause (the kill
// switch: grabs answer not_live), resume and close, each confirmed and audited under the
// operator's name; the live view's drain figures and the ledger check going red and green.
// All Redis/SQL work of the view runs on its service threads; the test waits on signals only.
#include "campaigns/campaignconfirmation.h"
#include "campaigns/campaigncreatedialog.h"
#include "campaigns/campaigndetailpanel.h"
#include "campaigns/campaignsview.h"
#include "console/campaigns/campaignconsoleservice.h"
#include "console/campaigns/campaignlistmodel.h"
#include "console/common/campaignmoney.h"
#include "console/campaigns/campaignpreviewer.h"
#include "console/campaigns/campaignsplitpreview.h"
#include "console/common/dedicatedthread.h"
#include "envelope/campaignservice.h"
#include "envelope/envelopedrain.h"
#include "envelope/grabservice.h"
#include "common/messagebanner.h"
#include "shell/operatoridentity.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "campaignsviewrig.h"
#include "formfilling.h"
#include "testservers.h"
#include "testsuite.h"
#include "common/writeaction.h"

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QTimer>

namespace tst_campaignsview {

using namespace lantern;
using lantern::test::typeInto;
using lantern::ui::CampaignConfirmation;
using lantern::ui::CampaignCreateDialog;
using lantern::ui::CampaignsView;
using lantern::ui::MessageBanner;
using lantern::ui::OperatorIdentity;
using Field = CampaignDraftCheck::Field;

namespace {

constexpr int AnswerTimeoutMs = 15000;
const QString Operator = QStringLiteral("ops-tester");

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace

class TestCampaignsView final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void createDialogRejectsBadInputAndPreviews();
    void launchThroughTheViewAfterConfirmation();
    void declinedConfirmationChangesNothing();
    void pauseStopsGrabs();
    void resumeOpensGrabsAgain();
    void liveViewShowsTheDrainAndTheLedgerCheck();
    void closeThroughTheMessageBoxRefundsTheRest();
    void confirmationsSayWhenNothingIsLeft();
    void returnGoesAheadOnlyForTheKillSwitch_data();
    void returnGoesAheadOnlyForTheKillSwitch();
    void readOnlyDisablesEveryChange();
    void anAccountsRoleDisablesWhatItMayNotDo();
    void refreshNeverStacksRequests();
    void missingCampaignIsExplained();
    void searchAndSortRunOnTheServer();
    void actionsNeverApplyToAHiddenSelection();
    void subPoolsAreSummed();

private:
    /** Runs `action` on the view and waits for its answer. */
    void act(void (CampaignsView::*action)(), CampaignAction expected);
    void waitForSnapshot();
    QString redisStatus() const;
    QList<QStringList> auditRows();

    test::CampaignsViewRig m_rig;
    QStringList m_confirmations;
    bool m_confirmAnswer = true;
    qint64 m_campaign = 0;
};

void TestCampaignsView::initTestCase()
{
    m_rig.start();
    if (QTest::currentTestFailed())
        return;
    m_rig.view->setConfirmation([this](QWidget *, const CampaignConfirmation &ask) {
        m_confirmations << ask.title;
        return m_confirmAnswer;
    });
    m_rig.view->setOperatorName(Operator);
    m_rig.show(QSize(1100, 760), AnswerTimeoutMs);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(m_rig.view->listModel()->rowCount(), 0);
}

void TestCampaignsView::cleanupTestCase()
{
    m_rig.stop();
}

void TestCampaignsView::init()
{
    m_confirmations.clear();
    m_confirmAnswer = true;
    QTRY_VERIFY_WITH_TIMEOUT(!m_rig.view->isBusy(), AnswerTimeoutMs);
}

void TestCampaignsView::waitForSnapshot()
{
    QSignalSpy shown(m_rig.view.get(), &CampaignsView::campaignShown);
    m_rig.view->refresh();
    QVERIFY(shown.wait(AnswerTimeoutMs));
}

void TestCampaignsView::act(void (CampaignsView::*action)(), CampaignAction expected)
{
    QSignalSpy done(m_rig.view.get(), &CampaignsView::actionDone);
    QSignalSpy failed(m_rig.view.get(), &CampaignsView::failed);
    QSignalSpy shown(m_rig.view.get(), &CampaignsView::campaignShown);
    (m_rig.view.get()->*action)();
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty() || !failed.isEmpty(), AnswerTimeoutMs);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(0).toString()));
    QCOMPARE(done.first().at(0).value<CampaignAction>(), expected);
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() && !m_rig.view->isBusy(), AnswerTimeoutMs);  // the live view follows
}

QString TestCampaignsView::redisStatus() const
{
    return QString::fromLatin1(m_rig.redis->command({"HGET", m_rig.keys->campaignMeta(m_campaign), "status"}).toBytes());
}

QList<QStringList> TestCampaignsView::auditRows()
{
    QList<QStringList> rows;
    QSqlQuery query = m_rig.sql->exec(QStringLiteral("SELECT actor, action, target, detail FROM audit_log ORDER BY id"));
    while (query.next())
        rows << QStringList{query.value(0).toString(), query.value(1).toString(), query.value(2).toString(), query.value(3).toString()};
    return rows;
}

void TestCampaignsView::createDialogRejectsBadInputAndPreviews()
{
    CampaignCreateDialog *dialog = m_rig.view->openCreateDialog();
    QVERIFY(dialog);
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    QVERIFY(!m_rig.view->wantsAutoRefresh());  // no refresh under an open dialog
    QSignalSpy previews(dialog, &CampaignCreateDialog::previewShown);
    auto *create = dialog->findChild<QPushButton *>(QStringLiteral("createButton"));
    QVERIFY(create);
    QVERIFY(!create->isEnabled());  // an empty form

    typeInto(dialog, "name", QStringLiteral("Lantern Festival"));
    typeInto(dialog, "total", QStringLiteral("1.50"));
    typeInto(dialog, "count", QStringLiteral("200"));
    typeInto(dialog, "seed", QStringLiteral("20250212"));
    // ¥1.50 cannot give 200 envelopes of at least ¥0.01.
    auto *totalError = dialog->findChild<QLabel *>(QStringLiteral("totalError"));
    QVERIFY(totalError && totalError->isVisible());
    QCOMPARE(totalError->text(), QStringLiteral("Too little for 200 envelopes of at least ¥0.01: the total must be at least ¥2.00."));
    QVERIFY(!create->isEnabled());

    typeInto(dialog, "count", QStringLiteral("0"));
    QCOMPARE(dialog->fieldError(Field::Count), QStringLiteral("There must be at least one envelope."));
    QVERIFY(dialog->findChild<QLabel *>(QStringLiteral("countError"))->isVisible());
    typeInto(dialog, "total", QStringLiteral("99999999999999999999"));
    QVERIFY(dialog->fieldError(Field::Total).startsWith(QStringLiteral("Not an amount")));
    typeInto(dialog, "total", QStringLiteral("12.345"));
    QVERIFY(dialog->fieldError(Field::Total).startsWith(QStringLiteral("Not an amount")));
    QVERIFY(!create->isEnabled());
    QVERIFY(!dialog->previewModel()->hasPreview());

    // Fixed: ¥100 in 50 envelopes, smoothed, seed 20250212; the preview is that exact split.
    typeInto(dialog, "total", QStringLiteral("100"));
    typeInto(dialog, "count", QStringLiteral("50"));
    dialog->setAlgorithm(SplitAlgorithm::Smoothed);
    QVERIFY(dialog->fieldError(Field::Total).isEmpty());
    QVERIFY(dialog->fieldError(Field::Count).isEmpty());
    QVERIFY(!totalError->isVisible());
    QVERIFY(create->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(dialog->previewModel()->hasPreview() && dialog->previewModel()->preview().spec.count == 50
                                     && dialog->previewModel()->preview().spec.algorithm == SplitAlgorithm::Smoothed && !dialog->isPreviewing(),
                             AnswerTimeoutMs);
    QVERIFY(!previews.isEmpty());
    const SplitSpec spec{10'000, 50, 1, SplitAlgorithm::Smoothed, 20250212};
    const std::vector<qint64> amounts = splitEnvelopes(spec);
    const SplitPreview &preview = dialog->previewModel()->preview();
    QCOMPARE(preview.spec.seed, quint64(20250212));
    QCOMPARE(preview.minCents, *std::min_element(amounts.cbegin(), amounts.cend()));
    QCOMPARE(preview.maxCents, *std::max_element(amounts.cbegin(), amounts.cend()));
    QCOMPARE(preview.meanCents, qint64(200));
    qint64 bucketed = 0;
    for (const SplitBucket &bucket : preview.buckets)
        bucketed += bucket.envelopes;
    QCOMPARE(bucketed, qint64(50));
    QVERIFY(dialog->findChild<QLabel *>(QStringLiteral("previewStats"))->text().contains(QStringLiteral("¥2.00")));

    // The session's operator, shown, not typed here.
    QCOMPARE(dialog->findChild<QLabel *>(QStringLiteral("operator"))->text(), Operator);
    QVERIFY(create->isEnabled());

    QSignalSpy created(m_rig.view.get(), &CampaignsView::campaignCreated);
    QSignalSpy shown(m_rig.view.get(), &CampaignsView::campaignShown);
    QTest::mouseClick(create, Qt::LeftButton);
    QVERIFY(created.wait(AnswerTimeoutMs));
    m_campaign = created.first().at(0).value<Campaign>().id;
    QVERIFY(m_campaign > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() && !m_rig.view->isBusy(), AnswerTimeoutMs);
    QVERIFY(m_rig.view->wantsAutoRefresh());

    QSqlQuery row = m_rig.sql->exec(QStringLiteral("SELECT name, total_cents, count, algorithm, seed, status FROM campaign WHERE id = ?"), {m_campaign});
    QVERIFY(row.next());
    QCOMPARE(row.value(0).toString(), QStringLiteral("Lantern Festival"));
    QCOMPARE(row.value(1).toLongLong(), qint64(10'000));
    QCOMPARE(row.value(2).toLongLong(), qint64(50));
    QCOMPARE(row.value(3).toString(), QStringLiteral("smoothed"));
    QCOMPARE(row.value(4).toString(), QStringLiteral("20250212"));
    QCOMPARE(row.value(5).toString(), QStringLiteral("draft"));
    const QList<QStringList> audit = auditRows();
    QCOMPARE(audit.size(), 1);
    QCOMPARE(audit.at(0).mid(0, 3), (QStringList{Operator, QStringLiteral("campaign.create"), QStringLiteral("campaign:%1").arg(m_campaign)}));

    // The new draft is selected, listed first and shown.
    QCOMPARE(m_rig.view->selectedCampaignId(), m_campaign);
    QCOMPARE(m_rig.view->listModel()->rowOf(m_campaign), 0);
    QCOMPARE(m_rig.view->detailPanel()->campaignId(), m_campaign);
    QCOMPARE(m_rig.view->listModel()->index(0, CampaignListModel::Status).data().toString(), QStringLiteral("Draft"));
    QVERIFY(m_rig.view->findChild<QPushButton *>(QStringLiteral("launchButton"))->isEnabled());
    QVERIFY(!m_rig.view->findChild<QPushButton *>(QStringLiteral("pauseButton"))->isEnabled());
}

void TestCampaignsView::launchThroughTheViewAfterConfirmation()
{
    QVERIFY(m_campaign > 0);
    act(&CampaignsView::launchSelected, CampaignAction::Launch);
    QCOMPARE(m_confirmations, QStringList{QStringLiteral("Launch campaign #%1?").arg(m_campaign)});
    QCOMPARE(redisStatus(), QStringLiteral("live"));
    QSqlQuery envelopes = m_rig.sql->exec(QStringLiteral("SELECT COUNT(*), SUM(amount_cents) FROM envelope WHERE campaign_id = ?"), {m_campaign});
    QVERIFY(envelopes.next());
    QCOMPARE(envelopes.value(0).toLongLong(), qint64(50));
    QCOMPARE(envelopes.value(1).toLongLong(), qint64(10'000));
    QCOMPARE(auditRows().constLast().mid(0, 2), (QStringList{Operator, QStringLiteral("campaign.launch")}));
    QCOMPARE(m_rig.view->detailPanel()->status(), CampaignStatus::Live);
    QCOMPARE(m_rig.view->detailPanel()->figure(QStringLiteral("remainingCount")), QStringLiteral("50"));
    QVERIFY(m_rig.view->detailPanel()->ledgerOk());
    QVERIFY(!m_rig.view->findChild<QPushButton *>(QStringLiteral("launchButton"))->isEnabled());
    QVERIFY(m_rig.view->findChild<QPushButton *>(QStringLiteral("pauseButton"))->isEnabled());
}

void TestCampaignsView::declinedConfirmationChangesNothing()
{
    m_confirmAnswer = false;
    QSignalSpy requested(m_rig.view.get(), &CampaignsView::actionRequested);
    const qsizetype auditBefore = auditRows().size();
    QTest::mouseClick(m_rig.view->findChild<QPushButton *>(QStringLiteral("pauseButton")), Qt::LeftButton);
    QCOMPARE(m_confirmations.size(), 1);
    QVERIFY(requested.isEmpty());
    QVERIFY(!m_rig.view->isBusy());
    QCOMPARE(redisStatus(), QStringLiteral("live"));
    QCOMPARE(auditRows().size(), auditBefore);
}

void TestCampaignsView::pauseStopsGrabs()
{
    GrabService grabs(*m_rig.redis, *m_rig.keys);
    for (qint64 uid : {701, 702, 703})
        QCOMPARE(grabs.grab(m_campaign, uid, nowMs()).status, QStringLiteral("ok"));

    act(&CampaignsView::pauseSelected, CampaignAction::Pause);
    QCOMPARE(m_confirmations, QStringList{QStringLiteral("Pause campaign #%1?").arg(m_campaign)});
    QCOMPARE(redisStatus(), QStringLiteral("paused"));
    QCOMPARE(grabs.grab(m_campaign, 704, nowMs()).status, QStringLiteral("not_live"));
    QCOMPARE(auditRows().constLast().mid(0, 3), (QStringList{Operator, QStringLiteral("campaign.pause"), QStringLiteral("campaign:%1").arg(m_campaign)}));
    QVERIFY(auditRows().constLast().at(3).contains(QStringLiteral("\"via\":\"console\"")));
    QCOMPARE(m_rig.view->detailPanel()->status(), CampaignStatus::Paused);
    QCOMPARE(m_rig.view->detailPanel()->figure(QStringLiteral("grabbedCount")), QStringLiteral("3"));
    QCOMPARE(m_rig.view->listModel()->index(m_rig.view->listModel()->rowOf(m_campaign), CampaignListModel::Status).data().toString(),
             QStringLiteral("Paused"));
    QVERIFY(m_rig.view->findChild<QPushButton *>(QStringLiteral("resumeButton"))->isEnabled());
    QVERIFY(!m_rig.view->findChild<QPushButton *>(QStringLiteral("pauseButton"))->isEnabled());
}

void TestCampaignsView::resumeOpensGrabsAgain()
{
    act(&CampaignsView::resumeSelected, CampaignAction::Resume);
    QCOMPARE(redisStatus(), QStringLiteral("live"));
    QCOMPARE(GrabService(*m_rig.redis, *m_rig.keys).grab(m_campaign, 704, nowMs()).status, QStringLiteral("ok"));
    QCOMPARE(auditRows().constLast().at(1), QStringLiteral("campaign.resume"));
}

void TestCampaignsView::liveViewShowsTheDrainAndTheLedgerCheck()
{
    // Four grabbed, none paid yet.
    waitForSnapshot();
    const auto *panel = m_rig.view->detailPanel();
    QCOMPARE(panel->figure(QStringLiteral("grabbedCount")), QStringLiteral("4"));
    QCOMPARE(panel->figure(QStringLiteral("remainingCount")), QStringLiteral("46"));
    QCOMPARE(panel->figure(QStringLiteral("paidCount")), QStringLiteral("0"));

    // A pass against a provider that fails every call: the payouts are pending, every call an error.
    SimulatedPayoutGateway failing(*m_rig.redis, m_rig.keys->prefix(), SimulationKnobs{1.0, 0}, 1);
    EnvelopeDrain(*m_rig.redis, *m_rig.sql, *m_rig.keys, QStringLiteral("tst-campaignsview"), failing).pass();
    waitForSnapshot();
    QCOMPARE(panel->figure(QStringLiteral("pendingCount")), QStringLiteral("4"));
    QVERIFY2(panel->payoutText().contains(QStringLiteral("4 pending")), qPrintable(panel->payoutText()));
    QVERIFY2(panel->payoutText().contains(QStringLiteral("12 provider error")), qPrintable(panel->payoutText()));

    // A worker drains the payout queue: paid catches up with grabbed.
    SimulatedPayoutGateway gateway(*m_rig.redis, m_rig.keys->prefix(), SimulationKnobs{}, 1);
    EnvelopeDrain(*m_rig.redis, *m_rig.sql, *m_rig.keys, QStringLiteral("tst-campaignsview"), gateway).drainAll();
    const qint64 grabbedCents = m_rig.redis->command({"HGET", m_rig.keys->campaignMeta(m_campaign), "grabbed_cents"}).toInteger();
    waitForSnapshot();
    QCOMPARE(panel->figure(QStringLiteral("paidCount")), QStringLiteral("4"));
    QCOMPARE(panel->figure(QStringLiteral("pendingCount")), QStringLiteral("0"));
    QVERIFY2(panel->payoutText().contains(QStringLiteral("12 provider error")), qPrintable(panel->payoutText()));
    QVERIFY(panel->payoutRate().readings() >= 2);
    QCOMPARE(panel->figure(QStringLiteral("paidAmount")), lantern::formatYuan(grabbedCents));
    QCOMPARE(panel->figure(QStringLiteral("remainingAmount")), lantern::formatYuan(10'000 - grabbedCents));
    QVERIFY(panel->ledgerOk());
    QVERIFY(panel->violationTexts().isEmpty());
    QVERIFY(panel->rate().readings() >= 2);  // successive refreshes of the same campaign feed the rate

    // Someone tampers with an envelope in SQL: the ledger check turns red and says why.
    m_rig.sql->exec(QStringLiteral("UPDATE envelope SET amount_cents = amount_cents + 1 WHERE campaign_id = ? AND seq = 50"), {m_campaign});
    waitForSnapshot();
    QVERIFY(!panel->ledgerOk());
    QVERIFY2(panel->violationTexts().join(QLatin1Char('\n')).contains(QStringLiteral("Rule 1: envelopes sum to 10001 cents, the total is 10000")),
             qPrintable(panel->violationTexts().join(QLatin1Char('\n'))));
    QVERIFY(panel->ledgerText().contains(QStringLiteral("broken")));
    // A broken split is for a recovery (or escalation): the text links to Recovery only.
    QVERIFY2(panel->ledgerText().contains(QStringLiteral("href=\"view:recovery\"")), qPrintable(panel->ledgerText()));
    QVERIFY(!panel->ledgerText().contains(QStringLiteral("view:queues")));
    m_rig.sql->exec(QStringLiteral("UPDATE envelope SET amount_cents = amount_cents - 1 WHERE campaign_id = ? AND seq = 50"), {m_campaign});
    waitForSnapshot();
    QVERIFY(panel->ledgerOk());

    // A payout in the dead letters is retried in Queues (issue 24, point 7): the link goes there.
    m_rig.redis->command({"LPUSH", m_rig.keys->campaignDeadLetter(m_campaign), "{not a task"});
    waitForSnapshot();
    QVERIFY(!panel->ledgerOk());
    QVERIFY2(panel->ledgerText().contains(QStringLiteral("href=\"view:queues\"")), qPrintable(panel->ledgerText()));
    QVERIFY(!panel->ledgerText().contains(QStringLiteral("view:recovery")));
    QSignalSpy opened(m_rig.view.get(), &lantern::ui::ConsoleView::openView);
    Q_EMIT panel->findChild<QLabel *>(QStringLiteral("ledgerCheck"))->linkActivated(QStringLiteral("view:queues"));
    QCOMPARE(opened.size(), 1);
    QCOMPARE(opened.first().at(0).toString(), QStringLiteral("queues"));
    m_rig.redis->command({"DEL", m_rig.keys->campaignDeadLetter(m_campaign)});
    waitForSnapshot();
    QVERIFY(panel->ledgerOk());

    // A grab row inserted by hand (issue 26): the refreshes judge from the workers' tally, and say
    // so; the check of every row the text links to finds it, as `lanternd verify` would.
    QSqlQuery free = m_rig.sql->exec(QStringLiteral("SELECT e.seq, e.amount_cents FROM envelope e WHERE e.campaign_id = ? AND NOT EXISTS "
                                                    "(SELECT 1 FROM grab g WHERE g.campaign_id = e.campaign_id AND g.seq = e.seq) ORDER BY e.seq"),
                                     {m_campaign});
    QVERIFY(free.next());
    const QVariantList forged{m_campaign, free.value(0), free.value(1)};
    free.finish();
    m_rig.sql->exec(QStringLiteral("INSERT INTO grab (campaign_id, seq, uid, amount_cents, grabbed_at_ms) VALUES (?, ?, 999999, ?, 1)"), forged);
    waitForSnapshot();
    QVERIFY2(panel->ledgerOk() && panel->ledgerText().contains(QStringLiteral("href=\"check:rows\"")), qPrintable(panel->ledgerText()));
    QSignalSpy shown(m_rig.view.get(), &CampaignsView::campaignShown);
    Q_EMIT panel->findChild<QLabel *>(QStringLiteral("ledgerCheck"))->linkActivated(QStringLiteral("check:rows"));
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QVERIFY(!panel->ledgerOk());
    QVERIFY2(panel->violationTexts().join(QLatin1Char('\n')).contains(QStringLiteral("grab rows were changed outside Lantern")),
             qPrintable(panel->violationTexts().join(QLatin1Char('\n'))));
    QVERIFY2(panel->ledgerText().contains(QStringLiteral("Every grab and payout row was read")), qPrintable(panel->ledgerText()));
    m_rig.sql->exec(QStringLiteral("DELETE FROM grab WHERE campaign_id = ? AND uid = 999999"), {m_campaign});
    waitForSnapshot();
    QVERIFY2(panel->ledgerOk(), qPrintable(panel->violationTexts().join(QLatin1Char('\n'))));
}

void TestCampaignsView::closeThroughTheMessageBoxRefundsTheRest()
{
    // The real confirmation this time: a QMessageBox whose "Close and refund" button is pressed.
    m_rig.view->setConfirmation(CampaignsView::messageBoxConfirmation());
    QString seenText;
    QTimer presser;
    presser.setInterval(20);
    connect(&presser, &QTimer::timeout, this, [&] {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        if (!box)
            return;
        seenText = box->text();
        for (QAbstractButton *button : box->buttons()) {
            if (button->text() == QStringLiteral("Close and refund")) {
                presser.stop();
                button->click();
            }
        }
    });
    presser.start();
    const qint64 grabbedCents = m_rig.redis->command({"HGET", m_rig.keys->campaignMeta(m_campaign), "grabbed_cents"}).toInteger();
    act(&CampaignsView::closeSelected, CampaignAction::Close);
    // Live: the figure is the last one read, and said to be so.
    QVERIFY2(seenText.contains(QStringLiteral("about 46 envelopes (%1) as last read").arg(lantern::formatYuan(10'000 - grabbedCents))),
             qPrintable(seenText));
    QVERIFY(seenText.contains(QStringLiteral("cannot be undone")));

    QCOMPARE(redisStatus(), QStringLiteral("closed"));
    QCOMPARE(GrabService(*m_rig.redis, *m_rig.keys).grab(m_campaign, 705, nowMs()).status, QStringLiteral("not_live"));
    const auto *panel = m_rig.view->detailPanel();
    QCOMPARE(panel->status(), CampaignStatus::Closed);
    QCOMPARE(panel->figure(QStringLiteral("refundedAmount")), lantern::formatYuan(10'000 - grabbedCents));
    QCOMPARE(panel->figure(QStringLiteral("refundedCount")), QStringLiteral("46"));  // the envelopes left, not "—"
    QVERIFY(panel->ledgerOk());  // grabbed + refunded = total
    QVERIFY(m_rig.view->banner()->text().contains(QStringLiteral("is closed")));

    QStringList actions;
    for (const QStringList &row : auditRows()) {
        QCOMPARE(row.at(0), Operator);
        QCOMPARE(row.at(2), QStringLiteral("campaign:%1").arg(m_campaign));
        actions << row.at(1);
    }
    QCOMPARE(actions, (QStringList{QStringLiteral("campaign.create"), QStringLiteral("campaign.launch"), QStringLiteral("campaign.pause"),
                                   QStringLiteral("campaign.resume"), QStringLiteral("campaign.close")}));
    for (const char *name : {"launchButton", "pauseButton", "resumeButton", "closeButton"})
        QVERIFY2(!m_rig.view->findChild<QPushButton *>(QLatin1String(name))->isEnabled(), name);
}

void TestCampaignsView::confirmationsSayWhenNothingIsLeft()
{
    Campaign campaign;
    campaign.id = 7;
    campaign.name = QStringLiteral("sold out");
    campaign.count = 10;
    campaign.totalCents = 1000;
    const QString close = ui::CampaignConfirmation::forAction(CampaignAction::Close, campaign, 0, 0).text;
    QVERIFY2(!close.contains(QStringLiteral("0 envelopes left")), qPrintable(close));
    QVERIFY2(close.contains(QStringLiteral("nothing is refunded")), qPrintable(close));
    const QString resume = ui::CampaignConfirmation::forAction(CampaignAction::Resume, campaign, 0, 0).text;
    QVERIFY2(resume.contains(QStringLiteral("sold out")) && !resume.contains(QStringLiteral("0 envelopes left")), qPrintable(resume));
    // With envelopes left, both still name them and their amount.
    QVERIFY(ui::CampaignConfirmation::forAction(CampaignAction::Close, campaign, 3, 120).text.contains(QStringLiteral("3 envelopes left")));
    QVERIFY(ui::CampaignConfirmation::forAction(CampaignAction::Resume, campaign, 3, 120).text.contains(QStringLiteral("3 envelopes left")));
    // Live, the crowd grabs while the operator reads (issue 24, point 7): the refund is "about".
    campaign.status = CampaignStatus::Live;
    const QString live = ui::CampaignConfirmation::forAction(CampaignAction::Close, campaign, 3, 120).text;
    QVERIFY2(live.contains(QStringLiteral("about 3 envelopes")) && live.contains(QStringLiteral("fewer if the crowd grabs")), qPrintable(live));
}

void TestCampaignsView::anAccountsRoleDisablesWhatItMayNotDo()
{
    // Signed in with an operator account (issue 25): the role decides before anything is typed,
    // and the button says why; the account is the operator, nobody is asked for a name.
    OperatorIdentity *identity = m_rig.view->operatorIdentity();
    auto *create = m_rig.view->findChild<QPushButton *>(QStringLiteral("newCampaignButton"));
    QVERIFY(create->isEnabled());
    access::AccountIdentity support;
    support.account = QStringLiteral("alice");
    support.role = access::Role::Support;
    identity->setAccount(support);
    QVERIFY(!create->isEnabled());
    QCOMPARE(create->toolTip(), QStringLiteral("the account alice (support) may not create campaigns"));
    QCOMPARE(identity->name(), QStringLiteral("alice"));
    QVERIFY(identity->ask(m_rig.view.get()));  // no dialog: the account is who acts
    for (const char *name : {"launchButton", "pauseButton", "resumeButton", "closeButton"})
        QVERIFY2(!m_rig.view->findChild<QPushButton *>(QLatin1String(name))->isEnabled(), name);

    access::AccountIdentity manager = support;
    manager.account = QStringLiteral("bob");
    manager.role = access::Role::Manager;
    identity->setAccount(manager);
    QVERIFY(create->isEnabled());
    QVERIFY(!create->toolTip().contains(QLatin1String("may not")));

    identity->clearAccount();
    QVERIFY(!identity->isSet());
    identity->setName(Operator);
}

void TestCampaignsView::refreshNeverStacksRequests()
{
    QSignalSpy lists(m_rig.view.get(), &CampaignsView::listRequested);
    QSignalSpy snapshots(m_rig.view.get(), &CampaignsView::snapshotRequested);
    QSignalSpy shown(m_rig.view.get(), &CampaignsView::campaignShown);
    for (int i = 0; i < 5; ++i)
        m_rig.view->refresh();
    QCOMPARE(lists.size(), 1);
    QCOMPARE(snapshots.size(), 1);
    QVERIFY(m_rig.view->isBusy());
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QTRY_VERIFY_WITH_TIMEOUT(!m_rig.view->isBusy(), AnswerTimeoutMs);
    m_rig.view->refresh();
    QCOMPARE(lists.size(), 2);
}

void TestCampaignsView::missingCampaignIsExplained()
{
    QSignalSpy failed(m_rig.view.get(), &CampaignsView::failed);
    m_rig.view->selectCampaign(987654);
    QVERIFY(failed.wait(AnswerTimeoutMs));
    QCOMPARE(m_rig.view->banner()->kind(), MessageBanner::Kind::Error);
    QCOMPARE(m_rig.view->banner()->text(), QStringLiteral("Campaign 987654 does not exist (any more)."));
    QVERIFY(!m_rig.view->findChild<QPushButton *>(QStringLiteral("closeButton"))->isEnabled());
    // Back to the real one: the error goes with the next good answer.
    QSignalSpy shown(m_rig.view.get(), &CampaignsView::campaignShown);
    m_rig.view->selectCampaign(m_campaign);
    QVERIFY(shown.wait(AnswerTimeoutMs));
}

void TestCampaignsView::returnGoesAheadOnlyForTheKillSwitch_data()
{
    QTest::addColumn<CampaignAction>("action");
    QTest::addColumn<bool>("goesAhead");
    QTest::newRow("pause, the kill switch") << CampaignAction::Pause << true;
    QTest::newRow("launch") << CampaignAction::Launch << false;
    QTest::newRow("resume") << CampaignAction::Resume << false;
    QTest::newRow("close") << CampaignAction::Close << false;
}

void TestCampaignsView::returnGoesAheadOnlyForTheKillSwitch()
{
    // The message box the view runs, given Return and then (a fresh one) Escape.
    QFETCH(CampaignAction, action);
    QFETCH(bool, goesAhead);
    Campaign campaign;
    campaign.id = 7;
    campaign.name = QStringLiteral("Spring");
    campaign.count = 10;
    campaign.totalCents = 1000;
    const CampaignConfirmation ask = CampaignConfirmation::forAction(action, campaign, 4, 400);
    QCOMPARE(ask.enterGoesAhead, goesAhead);

    const std::unique_ptr<QMessageBox> box = ask.messageBox(m_rig.view.get());
    QAbstractButton *go = CampaignConfirmation::goAheadButton(*box);
    QVERIFY(go);
    QCOMPARE(go->text(), ask.goAhead);
    box->show();
    QVERIFY(QTest::qWaitForWindowExposed(box.get()));
    QTest::keyClick(box.get(), Qt::Key_Return);
    QVERIFY(box->clickedButton());
    QCOMPARE(box->clickedButton() == go, goesAhead);

    const std::unique_ptr<QMessageBox> again = ask.messageBox(m_rig.view.get());
    again->show();
    QVERIFY(QTest::qWaitForWindowExposed(again.get()));
    QTest::keyClick(again.get(), Qt::Key_Escape);
    QVERIFY(again->clickedButton());
    QVERIFY(again->clickedButton() != CampaignConfirmation::goAheadButton(*again));
}

void TestCampaignsView::readOnlyDisablesEveryChange()
{
    auto *create = m_rig.view->findChild<QPushButton *>(QStringLiteral("newCampaignButton"));
    auto *pause = m_rig.view->findChild<QPushButton *>(QStringLiteral("pauseButton"));
    QVERIFY(create && pause);
    QVERIFY(create->isEnabled());
    const QString pauseToolTip = pause->toolTip();

    m_rig.view->setReadOnly(true);
    for (const char *name : {"newCampaignButton", "launchButton", "pauseButton", "resumeButton", "closeButton"}) {
        auto *button = m_rig.view->findChild<QPushButton *>(QLatin1String(name));
        QVERIFY2(button && !button->isEnabled(), name);
        QCOMPARE(button->toolTip(), lantern::ui::WriteAction::readOnlyReason());
    }
    QVERIFY(!m_rig.view->openCreateDialog());

    m_rig.view->setReadOnly(false);
    QVERIFY(create->isEnabled());
    QCOMPARE(pause->toolTip(), pauseToolTip);
}

void TestCampaignsView::searchAndSortRunOnTheServer()
{
    CampaignService campaigns(*m_rig.redis, *m_rig.sql, *m_rig.keys);
    for (const QString &name : {QStringLiteral("sortcheck b"), QStringLiteral("sortcheck a"), QStringLiteral("sortcheck c 100%_off")}) {
        CampaignDraft draft;
        draft.name = name;
        draft.totalCents = 1000;
        draft.count = 10;
        campaigns.create(draft, QDateTime::currentMSecsSinceEpoch());
    }
    const auto names = [this] {
        QStringList list;
        for (int row = 0; row < m_rig.view->listModel()->rowCount(); ++row)
            list << m_rig.view->listModel()->rowAt(row).campaign.name;
        return list;
    };
    const auto listed = [this](const std::function<void()> &ask) {
        QSignalSpy shown(m_rig.view.get(), &CampaignsView::pageShown);
        ask();
        return shown.wait(AnswerTimeoutMs);
    };

    // A search by part of the name, with SQL's wildcards taken literally.
    QVERIFY(listed([this] { m_rig.view->search(QStringLiteral("sortcheck")); }));
    QCOMPARE(names().size(), 3);
    QVERIFY(listed([this] { m_rig.view->search(QStringLiteral("100%_")); }));
    QCOMPARE(names(), QStringList{QStringLiteral("sortcheck c 100%_off")});
    QVERIFY(listed([this] { m_rig.view->search(QStringLiteral("%")); }));
    QCOMPARE(names(), QStringList{QStringLiteral("sortcheck c 100%_off")});

    // Sorted on the server, by a header click.
    QVERIFY(listed([this] { m_rig.view->search(QStringLiteral("sortcheck")); }));
    QHeaderView *header = m_rig.view->listView()->horizontalHeader();
    QVERIFY(listed([header] { header->setSortIndicator(CampaignListModel::Name, Qt::AscendingOrder); }));
    QCOMPARE(names(), (QStringList{QStringLiteral("sortcheck a"), QStringLiteral("sortcheck b"), QStringLiteral("sortcheck c 100%_off")}));
    QVERIFY(listed([header] { header->setSortIndicator(CampaignListModel::Name, Qt::DescendingOrder); }));
    QCOMPARE(names().first(), QStringLiteral("sortcheck c 100%_off"));
    // Redis's counters cannot be sorted by on the server: the click is refused, the order stays.
    header->setSortIndicator(CampaignListModel::Grabbed, Qt::AscendingOrder);
    QCOMPARE(header->sortIndicatorSection(), int(CampaignListModel::Name));
    QCOMPARE(m_rig.view->listQuery().sortColumn, int(CampaignListModel::Name));

    // Back to every campaign, newest first, for whatever runs next.
    QVERIFY(listed([this, header] {
        m_rig.view->search(QString());
        header->setSortIndicator(CampaignListModel::Id, Qt::DescendingOrder);
    }));
}

// Issue 24, point 2: select #A, search for B (only B listed): the live view may still follow A,
// but no button acts on it, and an action asked for anyway asks nothing and changes nothing.
void TestCampaignsView::actionsNeverApplyToAHiddenSelection()
{
    CampaignService campaigns(*m_rig.redis, *m_rig.sql, *m_rig.keys);
    CampaignDraft draft;
    draft.totalCents = 1000;
    draft.count = 10;
    draft.name = QStringLiteral("hidden-selection spring");
    const qint64 hidden = campaigns.create(draft, QDateTime::currentMSecsSinceEpoch()).id;
    draft.name = QStringLiteral("hidden-selection riddle");
    const qint64 shownId = campaigns.create(draft, QDateTime::currentMSecsSinceEpoch()).id;
    const auto listed = [this](const QString &text) {
        QSignalSpy shown(m_rig.view.get(), &CampaignsView::pageShown);
        m_rig.view->search(text);
        return shown.wait(AnswerTimeoutMs);
    };
    auto *launch = m_rig.view->findChild<QPushButton *>(QStringLiteral("launchButton"));
    auto *close = m_rig.view->findChild<QPushButton *>(QStringLiteral("closeButton"));
    QVERIFY(launch && close);
    m_rig.view->setConfirmation([this](QWidget *, const CampaignConfirmation &ask) {
        m_confirmations << ask.title;
        return m_confirmAnswer;
    });

    QVERIFY(listed(QStringLiteral("hidden-selection")));
    QSignalSpy shown(m_rig.view.get(), &CampaignsView::campaignShown);
    m_rig.view->selectCampaign(hidden);
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QVERIFY(launch->isEnabled() && close->isEnabled());

    QVERIFY(listed(QStringLiteral("riddle")));
    QCOMPARE(m_rig.view->listModel()->rowCount(), 1);
    QCOMPARE(m_rig.view->listModel()->rowAt(0).campaign.id, shownId);
    QVERIFY(m_rig.view->listView()->selectionModel()->selectedRows().isEmpty());
    QVERIFY(!launch->isEnabled());
    QVERIFY(!close->isEnabled());
    QVERIFY2(close->toolTip().contains(QStringLiteral("#%1").arg(hidden)), qPrintable(close->toolTip()));

    // Asked for anyway (a shortcut, a menu): nothing is asked, nothing is sent, nothing changes.
    const QList<QStringList> auditBefore = auditRows();
    m_rig.view->closeSelected();
    m_rig.view->launchSelected();
    QVERIFY(m_confirmations.isEmpty());
    QVERIFY(!m_rig.view->isBusy());
    QCOMPARE(auditRows(), auditBefore);
    QCOMPARE(campaigns.show(hidden).campaign.status, CampaignStatus::Draft);

    // Selecting the row that is listed acts on that one.
    m_rig.view->listView()->selectRow(0);
    QTRY_VERIFY_WITH_TIMEOUT(launch->isEnabled(), AnswerTimeoutMs);
    QVERIFY(!close->toolTip().contains(QStringLiteral("#%1").arg(hidden)));
    m_confirmAnswer = false;
    m_rig.view->launchSelected();
    QCOMPARE(m_confirmations.size(), 1);
    QVERIFY2(m_confirmations.first().contains(QStringLiteral("#%1").arg(shownId)), qPrintable(m_confirmations.first()));

    QVERIFY(listed(QString()));
}

void TestCampaignsView::subPoolsAreSummed()
{
    // A campaign of three sub-pools: the list sums its pools' grabs.
    CampaignService campaigns(*m_rig.redis, *m_rig.sql, *m_rig.keys);
    CampaignDraft draft;
    draft.name = QStringLiteral("pooled list check");
    draft.totalCents = 900;
    draft.count = 9;
    draft.pools = 3;
    const qint64 id = campaigns.launch(campaigns.create(draft, QDateTime::currentMSecsSinceEpoch()).id).id;
    GrabService grabs(*m_rig.redis, *m_rig.keys);
    qint64 cents = 0;
    for (qint64 uid = 1; uid <= 7; ++uid)  // users of every pool
        cents += grabs.grab(id, uid, QDateTime::currentMSecsSinceEpoch()).amountCents;
    QSignalSpy listed(m_rig.view.get(), &CampaignsView::pageShown);
    m_rig.view->search(QStringLiteral("pooled list check"));
    QVERIFY(listed.wait(AnswerTimeoutMs));
    QCOMPARE(m_rig.view->listModel()->rowCount(), 1);
    QCOMPARE(m_rig.view->listModel()->rowAt(0).grabbedCount, 7LL);
    QCOMPARE(m_rig.view->listModel()->rowAt(0).grabbedCents, cents);

    // Its live view shows each pool's progress.
    QSignalSpy shown(m_rig.view.get(), &CampaignsView::campaignShown);
    m_rig.view->selectCampaign(id);
    QTRY_VERIFY_WITH_TIMEOUT(m_rig.view->detailPanel()->campaignId() == id && !m_rig.view->isBusy(), AnswerTimeoutMs);
    const QString pools = m_rig.view->detailPanel()->poolsText();
    for (const QString &pool : QStringList{QString::number(id), QString::number(id) + QStringLiteral(".1"), QString::number(id) + QStringLiteral(".2")})
        QVERIFY2(pools.contains(pool + QStringLiteral(": ")), qPrintable(pools));
    QVERIFY2(pools.contains(QStringLiteral("of 3 left")), qPrintable(pools));
}

LANTERN_WIDGET_TEST_SUITE(TestCampaignsView);

} // namespace tst_campaignsview

#include "tst_campaignsview.moc"
