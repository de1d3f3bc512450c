// The Users view against the real private Redis of scripts/test and a temp SQLite file: look a
// user up by uid and by token, page months, grant make-ups, and show failures in plain words.
// All Redis/SQL work runs on the lookup service's thread; the test waits on signals only.
#include "checkin/checkindrain.h"
#include "checkin/checkinservice.h"
#include "console/users/calendarmodel.h"
#include "console/common/dedicatedthread.h"
#include "console/users/userlookupservice.h"
#include "users/makeupdialog.h"
#include "common/messagebanner.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"
#include "common/writeaction.h"
#include "token/usertoken.h"
#include "users/usersummarypanel.h"
#include "users/usersview.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QToolButton>

namespace tst_usersview {

using namespace lantern;
using lantern::ui::MakeupDialog;
using lantern::ui::MessageBanner;
using lantern::ui::UsersView;
using State = CalendarModel::DayState;

namespace {

constexpr int AnswerTimeoutMs = 15000;
const QDate Today(2025, 3, 20);
constexpr qint64 Regular = 4242;  // March: 1 2 3 (4 made up) 5 . . . 19 20; February: 27 28
constexpr qint64 Raced = 5151;    // March: 1 2; make-ups granted behind the view's back

QDate march(int day)
{
    return QDate(2025, 3, day);
}

qint64 atMs(QDate day)
{
    return QDateTime(day, QTime(9, 0)).toMSecsSinceEpoch();
}

} // namespace

class TestUsersView final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void lookUpByUidShowsTheMonth();
    void lookUpByTokenFindsTheSameUser();
    void previousMonthButtonShowsFebruary();
    void pageKeysInTheCalendarTurnTheMonth();
    void readOnlyOffersNoMakeup();
    void unknownQueryIsExplained();
    void makeupFlowMarksTheDayAndUsesTheQuota();
    void serverRefusalIsShownPlainly();

private:
    /** Types `query` into the search field, presses Enter and waits for the answer. */
    void search(const QString &query);
    State stateOf(QDate day) const;
    QString figure(const char *name) const;
    void grantMakeup(QDate day, const QString &reason, const QString &operatorName);

    Config m_config;
    std::unique_ptr<DedicatedThread<UserLookupService>> m_service;
    std::unique_ptr<UsersView> m_view;
    std::unique_ptr<QSignalSpy> m_shown;
    std::unique_ptr<QSignalSpy> m_failed;
};

void TestUsersView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    m_config.redis = test::redisUrl();
    m_config.db = test::sqliteUrl();
    m_config.keyPrefix = test::uniquePrefix();
    m_config.todayOverride = Today;

    // The history, written the way production writes it: check-ins through CheckinService,
    // then a worker's drain into SQL.
    RedisClient redis(m_config.redis);
    SqlConnection sql(m_config.db);
    Migrator(sql).migrate();
    const KeySchema keys(m_config.keyPrefix, m_config.shards);
    CheckinService service(redis, keys, m_config.checkin);
    for (const QDate day : {QDate(2025, 2, 27), QDate(2025, 2, 28), march(1), march(2), march(3), march(5)})
        service.checkin(Regular, day, day, atMs(day));
    service.makeup({Regular, march(4), QStringLiteral("seed"), QStringLiteral("outage")}, Today, atMs(Today));
    for (const QDate day : {march(19), march(20)})
        service.checkin(Regular, day, day, atMs(day));
    for (const QDate day : {march(1), march(2)})
        service.checkin(Raced, day, day, atMs(day));
    CheckinDrain(redis, sql, keys, QStringLiteral("tst-usersview")).drainAll();

    m_service = std::make_unique<DedicatedThread<UserLookupService>>(QStringLiteral("user-lookup"), m_config);
    QVERIFY(m_service->get()->thread() != QThread::currentThread());
    m_view = std::make_unique<UsersView>(m_config.checkin);
    m_view->setService(m_service->get());
    m_view->resize(1000, 640);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    m_shown = std::make_unique<QSignalSpy>(m_view.get(), &UsersView::monthShown);
    m_failed = std::make_unique<QSignalSpy>(m_view.get(), &UsersView::failed);
}

void TestUsersView::cleanupTestCase()
{
    m_shown.reset();
    m_failed.reset();
    m_view.reset();
    m_service.reset();  // the service closes its connections in its own thread
}

void TestUsersView::init()
{
    // Every test starts on today's month: the "This month" button brings it back.
    if (m_view->month() != march(1)) {
        QTest::mouseClick(m_view->findChild<QPushButton *>(QStringLiteral("thisMonthButton")), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!m_view->isBusy(), AnswerTimeoutMs);
        QCOMPARE(m_view->calendarModel()->month(), march(1));
    }
    m_shown->clear();
    m_failed->clear();
}

void TestUsersView::search(const QString &query)
{
    QLineEdit *field = m_view->searchField();
    field->clear();
    QTest::keyClicks(field, query);
    QTest::keyClick(field, Qt::Key_Return);
    QVERIFY(m_view->isBusy());
    QTRY_VERIFY_WITH_TIMEOUT(!m_view->isBusy(), AnswerTimeoutMs);
}

State CalendarViewState(const CalendarModel *model, QDate day)
{
    return model->indexOf(day).data(CalendarModel::StateRole).value<State>();
}

State TestUsersView::stateOf(QDate day) const
{
    return CalendarViewState(m_view->calendarModel(), day);
}

QString TestUsersView::figure(const char *name) const
{
    const auto *label = m_view->summaryPanel()->findChild<QLabel *>(QLatin1String(name));
    return label ? label->text() : QStringLiteral("<no %1 label>").arg(QLatin1String(name));
}

void TestUsersView::lookUpByUidShowsTheMonth()
{
    search(QStringLiteral("4242"));
    QCOMPARE(m_shown->size(), 1);
    QVERIFY(m_failed->isEmpty());

    QCOMPARE(m_view->calendarModel()->month(), march(1));
    for (int day : {1, 2, 3, 5, 19})
        QCOMPARE(stateOf(march(day)), State::Signed);
    QCOMPARE(stateOf(march(4)), State::MakeUp);
    for (int day : {6, 7, 18})
        QCOMPARE(stateOf(march(day)), State::Missed);
    QCOMPARE(stateOf(march(20)), State::Signed);
    QVERIFY(m_view->calendarModel()->indexOf(march(20)).data(CalendarModel::IsTodayRole).toBool());
    QCOMPARE(stateOf(march(21)), State::Future);
    QCOMPARE(stateOf(march(31)), State::Future);

    QCOMPARE(figure("streak"), QStringLiteral("2"));      // 19, 20
    QCOMPARE(figure("longest"), QStringLiteral("5"));     // 1..5 with the make-up
    QCOMPARE(figure("monthCount"), QStringLiteral("7"));
    // Feb 27, 28: 10 + 20; Mar 1-3: 10 + 20 + 30; Mar 5 (streak broken then): 10; make-up: 0;
    // Mar 19, 20: 10 + 20.
    QCOMPARE(figure("points"), QStringLiteral("130"));
    QVERIFY(m_view->banner()->isHidden());
}

void TestUsersView::lookUpByTokenFindsTheSameUser()
{
    search(UserTokens(m_config.tokenSalt).tokenFor(Regular));
    QCOMPARE(m_shown->size(), 1);
    QCOMPARE(m_shown->first().at(0).value<UserMonth>().uid, Regular);
    QCOMPARE(stateOf(march(4)), State::MakeUp);
}

void TestUsersView::previousMonthButtonShowsFebruary()
{
    search(QStringLiteral("4242"));
    auto *previous = m_view->findChild<QToolButton *>(QStringLiteral("previousMonthButton"));
    QVERIFY(previous);
    QTest::mouseClick(previous, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!m_view->isBusy(), AnswerTimeoutMs);
    QCOMPARE(m_shown->size(), 2);

    QCOMPARE(m_view->calendarModel()->month(), QDate(2025, 2, 1));
    QCOMPARE(m_view->calendarModel()->rowCount(), 5);  // February 2025: Saturday 1st to Friday 28th
    QCOMPARE(stateOf(QDate(2025, 2, 27)), State::Signed);
    QCOMPARE(stateOf(QDate(2025, 2, 28)), State::Signed);
    QCOMPARE(stateOf(QDate(2025, 2, 26)), State::Missed);
    QCOMPARE(figure("longest"), QStringLiteral("2"));
    QCOMPARE(figure("monthCount"), QStringLiteral("2"));
    QCOMPARE(figure("streak"), QStringLiteral("2"));  // the current streak: as of today

    // A past month offers no make-up (the window is the current month).
    m_view->selectDay(QDate(2025, 2, 26));
    QVERIFY(!m_view->summaryPanel()->makeupButton()->isEnabled());
}

void TestUsersView::pageKeysInTheCalendarTurnTheMonth()
{
    search(QStringLiteral("4242"));
    const QDate shown = m_view->calendarModel()->month();
    QTableView *calendar = m_view->calendarView();
    calendar->setFocus();
    QTRY_VERIFY(calendar->hasFocus());
    QTest::keyClick(calendar, Qt::Key_PageUp);
    QTRY_VERIFY_WITH_TIMEOUT(!m_view->isBusy() && m_view->calendarModel()->month() == shown.addMonths(-1), AnswerTimeoutMs);
    QTest::keyClick(calendar, Qt::Key_PageDown);
    QTRY_VERIFY_WITH_TIMEOUT(!m_view->isBusy() && m_view->calendarModel()->month() == shown, AnswerTimeoutMs);
}

void TestUsersView::readOnlyOffersNoMakeup()
{
    search(QStringLiteral("4242"));
    QPushButton *makeup = m_view->summaryPanel()->makeupButton();
    m_view->selectDay(march(6));  // missed, in the window
    QVERIFY(makeup->isEnabled());

    m_view->setReadOnly(true);
    QVERIFY(!makeup->isEnabled());
    QCOMPARE(makeup->toolTip(), lantern::ui::WriteAction::readOnlyReason());
    m_view->selectDay(march(6));  // choosing the day again does not enable it
    QVERIFY(!makeup->isEnabled());
    const QList<QLabel *> labels = m_view->summaryPanel()->findChildren<QLabel *>();
    QVERIFY(std::any_of(labels.cbegin(), labels.cend(), [](const QLabel *label) {
        return label->isVisible() && label->text() == lantern::ui::WriteAction::readOnlyReason();
    }));  // the panel says why, where the make-up hints go

    m_view->setReadOnly(false);
    m_view->selectDay(march(6));
    QVERIFY(makeup->isEnabled());
}

void TestUsersView::unknownQueryIsExplained()
{
    search(QStringLiteral("not a user"));
    QCOMPARE(m_failed->size(), 1);
    QVERIFY(!m_view->banner()->isHidden());
    QCOMPARE(m_view->banner()->kind(), MessageBanner::Kind::Error);
    QVERIFY2(m_view->banner()->text().contains(QStringLiteral("neither a user id nor a user token")), qPrintable(m_view->banner()->text()));

    // A uid nobody signed with (issue 24, point 10): shown, and said to have no check-ins at all.
    search(QStringLiteral("888888"));
    QCOMPARE(m_failed->size(), 1);
    QCOMPARE(m_view->banner()->kind(), MessageBanner::Kind::Information);
    QVERIFY2(m_view->banner()->text().contains(QStringLiteral("No check-ins are recorded for user 888888")), qPrintable(m_view->banner()->text()));
    search(QString::number(Regular));  // a user with check-ins: the note goes
    QVERIFY(m_view->banner()->isHidden());
}

void TestUsersView::grantMakeup(QDate day, const QString &reason, const QString &operatorName)
{
    QVERIFY(m_view->operatorIdentity()->setName(operatorName));
    m_view->selectDay(day);
    QPushButton *button = m_view->summaryPanel()->makeupButton();
    QVERIFY(button->isEnabled());
    QTest::mouseClick(button, Qt::LeftButton);
    MakeupDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = m_view->findChild<MakeupDialog *>()) != nullptr && dialog->isVisible());
    QCOMPARE(dialog->date(), day);
    QPushButton *ok = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    QVERIFY(!ok->isEnabled());  // no reason yet
    QCOMPARE(dialog->operatorName(), operatorName);  // the session's, not typed here
    QTest::keyClicks(dialog->reasonEdit(), reason);
    QVERIFY(ok->isEnabled());
    QTest::mouseClick(ok, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!m_view->isBusy(), AnswerTimeoutMs);
}

void TestUsersView::makeupFlowMarksTheDayAndUsesTheQuota()
{
    search(QStringLiteral("4242"));
    QCOMPARE(stateOf(march(6)), State::Missed);

    m_view->selectDay(march(20));  // today
    QVERIFY(!m_view->summaryPanel()->makeupButton()->isEnabled());
    m_view->selectDay(march(5));  // signed
    QVERIFY(!m_view->summaryPanel()->makeupButton()->isEnabled());

    grantMakeup(march(6), QStringLiteral("App outage"), QStringLiteral("alice"));
    QVERIFY(m_failed->isEmpty());
    QCOMPARE(stateOf(march(6)), State::MakeUp);
    QCOMPARE(figure("longest"), QStringLiteral("6"));
    QCOMPARE(m_view->banner()->kind(), MessageBanner::Kind::Positive);
    // The banner names the user (issue 24, point 7), and goes when another user is shown.
    QVERIFY2(m_view->banner()->text().contains(QStringLiteral("user 4242")), qPrintable(m_view->banner()->text()));
    search(QString::number(Raced));
    QVERIFY(m_view->banner()->isHidden());
    search(QStringLiteral("4242"));

    grantMakeup(march(7), QStringLiteral("Ticket 12"), QStringLiteral("alice"));
    QCOMPARE(stateOf(march(7)), State::MakeUp);
    QCOMPARE(figure("longest"), QStringLiteral("7"));

    // Three make-ups this month (4th, 6th, 7th): the quota is used up, and the view says so.
    m_view->selectDay(march(8));
    QVERIFY(!m_view->summaryPanel()->makeupButton()->isEnabled());
    const QLabel *hint = nullptr;
    for (const QLabel *label : m_view->summaryPanel()->findChildren<QLabel *>()) {
        if (label->text().contains(QStringLiteral("quota")))
            hint = label;
    }
    QVERIFY(hint);

    // The grants are audited in SQL with operator and reason (read here, on the test thread).
    SqlConnection sql(m_config.db);
    QSqlQuery audit = sql.exec(QStringLiteral("SELECT actor, detail FROM audit_log WHERE action = 'checkin.makeup' AND target = ? ORDER BY id"),
                               {QStringLiteral("uid:4242")});
    QStringList actors;
    while (audit.next())
        actors << audit.value(0).toString();
    QCOMPARE(actors, (QStringList{QStringLiteral("alice"), QStringLiteral("alice")}));
}

void TestUsersView::serverRefusalIsShownPlainly()
{
    search(QString::number(Raced));
    QCOMPARE(stateOf(march(10)), State::Missed);

    // Another operator uses up the quota after the view loaded the month.
    RedisClient redis(m_config.redis);
    const KeySchema keys(m_config.keyPrefix, m_config.shards);
    CheckinService service(redis, keys, m_config.checkin);
    for (int day : {3, 4, 5})
        service.makeup({Raced, march(day), QStringLiteral("bob"), QStringLiteral("elsewhere")}, Today, atMs(Today));

    grantMakeup(march(10), QStringLiteral("Late request"), QStringLiteral("alice"));
    QCOMPARE(m_failed->size(), 1);
    QCOMPARE(m_view->banner()->kind(), MessageBanner::Kind::Error);
    QVERIFY2(m_view->banner()->text().contains(QStringLiteral("quota of 3 make-up")), qPrintable(m_view->banner()->text()));
    QCOMPARE(stateOf(march(10)), State::Missed);

    // Refused: the audit row written in the same SQL transaction was rolled back.
    SqlConnection sql(m_config.db);
    QSqlQuery audit = sql.exec(QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE target = ?"), {QStringLiteral("uid:%1").arg(Raced)});
    QVERIFY(audit.next());
    QCOMPARE(audit.value(0).toInt(), 0);
}

LANTERN_WIDGET_TEST_SUITE(TestUsersView);

} // namespace tst_usersview

#include "tst_usersview.moc"
