// The console sets and changes a campaign's times (issue 30, point 1), against the harness's
// Redis and a temp SQLite file: the New campaign dialog creates a scheduled draft (the campaign,
// its audit row and its timetable in one go, times in the console's business zone); "Times…"
// moves, drops and adds times on a draft and a live campaign, each change audited once; times
// that break the timetable's rules keep Save and Create disabled with the reason in words, and a
// request the servers' clock refuses comes back in those words with nothing written.
#include "campaigns/campaigncreatedialog.h"
#include "campaigns/campaigndetailpanel.h"
#include "campaigns/campaignsview.h"
#include "campaigns/campaigntimesdialog.h"
#include "campaigns/campaigntimesform.h"
#include "console/campaigns/campaignconsoleservice.h"
#include "console/campaigns/campaignpreviewer.h"
#include "console/common/dedicatedthread.h"
#include "envelope/campaignschedule.h"
#include "envelope/campaignservice.h"
#include "common/messagebanner.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "campaignsviewrig.h"
#include "formfilling.h"
#include "testservers.h"
#include "testsuite.h"
#include "translations.h"

#include <QCheckBox>
#include <QDateTimeEdit>
#include <QDialogButtonBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTest>

namespace tst_campaigntimes {

using namespace lantern;
using lantern::test::typeInto;
using lantern::ui::CampaignCreateDialog;
using lantern::ui::CampaignsView;
using lantern::ui::CampaignTimesDialog;
using lantern::ui::CampaignTimesForm;

namespace {

constexpr int AnswerTimeoutMs = 15000;
constexpr qint64 HourMs = 3'600'000;
const QString Operator = QStringLiteral("planner");

/** Sets a form's time as an operator would: the wall-clock time in the form's zone. */
void writeTime(QWidget *form, const char *name, const QDateTime &wall)
{
    auto *edit = form->findChild<QDateTimeEdit *>(QLatin1String(name));
    QVERIFY2(edit, name);
    edit->setDateTime(QDateTime(wall.date(), wall.time(), Qt::UTC));
}

void tick(QWidget *form, const char *name, bool on)
{
    auto *box = form->findChild<QCheckBox *>(QLatin1String(name));
    QVERIFY2(box, name);
    box->setChecked(on);
}

/** A whole second in the future on the servers' clock, `aheadMs` from now. */
qint64 secondAhead(qint64 serverNowMs, qint64 aheadMs)
{
    return (serverNowMs + aheadMs) / 1000 * 1000;
}

} // namespace

class TestCampaignTimes final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void createsAScheduledDraft();
    void formRefusesWhatTheTimetableRefuses();
    void timesOfADraftAreMovedAndDropped();
    void aLiveCampaignTakesACloseTimeOnly();
    void theServersClockHasTheLastWord();
    void zhCnSaysItInChinese();

private:
    qint64 createThroughTheDialog(const QString &name, qint64 launchAtMs, qint64 closeAtMs);
    void selectAndShow(qint64 campaignId);
    /** Saves `dialog` through its Save button and waits for the view's answer. */
    void save(CampaignTimesDialog *dialog);
    QList<ScheduledTransition> timetable(qint64 campaignId);
    QList<QPair<QString, QJsonObject>> auditOf(qint64 campaignId);
    qint64 serverNow() { return redisTimeMs(*m_rig.redis); }

    test::CampaignsViewRig m_rig;
};

void TestCampaignTimes::initTestCase()
{
    installTranslations(QStringLiteral("en"));
    // The business zone, not this machine's: Shanghai, UTC+8 all year.
    m_rig.start(QTimeZone(QByteArrayLiteral("Asia/Shanghai")));
    if (QTest::currentTestFailed())
        return;
    m_rig.view->setOperatorName(Operator);
    m_rig.show(QSize(1200, 800), AnswerTimeoutMs);
}

void TestCampaignTimes::cleanupTestCase()
{
    installTranslations(QStringLiteral("en"));
    m_rig.stop();
}

void TestCampaignTimes::init()
{
    QTRY_VERIFY_WITH_TIMEOUT(!m_rig.view->isBusy(), AnswerTimeoutMs);
}

QList<ScheduledTransition> TestCampaignTimes::timetable(qint64 campaignId)
{
    return CampaignSchedule(*m_rig.sql).of(campaignId);
}

QList<QPair<QString, QJsonObject>> TestCampaignTimes::auditOf(qint64 campaignId)
{
    QList<QPair<QString, QJsonObject>> rows;
    QSqlQuery query = m_rig.sql->exec(QStringLiteral("SELECT actor, action, detail FROM audit_log WHERE target = ? ORDER BY id"),
                                  {QStringLiteral("campaign:%1").arg(campaignId)});
    while (query.next()) {
        [&] { QCOMPARE(query.value(0).toString(), Operator); }();
        rows << qMakePair(query.value(1).toString(), QJsonDocument::fromJson(query.value(2).toByteArray()).object());
    }
    return rows;
}

qint64 TestCampaignTimes::createThroughTheDialog(const QString &name, qint64 launchAtMs, qint64 closeAtMs)
{
    CampaignCreateDialog *dialog = m_rig.view->openCreateDialog();
    if (!dialog)
        return 0;
    typeInto(dialog, "name", name);
    typeInto(dialog, "total", QStringLiteral("100"));
    typeInto(dialog, "count", QStringLiteral("10"));
    tick(dialog, "launchOn", true);
    writeTime(dialog, "launchAt", QDateTime::fromMSecsSinceEpoch(launchAtMs, m_rig.config.timeZone));
    tick(dialog, "closeOn", true);
    writeTime(dialog, "closeAt", QDateTime::fromMSecsSinceEpoch(closeAtMs, m_rig.config.timeZone));
    auto *create = dialog->findChild<QPushButton *>(QStringLiteral("createButton"));
    if (!create || !create->isEnabled()) {
        qWarning() << "Create is disabled:" << create->toolTip() << dialog->timesForm()->problemText();
        return 0;
    }
    QSignalSpy created(m_rig.view.get(), &CampaignsView::campaignCreated);
    QSignalSpy shown(m_rig.view.get(), &CampaignsView::campaignShown);
    QTest::mouseClick(create, Qt::LeftButton);
    if (!created.wait(AnswerTimeoutMs))
        return 0;
    const qint64 id = created.first().at(0).value<Campaign>().id;
    if (shown.isEmpty() && !shown.wait(AnswerTimeoutMs))
        return 0;
    return id;
}

void TestCampaignTimes::selectAndShow(qint64 campaignId)
{
    QSignalSpy shown(m_rig.view.get(), &CampaignsView::campaignShown);
    m_rig.view->selectCampaign(campaignId);
    m_rig.view->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(m_rig.view->detailPanel()->campaignId() == campaignId && !shown.isEmpty() && !m_rig.view->isBusy(), AnswerTimeoutMs);
}

void TestCampaignTimes::save(CampaignTimesDialog *dialog)
{
    auto *saveButton = dialog->findChild<QPushButton *>(QStringLiteral("saveTimes"));
    QVERIFY(saveButton);
    QVERIFY2(saveButton->isEnabled(), qPrintable(saveButton->toolTip()));
    QSignalSpy saved(m_rig.view.get(), &CampaignsView::timesSaved);
    QSignalSpy failed(m_rig.view.get(), &CampaignsView::failed);
    QTest::mouseClick(saveButton, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!saved.isEmpty() || !failed.isEmpty(), AnswerTimeoutMs);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(0).toString()));
    QTRY_VERIFY_WITH_TIMEOUT(!m_rig.view->isBusy(), AnswerTimeoutMs);
}

void TestCampaignTimes::createsAScheduledDraft()
{
    const qint64 now = serverNow();
    const qint64 launch = secondAhead(now, 2 * HourMs);
    const qint64 close = secondAhead(now, 5 * HourMs);
    const qint64 id = createThroughTheDialog(QStringLiteral("Lantern rain"), launch, close);
    QVERIFY(id > 0);

    // The times are the wall-clock times written in Shanghai, to the second.
    const QList<ScheduledTransition> rows = timetable(id);
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows.at(0).action, ScheduledAction::Launch);
    QCOMPARE(rows.at(0).dueAtMs, launch);
    QCOMPARE(rows.at(0).scheduledBy, Operator);
    QCOMPARE(rows.at(0).state, ScheduledTransition::State::Pending);
    QCOMPARE(rows.at(1).action, ScheduledAction::Close);
    QCOMPARE(rows.at(1).dueAtMs, close);
    QVERIFY(!rows.at(0).lateLimitS);

    // One create row (via the console) and one schedule row naming both times.
    const auto audit = auditOf(id);
    QCOMPARE(audit.size(), 2);
    QCOMPARE(audit.at(0).first, QStringLiteral("campaign.create"));
    QCOMPARE(audit.at(0).second.value(QLatin1String("via")).toString(), QStringLiteral("console"));
    QCOMPARE(audit.at(1).first, QStringLiteral("campaign.schedule"));
    QCOMPARE(audit.at(1).second.value(QLatin1String("launch_at")).toString(), CampaignSchedule::isoTime(launch));
    QCOMPARE(audit.at(1).second.value(QLatin1String("close_at")).toString(), CampaignSchedule::isoTime(close));

    // The campaign page says when, in the business zone.
    QCOMPARE(m_rig.view->detailPanel()->campaignId(), id);
    const QString times = m_rig.view->detailPanel()->timesText();
    QVERIFY2(times.contains(QDateTime::fromMSecsSinceEpoch(launch, m_rig.config.timeZone).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))), qPrintable(times));
    QVERIFY2(times.contains(QStringLiteral("UTC+08:00")), qPrintable(times));
    QVERIFY2(times.startsWith(QStringLiteral("Launches at")), qPrintable(times));
    QVERIFY(m_rig.view->findChild<QLabel *>(QStringLiteral("campaignTimes"))->isVisible());
}

void TestCampaignTimes::formRefusesWhatTheTimetableRefuses()
{
    CampaignCreateDialog *dialog = m_rig.view->openCreateDialog();
    QVERIFY(dialog);
    typeInto(dialog, "name", QStringLiteral("Refused"));
    typeInto(dialog, "total", QStringLiteral("100"));
    typeInto(dialog, "count", QStringLiteral("10"));
    auto *create = dialog->findChild<QPushButton *>(QStringLiteral("createButton"));
    auto *error = dialog->findChild<QLabel *>(QStringLiteral("timesError"));
    QVERIFY(create && error);
    QVERIFY(create->isEnabled());  // no times: a plain draft
    QVERIFY(dialog->schedule().isEmpty());
    auto *lateLimit = dialog->findChild<QSpinBox *>(QStringLiteral("lateLimit"));
    QVERIFY(!lateLimit->isEnabled());  // a late limit needs a time

    const qint64 now = serverNow();
    // A launch that has passed.
    tick(dialog, "launchOn", true);
    writeTime(dialog, "launchAt", QDateTime::fromMSecsSinceEpoch(now - HourMs, m_rig.config.timeZone));
    QVERIFY(!create->isEnabled());
    QVERIFY(error->isVisible());
    QVERIFY2(error->text().startsWith(QStringLiteral("The launch time")) && error->text().contains(QStringLiteral("has passed")), qPrintable(error->text()));
    // A close before the launch.
    writeTime(dialog, "launchAt", QDateTime::fromMSecsSinceEpoch(now + 2 * HourMs, m_rig.config.timeZone));
    tick(dialog, "closeOn", true);
    writeTime(dialog, "closeAt", QDateTime::fromMSecsSinceEpoch(now + HourMs, m_rig.config.timeZone));
    QVERIFY(!create->isEnabled());
    QVERIFY2(error->text().contains(QStringLiteral("must come after the launch")), qPrintable(error->text()));
    // Fixed: both times and a late limit of 5 minutes.
    writeTime(dialog, "closeAt", QDateTime::fromMSecsSinceEpoch(now + 3 * HourMs, m_rig.config.timeZone));
    lateLimit->setValue(5);
    QVERIFY(create->isEnabled());
    QVERIFY(!error->isVisible());
    QCOMPARE(dialog->schedule().lateLimitS, std::optional<qint64>(300));
    QCOMPARE(create->text(), QStringLiteral("Create scheduled draft"));
    dialog->reject();

    // A local time the zone's clocks skip (New York, 2031-03-09 02:30) is refused by name.
    CampaignTimesForm newYork(QTimeZone(QByteArrayLiteral("America/New_York")), 0);
    tick(&newYork, "launchOn", true);
    writeTime(&newYork, "launchAt", QDateTime(QDate(2031, 3, 9), QTime(2, 30)));
    QVERIFY2(newYork.problemText().contains(QStringLiteral("no such local time in America/New_York")), qPrintable(newYork.problemText()));
    writeTime(&newYork, "launchAt", QDateTime(QDate(2031, 3, 9), QTime(3, 30)));
    QVERIFY2(newYork.isAcceptable(), qPrintable(newYork.problemText()));
    QCOMPARE(*newYork.request().launchAtMs, QDateTime(QDate(2031, 3, 9), QTime(3, 30), QTimeZone(QByteArrayLiteral("America/New_York"))).toMSecsSinceEpoch());
}

void TestCampaignTimes::timesOfADraftAreMovedAndDropped()
{
    const qint64 now = serverNow();
    const qint64 id = createThroughTheDialog(QStringLiteral("Moved"), secondAhead(now, HourMs), secondAhead(now, 3 * HourMs));
    QVERIFY(id > 0);
    selectAndShow(id);
    const int auditBefore = int(auditOf(id).size());

    // Unchanged: Save stays disabled and says why.
    CampaignTimesDialog *dialog = m_rig.view->openTimesDialog();
    QVERIFY(dialog);
    auto *saveButton = dialog->findChild<QPushButton *>(QStringLiteral("saveTimes"));
    QVERIFY(!saveButton->isEnabled());
    QCOMPARE(saveButton->toolTip(), QStringLiteral("Nothing changed yet."));
    // Enter does not save: Cancel is the default button.
    QVERIFY(dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Cancel)->isDefault());

    // The launch moves two hours later; the close is dropped.
    const qint64 moved = secondAhead(now, 3 * HourMs);
    writeTime(dialog, "launchAt", QDateTime::fromMSecsSinceEpoch(moved, m_rig.config.timeZone));
    tick(dialog, "closeOn", false);
    save(dialog);
    QList<ScheduledTransition> rows = timetable(id);
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.at(0).action, ScheduledAction::Launch);
    QCOMPARE(rows.at(0).dueAtMs, moved);
    auto audit = auditOf(id);
    QCOMPARE(audit.size(), auditBefore + 1);
    QCOMPARE(audit.last().first, QStringLiteral("campaign.schedule"));
    QCOMPARE(audit.last().second.value(QLatin1String("launch_at")).toString(), CampaignSchedule::isoTime(moved));
    QCOMPARE(audit.last().second.value(QLatin1String("replaced")).toVariant().toStringList(), (QStringList{QStringLiteral("launch"), QStringLiteral("close")}));
    QVERIFY(!audit.last().second.contains(QLatin1String("close_at")));
    QVERIFY(m_rig.view->banner()->text().contains(QStringLiteral("Times of campaign #%1 saved").arg(id)));
    QTRY_VERIFY_WITH_TIMEOUT(!m_rig.view->detailPanel()->timesText().contains(QStringLiteral("Closes at")), AnswerTimeoutMs);

    // Every time dropped: the draft waits for a Launch by hand.
    dialog = m_rig.view->openTimesDialog();
    QVERIFY(dialog);
    tick(dialog, "launchOn", false);
    save(dialog);
    QVERIFY(timetable(id).isEmpty());
    QCOMPARE(auditOf(id).size(), auditBefore + 2);
    QVERIFY(m_rig.view->banner()->text().contains(QStringLiteral("has no times any more")));
    QTRY_VERIFY_WITH_TIMEOUT(m_rig.view->detailPanel()->timesText().isEmpty(), AnswerTimeoutMs);
    QVERIFY(!m_rig.view->findChild<QLabel *>(QStringLiteral("campaignTimes"))->isVisible());
}

void TestCampaignTimes::aLiveCampaignTakesACloseTimeOnly()
{
    CampaignDraft draft;
    draft.name = QStringLiteral("Live already");
    draft.totalCents = 1000;
    draft.count = 10;
    CampaignService service(*m_rig.redis, *m_rig.sql, *m_rig.keys);
    const qint64 id = service.create(draft, 1).id;
    service.launch(id);
    QSignalSpy pages(m_rig.view.get(), &CampaignsView::pageShown);
    m_rig.view->refresh();
    QVERIFY(pages.wait(AnswerTimeoutMs));
    selectAndShow(id);

    CampaignTimesDialog *dialog = m_rig.view->openTimesDialog();
    QVERIFY(dialog);
    QVERIFY(!dialog->findChild<QCheckBox *>(QStringLiteral("launchOn"))->isEnabled());
    const qint64 close = secondAhead(serverNow(), 30 * 60'000);
    tick(dialog, "closeOn", true);
    writeTime(dialog, "closeAt", QDateTime::fromMSecsSinceEpoch(close, m_rig.config.timeZone));
    dialog->findChild<QSpinBox *>(QStringLiteral("lateLimit"))->setValue(10);
    save(dialog);
    const QList<ScheduledTransition> rows = timetable(id);
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.at(0).action, ScheduledAction::Close);
    QCOMPARE(rows.at(0).dueAtMs, close);
    QCOMPARE(rows.at(0).lateLimitS, std::optional<qint64>(600));

    // A closed campaign takes no times: the button says so.
    service.close(id);
    m_rig.view->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(m_rig.view->detailPanel()->status() == CampaignStatus::Closed && !m_rig.view->isBusy(), AnswerTimeoutMs);
    QVERIFY(!m_rig.view->findChild<QPushButton *>(QStringLiteral("timesButton"))->isEnabled());
    QVERIFY(!m_rig.view->openTimesDialog());
}

void TestCampaignTimes::theServersClockHasTheLastWord()
{
    // The form checks against the clock as last read; the service checks against Redis TIME
    // when it writes. A launch 2 s from now that the form accepted has passed when it arrives.
    CampaignDraft draft;
    draft.name = QStringLiteral("Late click");
    draft.totalCents = 1000;
    draft.count = 10;
    const qint64 id = CampaignService(*m_rig.redis, *m_rig.sql, *m_rig.keys).create(draft, 1).id;
    const int auditBefore = int(auditOf(id).size());
    CampaignConsoleService *service = m_rig.service->get();
    QSignalSpy failed(service, &CampaignConsoleService::requestFailed);
    QSignalSpy rescheduled(service, &CampaignConsoleService::rescheduled);
    ScheduleRequest request;
    request.replace = true;
    request.launchAtMs = serverNow() - 1000;
    QMetaObject::invokeMethod(service, "reschedule", Qt::QueuedConnection, Q_ARG(quint64, 7), Q_ARG(qint64, id), Q_ARG(lantern::ScheduleRequest, request),
                              Q_ARG(QString, Operator));
    QVERIFY(failed.wait(AnswerTimeoutMs));
    QVERIFY(rescheduled.isEmpty());
    const QString message = failed.first().at(1).toString();
    QVERIFY2(message.startsWith(QStringLiteral("The times were not changed: The launch time")) && message.contains(QStringLiteral("UTC+08:00")),
             qPrintable(message));
    QVERIFY(!message.contains(QStringLiteral("--launch-at")));  // no command-line words in the console
    QVERIFY(timetable(id).isEmpty());
    QCOMPARE(auditOf(id).size(), auditBefore);

    // The same for a new campaign: nothing is created.
    QSqlQuery count = m_rig.sql->exec(QStringLiteral("SELECT COUNT(*) FROM campaign"));
    QVERIFY(count.next());
    const qint64 before = count.value(0).toLongLong();
    ScheduleRequest late;
    late.launchAtMs = serverNow() - 1000;
    failed.clear();
    QMetaObject::invokeMethod(service, "create", Qt::QueuedConnection, Q_ARG(quint64, 8), Q_ARG(lantern::CampaignDraft, draft),
                              Q_ARG(lantern::ScheduleRequest, late), Q_ARG(QString, Operator));
    QVERIFY(failed.wait(AnswerTimeoutMs));
    QVERIFY2(failed.first().at(1).toString().startsWith(QStringLiteral("The campaign was not created: The launch time")),
             qPrintable(failed.first().at(1).toString()));
    QSqlQuery after = m_rig.sql->exec(QStringLiteral("SELECT COUNT(*) FROM campaign"));
    QVERIFY(after.next());
    QCOMPARE(after.value(0).toLongLong(), before);
}

void TestCampaignTimes::zhCnSaysItInChinese()
{
    installTranslations(QStringLiteral("zh_CN"));
    const auto han = [](const QString &text) { return std::any_of(text.cbegin(), text.cend(), [](QChar c) { return c.script() == QChar::Script_Han; }); };
    CampaignTimesForm form(m_rig.config.timeZone, serverNow());
    tick(&form, "launchOn", true);
    writeTime(&form, "launchAt", QDateTime::fromMSecsSinceEpoch(serverNow() - HourMs, m_rig.config.timeZone));
    QVERIFY2(han(form.problemText()), qPrintable(form.problemText()));
    QVERIFY(han(form.findChild<QCheckBox *>(QStringLiteral("launchOn"))->text()));
    QVERIFY(han(form.findChild<QSpinBox *>(QStringLiteral("lateLimit"))->specialValueText()));
    installTranslations(QStringLiteral("en"));
}

LANTERN_WIDGET_TEST_SUITE(TestCampaignTimes);

} // namespace tst_campaigntimes

#include "tst_campaigntimes.moc"
