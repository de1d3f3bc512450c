#include "users/usersview.h"

#include "users/calendarpane.h"
#include "console/users/calendarmodel.h"
#include "console/users/makeuppolicy.h"
#include "console/users/userlookupservice.h"
#include "users/makeupdialog.h"
#include "common/messagebanner.h"
#include "users/userhistorypanel.h"
#include "users/usersummarypanel.h"
#include "common/writeaction.h"

#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace lantern::ui {

namespace {

QDate firstOfMonth(QDate day)
{
    return QDate(day.year(), day.month(), 1);
}

} // namespace

UsersView::UsersView(const CheckinRules &rules, QWidget *parent)
    : ConsoleView(parent),
      m_rules(rules),
      m_model(new CalendarModel(this)),
      m_search(new QLineEdit(this)),
      m_lookUpButton(new QPushButton(tr("Look up"), this)),
      m_refreshButton(new QToolButton(this)),
      m_busy(new QProgressBar(this)),
      m_cancelButton(new QToolButton(this)),
      m_banner(new MessageBanner(this)),
      m_monthPane(new CalendarPane(m_model, m_search->sizeHint().height(), this)),
      m_previousButton(m_monthPane->previousButton()),
      m_nextButton(m_monthPane->nextButton()),
      m_thisMonthButton(m_monthPane->thisMonthButton()),
      m_monthTitle(m_monthPane->title()),
      m_calendar(m_monthPane->grid()),
      m_summary(new UserSummaryPanel(this)),
      m_historyPanel(new UserHistoryPanel(this))
{
    m_today = QDate::currentDate();
    m_month = firstOfMonth(m_today);
    m_model->setMonth(m_month, m_today);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 12, 16, 8);
    layout->setSpacing(8);
    layout->addLayout(buildSearchRow());
    layout->addWidget(m_banner);
    layout->addLayout(buildColumns(), 1);

    connectMonth();

    setFocusProxy(m_search);
    m_search->setEnabled(false);
    m_lookUpButton->setEnabled(false);
    m_refreshButton->setEnabled(false);
    updateMonthTitle();
}

/** The look-up field, its buttons, and the busy bar with its Cancel. */
QHBoxLayout *UsersView::buildSearchRow()
{
    m_search->setPlaceholderText(tr("User id or token, e.g. 10001"));
    m_search->setClearButtonEnabled(true);
    m_search->setMaxLength(64);
    m_lookUpButton->setDefault(true);
    m_refreshButton->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
    m_refreshButton->setToolTip(tr("Read the shown month again (F5)"));
    m_refreshButton->setShortcut(QKeySequence::Refresh);
    m_busy->setRange(0, 0);
    m_busy->setTextVisible(false);
    m_busy->setFixedWidth(96);
    m_busy->setFixedHeight(m_search->sizeHint().height() / 3);
    m_busy->setToolTip(tr("Waiting for Redis and the database…"));
    m_busy->setVisible(false);
    m_cancelButton->setText(tr("Cancel"));
    m_cancelButton->setToolTip(tr("Stop waiting for this answer (Esc)"));
    m_cancelButton->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancelButton->setVisible(false);
    connect(m_cancelButton, &QToolButton::clicked, this, &UsersView::cancel);
    m_search->setMinimumWidth(m_search->fontMetrics().averageCharWidth() * 36);
    auto *searchRow = new QHBoxLayout;
    searchRow->addWidget(m_search, 2);
    searchRow->addWidget(m_lookUpButton);
    searchRow->addWidget(m_refreshButton);
    searchRow->addWidget(m_busy);
    searchRow->addWidget(m_cancelButton);
    searchRow->addStretch(3);
    connect(m_search, &QLineEdit::returnPressed, this, [this] { lookUp(m_search->text()); });
    connect(m_lookUpButton, &QPushButton::clicked, this, [this] { lookUp(m_search->text()); });
    connect(m_refreshButton, &QToolButton::clicked, this, &UsersView::refresh);
    return searchRow;
}

/** The month's navigation above the calendar grid, the grid's selection and double click. */
void UsersView::connectMonth()
{
    connect(m_previousButton, &QToolButton::clicked, this, [this] { stepMonth(-1); });
    connect(m_nextButton, &QToolButton::clicked, this, [this] { stepMonth(1); });
    connect(m_thisMonthButton, &QPushButton::clicked, this, [this] { showMonth(today()); });
    connect(m_calendar->selectionModel(), &QItemSelectionModel::selectionChanged, this, &UsersView::updateMakeupAction);
    connect(m_calendar, &QTableView::doubleClicked, this, &UsersView::requestMakeup);
    connect(m_model, &QAbstractItemModel::modelReset, this, &UsersView::updateMakeupAction);
}

/** The month on the left; the summary and the history on the right, in a splitter. */
QHBoxLayout *UsersView::buildColumns()
{
    // The side column starts at a third of the width (never under 54 characters, where the
    // summary's figures fit) and the splitter lets the operator widen it, e.g. for the
    // check-in history's Reason column.
    const int sideMinimum = m_summary->fontMetrics().averageCharWidth() * 54;
    m_summary->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    connect(m_summary, &UserSummaryPanel::makeupClicked, this, &UsersView::requestMakeup);
    auto *side = new QWidget(this);
    side->setMinimumWidth(sideMinimum);
    auto *sideColumn = new QVBoxLayout(side);
    sideColumn->setContentsMargins(0, 0, 0, 0);
    sideColumn->setSpacing(8);
    sideColumn->addWidget(m_summary);
    sideColumn->addWidget(m_historyPanel, 1);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("usersSplitter"));
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(m_monthPane);
    splitter->addWidget(side);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 1);
    m_splitter = splitter;
    connect(splitter, &QSplitter::splitterMoved, this, [this] { m_sideChosen = true; });
    auto *content = new QHBoxLayout;
    content->addWidget(splitter);
    return content;
}

UsersView::~UsersView() = default;

void UsersView::attachBackend(const Config &config)
{
    m_lookupThread = std::make_unique<DedicatedThread<UserLookupService>>(QStringLiteral("user-lookup"), config);
    setService(m_lookupThread->get());
}

void UsersView::prepareScreenshot(const ScreenshotRequest &request)
{
    if (request.user.isEmpty()) {
        if (request.month.isValid())
            showMonth(request.month);
        Q_EMIT screenshotReady();
        return;
    }
    m_screenshotDay = request.day;
    auto *const once = new QObject(this);
    connect(this, &UsersView::monthShown, once, [this, once] {
        delete once;
        if (m_screenshotDay.isValid())
            selectDay(m_screenshotDay);
        Q_EMIT screenshotReady();
    });
    connect(this, &UsersView::failed, once, [this, once](const QString &message) {
        delete once;
        Q_EMIT screenshotFailed(message);
    });
    lookUp(request.user, request.month.isValid() ? request.month : request.day);
}

void UsersView::setService(UserLookupService *service)
{
    m_service = service;
    // Queued both ways: the service lives on its own thread.
    connect(this, &UsersView::lookupRequested, service, &UserLookupService::lookup, Qt::QueuedConnection);
    connect(this, &UsersView::makeupRequested, service, &UserLookupService::makeup, Qt::QueuedConnection);
    connect(service, &UserLookupService::monthLoaded, this, &UsersView::onMonthLoaded, Qt::QueuedConnection);
    connect(service, &UserLookupService::lookupFailed, this, &UsersView::onLookupFailed, Qt::QueuedConnection);
    connect(service, &UserLookupService::makeupGranted, this, &UsersView::onMakeupGranted, Qt::QueuedConnection);
    connect(service, &UserLookupService::makeupFailed, this, &UsersView::onMakeupFailed, Qt::QueuedConnection);
    m_today = service->config().today();  // the backend's business day (--today) rules
    if (!m_monthChosen)
        m_month = firstOfMonth(m_today);
    if (!m_user) {
        m_model->setMonth(m_month, m_today);
        updateMonthTitle();
    }
    m_search->setEnabled(true);
    m_lookUpButton->setEnabled(true);
    m_refreshButton->setEnabled(true);
    m_banner->clear();
    m_busy->setVisible(false);
    m_search->setFocus();
}

void UsersView::showStarting(const QString &message)
{
    m_banner->showMessage(MessageBanner::Kind::Information, message);
    m_busy->setVisible(true);
}

void UsersView::showStartupFailure(const QString &message, const QString &detail)
{
    m_busy->setVisible(false);
    m_banner->showMessage(MessageBanner::Kind::Error, message, detail);
}

QDate UsersView::today() const
{
    return m_service ? m_service->config().today() : m_today;
}

quint64 UsersView::nextSerial()
{
    return ++m_serial;
}

void UsersView::setWaitingFor(quint64 serial)
{
    const bool wasBusy = isBusy();
    m_waitingFor = serial;
    m_busy->setVisible(isBusy());
    m_cancelButton->setVisible(isBusy());
    if (wasBusy != isBusy())
        Q_EMIT busyChanged(isBusy());
}

void UsersView::cancel()
{
    if (!isBusy())
        return;
    // The service thread may still be blocked on a stalled server; its late answer carries an
    // old serial and is dropped. Its own timeout (RedisOptions) frees it.
    setWaitingFor(0);
    m_banner->showMessage(MessageBanner::Kind::Information, tr("Cancelled. The last answer shown stays on screen."));
}

void UsersView::lookUp(const QString &query, QDate month)
{
    const QString text = query.trimmed();
    if (!m_service || text.isEmpty())
        return;
    if (m_search->text().trimmed() != text)
        m_search->setText(text);
    // Another user opens on this month, not on the month the previous one was left at.
    if (!month.isValid() && m_user && text != QString::number(m_user->uid))
        month = today();
    const quint64 serial = nextSerial();
    setWaitingFor(serial);
    Q_EMIT lookupRequested(serial, text, firstOfMonth(month.isValid() ? month : m_month));
}

void UsersView::showMonth(QDate month)
{
    m_monthChosen = true;
    m_month = firstOfMonth(month);
    updateMonthTitle();
    if (m_user && m_service) {
        const quint64 serial = nextSerial();
        setWaitingFor(serial);
        Q_EMIT lookupRequested(serial, QString::number(m_user->uid), m_month);
    } else {
        m_model->setMonth(m_month, today());
    }
}

void UsersView::stepMonth(int months)
{
    showMonth(m_month.addMonths(months));
}

void UsersView::refresh()
{
    if (m_user)
        showMonth(m_month);
    else if (!m_search->text().trimmed().isEmpty())
        lookUp(m_search->text());
}

void UsersView::onMonthLoaded(quint64 serial, const UserMonth &month)
{
    if (serial != m_waitingFor)
        return;  // superseded by a newer request
    setWaitingFor(0);
    m_banner->readSucceeded();
    showUserMonth(month);
    const bool nothing = month.signedDays.isEmpty() && month.recentCheckins.isEmpty()
                         && std::all_of(month.history.cbegin(), month.history.cend(), [](const MonthFigure &figure) { return figure.signedDays == 0; });
    if (nothing) {
        // Lantern keeps no list of users: a uid nobody uses looks like a user who never signed.
        m_banner->showMessage(MessageBanner::Kind::Information,
                              tr("No check-ins are recorded for user %1 in the last six months: a new user, or a uid nobody uses.").arg(month.uid));
        m_bannerUser = month.uid;
    }
    Q_EMIT monthShown(month);
    Q_EMIT dataRead(ServerStatus::both(), month.loadedAt);
}

void UsersView::onLookupFailed(quint64 serial, const QString &message, const QString &detail)
{
    if (serial != m_waitingFor)
        return;
    setWaitingFor(0);
    m_banner->showReadFailure(message, detail);
    Q_EMIT failed(message);
}

void UsersView::onMakeupGranted(quint64 serial, QDate date, bool already, const UserMonth &month)
{
    if (serial != m_waitingFor)
        return;
    setWaitingFor(0);
    showUserMonth(month);
    selectDay(date);
    const QString day = QLocale().toString(date, QLocale::LongFormat);
    if (already)
        m_banner->showMessage(MessageBanner::Kind::Information, tr("User %1 had signed %2 meanwhile; nothing changed.").arg(month.uid).arg(day));
    else
        m_banner->showMessage(MessageBanner::Kind::Positive, tr("Make-up granted to user %1 for %2.").arg(month.uid).arg(day));
    m_bannerUser = month.uid;  // it speaks of this user: it goes when another is shown
    Q_EMIT monthShown(month);
    Q_EMIT dataRead(ServerStatus::both(), month.loadedAt);
}

void UsersView::onMakeupFailed(quint64 serial, const QString &message, const QString &detail)
{
    if (serial != m_waitingFor)
        return;
    setWaitingFor(0);
    m_banner->showMessage(MessageBanner::Kind::Error, message, detail);
    Q_EMIT failed(message);
}

void UsersView::showUserMonth(const UserMonth &month)
{
    const QDate selected = selectedDate();
    if (m_bannerUser != 0 && m_bannerUser != month.uid) {
        m_banner->clear();
        m_bannerUser = 0;
    }
    m_user = month;
    m_month = month.month;
    m_today = month.today;
    m_model->setMarks(month.month, month.today, month.signedDays, month.makeupDays);
    m_summary->showUser(month, m_rules.makeupQuota);
    m_historyPanel->showUser(month);
    if (m_restoredDay.isValid())
        selectDay(std::exchange(m_restoredDay, QDate()));
    else if (selected.isValid())
        selectDay(selected);
    updateMonthTitle();
    updateMakeupAction();
}

void UsersView::resizeEvent(QResizeEvent *event)
{
    ConsoleView::resizeEvent(event);
    if (m_sideChosen || !m_splitter)
        return;
    const int width = m_splitter->width();
    m_splitter->setSizes({width - width / 3, width / 3});
}

QVariantMap UsersView::viewState() const
{
    QVariantMap state;
    state.insert(QStringLiteral("user"), m_user ? QString::number(m_user->uid) : m_search->text().trimmed());
    state.insert(QStringLiteral("month"), m_month);
    state.insert(QStringLiteral("day"), selectedDate());
    return state;
}

void UsersView::restoreViewState(const QVariantMap &state)
{
    const QString user = state.value(QStringLiteral("user")).toString();
    const QDate month = state.value(QStringLiteral("month")).toDate();
    if (user.isEmpty()) {
        if (month.isValid())
            showMonth(month);
        return;
    }
    m_restoredDay = state.value(QStringLiteral("day")).toDate();
    lookUp(user, month);
}

void UsersView::selectDay(QDate date)
{
    const QModelIndex index = m_model->indexOf(date);
    if (index.isValid())
        m_calendar->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect);
    else
        m_calendar->selectionModel()->clear();
    updateMakeupAction();
}

QDate UsersView::selectedDate() const
{
    const QModelIndexList selected = m_calendar->selectionModel()->selectedIndexes();
    return selected.isEmpty() ? QDate() : m_model->dateAt(selected.first());
}

void UsersView::updateMonthTitle()
{
    //: How the month above the calendar is written, as a QDate format (e.g. "yyyy年M月").
    m_monthTitle->setText(QLocale().toString(m_month, tr("MMMM yyyy")));
}

void UsersView::updateMakeupAction()
{
    if (!m_user) {
        m_summary->setSelectedDay({});
        m_summary->setMakeupAvailable(false, {});
        return;
    }
    const MakeupPolicy policy(m_rules);
    const QDate day = selectedDate();
    const auto state = m_model->stateOf(day);
    const bool signedDay = state == CalendarModel::DayState::Signed || state == CalendarModel::DayState::MakeUp;
    const int used = static_cast<int>(m_user->makeupDays.size());
    m_summary->setSelectedDay(day.isValid() ? QStringLiteral("<b>%1</b><br>%2").arg(QLocale().toString(day, QLocale::LongFormat).toHtmlEscaped(),
                                                                                      CalendarModel::stateName(state).toHtmlEscaped())
                                            : QString());
    QString hint;
    switch (policy.check(day, m_today, signedDay, used)) {
    case MakeupBlock::None:
        if (isReadOnly()) {
            hint = WriteAction::readOnlyReason();
            break;
        }
        m_summary->setMakeupAvailable(true, tr("Grant a make-up for %1.").arg(QLocale().toString(day, QLocale::LongFormat)));
        return;
    case MakeupBlock::NoDay:
        hint = tr("Select a missed day in the calendar to grant a make-up.");
        break;
    case MakeupBlock::NotPast:
        hint = tr("Make-ups are for past days only.");
        break;
    case MakeupBlock::AlreadySigned:
        hint = tr("This day is already signed.");
        break;
    case MakeupBlock::OutsideWindow:
        hint = policy.windowDays() == 0 ? tr("Only days of the current month can be made up.")
                                        : tr("Only the last %n day(s) can be made up.", nullptr, policy.windowDays());
        break;
    case MakeupBlock::QuotaUsed:
        hint = tr("This month's quota of %n make-up(s) is used up.", nullptr, policy.quota());
        break;
    }
    m_summary->setMakeupAvailable(false, hint);
}

void UsersView::readOnlyChanged()
{
    updateMakeupAction();
    QPushButton *makeup = m_summary->makeupButton();
    WriteAction::setAllowed(makeup, makeup->isEnabled(), isReadOnly(), {}, operatorIdentity(), access::Action::Makeup);
}

void UsersView::requestMakeup()
{
    if (!m_user || !m_service || isBusy() || isReadOnly())
        return;
    const QDate day = selectedDate();
    const auto state = m_model->stateOf(day);
    const bool signedDay = state == CalendarModel::DayState::Signed || state == CalendarModel::DayState::MakeUp;
    if (MakeupPolicy(m_rules).check(day, m_today, signedDay, static_cast<int>(m_user->makeupDays.size())) != MakeupBlock::None)
        return;
    if (!operatorIdentity()->ensure(this))
        return;
    auto *dialog = new MakeupDialog(m_user->uid, day, operatorIdentity()->name(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const quint64 serial = nextSerial();
        setWaitingFor(serial);
        Q_EMIT makeupRequested(serial, dialog->uid(), dialog->date(), dialog->reason(), dialog->operatorName());
    });
    dialog->open();
}

} // namespace lantern::ui
