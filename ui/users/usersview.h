#pragma once

#include "common/consoleview.h"
#include "console/common/dedicatedthread.h"
#include "console/users/usermonth.h"
#include "settings/config.h"

#include <QDate>
#include <QWidget>

#include <memory>
#include <optional>

class QHBoxLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTableView;
class QToolButton;

namespace lantern {
class CalendarModel;
class UserLookupService;
}

namespace lantern::ui {

class CalendarPane;
class MessageBanner;
class UserHistoryPanel;
class UserSummaryPanel;

/** The Users view: find a user by uid or public token, page through their months on a
    calendar, read their streak and points, and grant a make-up for a missed day.
    It never touches Redis or SQL: requests go to a UserLookupService on its own thread through
    queued signals, and only the newest answer is shown (each request carries a serial). */
class UsersView final : public ConsoleView {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(UsersView)

public:
    explicit UsersView(const CheckinRules &rules, QWidget *parent = nullptr);
    ~UsersView() override;

    /** Starts talking to `service`, which must live on another thread and outlive this view's
        use of it. Until then searching is disabled. */
    void setService(UserLookupService *service);

    QString viewName() const override { return QStringLiteral("users"); }
    QString title() const override { return tr("Users"); }
    /** Starts a UserLookupService on its own thread (owned by this view) and uses it. */
    void attachBackend(const Config &config) override;
    void prepareScreenshot(const ScreenshotRequest &request) override;
    /** While the backend starts (the sandbox): a message and the busy indicator. */
    void showStarting(const QString &message);
    void showStartupFailure(const QString &message, const QString &detail);

    /** Looks `query` (a uid or token) up and shows `month` (default: the month shown). */
    void lookUp(const QString &query, QDate month = {});
    /** Shows another month: of the same user when one is shown. */
    void showMonth(QDate month);
    void refresh() override;
    /** Stops waiting for the request that is out (its answer will be ignored). */
    void cancel();
    /** Opens the make-up dialog for the selected day, when the rules allow it. */
    void requestMakeup();
    /** Selects a day of the month shown. */
    void selectDay(QDate date);

    bool isBusy() const { return m_waitingFor != 0; }
    const std::optional<UserMonth> &shownUser() const { return m_user; }
    /** The day selected in the calendar; invalid: none. */
    QDate selectedDate() const;
    QVariantMap viewState() const override;
    void restoreViewState(const QVariantMap &state) override;
    QDate month() const { return m_month; }
    CalendarModel *calendarModel() const { return m_model; }
    QTableView *calendarView() const { return m_calendar; }
    MessageBanner *banner() const { return m_banner; }
    QToolButton *cancelButton() const { return m_cancelButton; }
    UserSummaryPanel *summaryPanel() const { return m_summary; }
    UserHistoryPanel *historyPanel() const { return m_historyPanel; }
    QLineEdit *searchField() const { return m_search; }

Q_SIGNALS:
    /** Requests for the service; connected to its slots by setService(). */
    void lookupRequested(quint64 serial, const QString &query, QDate month);
    void makeupRequested(quint64 serial, qint64 uid, QDate date, const QString &reason, const QString &operatorName);

    /** An answer is on screen. */
    void monthShown(const lantern::UserMonth &month);
    void busyChanged(bool busy);

protected:
    /** The side column keeps a third of the width as the window grows, until the operator moves
        the splitter. */
    void resizeEvent(QResizeEvent *event) override;
    void readOnlyChanged() override;
    void operatorChanged() override { updateMakeupAction(); }

private:
    void onMonthLoaded(quint64 serial, const UserMonth &month);
    void onLookupFailed(quint64 serial, const QString &message, const QString &detail);
    void onMakeupGranted(quint64 serial, QDate date, bool already, const UserMonth &month);
    void onMakeupFailed(quint64 serial, const QString &message, const QString &detail);

    quint64 nextSerial();
    void setWaitingFor(quint64 serial);
    void showUserMonth(const UserMonth &month);
    void stepMonth(int months);
    QHBoxLayout *buildSearchRow();
    void connectMonth();
    QHBoxLayout *buildColumns();
    void updateMonthTitle();
    void updateMakeupAction();
    QDate today() const;

    CheckinRules m_rules;
    std::unique_ptr<DedicatedThread<UserLookupService>> m_lookupThread;
    QDate m_screenshotDay;
    UserLookupService *m_service = nullptr;
    CalendarModel *m_model;
    std::optional<UserMonth> m_user;
    qint64 m_bannerUser = 0;  // the user the banner speaks of (a make-up), 0: none
    QSplitter *m_splitter = nullptr;
    bool m_sideChosen = false;  // the operator moved the splitter: its sizes stay theirs
    QDate m_restoredDay;      // selected again once the restored user's month is shown
    QDate m_month;
    QDate m_today;
    bool m_monthChosen = false;  // the month was picked (else it follows the backend's today)
    quint64 m_serial = 0;
    quint64 m_waitingFor = 0;

    QLineEdit *m_search;
    QPushButton *m_lookUpButton;
    QToolButton *m_refreshButton;
    QProgressBar *m_busy;
    QToolButton *m_cancelButton;
    MessageBanner *m_banner;
    CalendarPane *m_monthPane;
    QToolButton *m_previousButton;  // this and the four below: m_monthPane's
    QToolButton *m_nextButton;
    QPushButton *m_thisMonthButton;
    QLabel *m_monthTitle;
    QTableView *m_calendar;
    UserSummaryPanel *m_summary;
    UserHistoryPanel *m_historyPanel;
};

} // namespace lantern::ui
