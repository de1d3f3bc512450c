#include "shell/mainwindow.h"

#include "alerts/alertcenter.h"
#include "audit/auditview.h"
#include "campaigns/campaignsview.h"
#include "checkinstats/checkinstatsview.h"
#include "connections/connectionsview.h"
#include "console/common/serverstatus.h"
#include "common/consoletheme.h"
#include "shell/operatoridentity.h"
#include "queues/queuesview.h"
#include "recovery/recoveryview.h"
#include "common/tableactions.h"
#include "users/usersview.h"
#include "common/viewscroller.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSpinBox>
#include <QScreen>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTableView>
#include <QTreeView>
#include <QToolBar>
#include <QToolButton>

namespace lantern::ui {

namespace {

constexpr int Intervals[] = {0, 2, 5, 10, 30, 60};

} // namespace

MainWindow::MainWindow(const CheckinRules &rules, OperatorIdentity *identity, QWidget *parent)
    : QMainWindow(parent),
      m_users(new UsersView(rules, this)),
      m_navigation(new QListWidget(this)),
      m_stack(new QStackedWidget(this)),
      m_interval(new QComboBox(this)),
      m_pause(new QToolButton(this)),
      m_crowdRate(new QSpinBox(this)),
      m_mode(new QLabel(this)),
      m_readOnly(new QLabel(this)),
      m_connection(new QLabel(this)),
      m_worker(new QLabel(this)),
      m_refreshed(new QLabel(this)),
      m_latency(new QLabel(this)),
      m_status(new ServerStatus(this)),
      m_operator(identity ? identity : new OperatorIdentity(this)),
      m_operatorButton(new QToolButton(this)),
      m_alerts(new AlertCenter(this))
{
    buildLayout();
    addViews();
    buildAlerts();
    QAction *refreshNow = buildMenus();
    buildRefreshToolbar(refreshNow);
    buildStatusBar();
    wireViews();

    m_navigation->setCurrentRow(0);
    setRefreshPaused(false);
    // Or the screen's available area when it is smaller (a 1366×768 laptop).
    QSize size = DefaultSize;
    if (const QScreen *screen = this->screen())
        size = size.boundedTo(screen->availableGeometry().size());
    resize(size);
}

/** The navigation list on the left; the alerts' bar above the stack of views on the right. */
void MainWindow::buildLayout()
{
    auto *central = new QWidget(this);
    auto *layout = new QHBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_navigation->setObjectName(QStringLiteral("navigation"));
    m_navigation->setFixedWidth(150);
    m_navigation->setIconSize(QSize(20, 20));
    m_navigation->setFrameShape(QFrame::NoFrame);
    m_navigation->setStyleSheet(QStringLiteral("QListWidget#navigation { background: palette(window); border-right: 1px solid palette(mid); }"
                                               "QListWidget#navigation::item { padding: 8px 6px; }"));
    layout->addWidget(m_navigation);
    // The console's alerts above whichever view is shown (issue 27).
    auto *content = new QVBoxLayout;
    content->setContentsMargins(0, 0, 0, 0);
    content->setSpacing(0);
    content->addWidget(m_alerts->bar());
    content->addWidget(m_stack, 1);
    layout->addLayout(content, 1);
    setCentralWidget(central);
}

void MainWindow::addViews()
{
    addView(m_users, QStringLiteral("user-identity"));
    addView(new CampaignsView(this), QStringLiteral("mail-send"));
    addView(new QueuesView(this), QStringLiteral("view-list-details"));
    addView(new RecoveryView(this), QStringLiteral("view-refresh"));
    addView(new AuditView(this), QStringLiteral("document-open-recent"));
    addView(new CheckinStatsView(this), QStringLiteral("office-chart-bar"));
    addView(new ConnectionsView(this), QStringLiteral("network-server"));
    connect(m_navigation, &QListWidget::currentRowChanged, this, &MainWindow::onViewChanged);
}

/** File, View (the views, alerts, refresh, theme), Language and Help; returns "Refresh now",
    which the toolbar shows too. */
QAction *MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("Set &operator name…"), this, [this] { m_operator->ask(this); });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    QMenu *viewMenu = menuBar()->addMenu(tr("&View"));
    for (int row = 0; row < m_views.size(); ++row) {
        QAction *action = viewMenu->addAction(m_views.at(row)->title(), this, [this, row] { m_navigation->setCurrentRow(row); });
        action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + row)));
    }
    viewMenu->addSeparator();
    viewMenu->addAction(tr("&Alerts…"), this, [this] { m_alerts->editThresholds(this); });
    QAction *refreshNow = viewMenu->addAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("&Refresh now"), QKeySequence::Refresh, this,
                                              &MainWindow::refreshCurrent);
    // One checkable choice of a menu whose choices exclude each other; `chosen` emits it.
    const auto addChoice = [this](QMenu *menu, QActionGroup *group, const QString &text, const QString &value, bool checked,
                                  void (MainWindow::*chosen)(const QString &)) {
        QAction *action = menu->addAction(text, this, [this, value, chosen] { Q_EMIT(this->*chosen)(value); });
        action->setData(value);
        action->setCheckable(true);
        action->setChecked(checked);
        group->addAction(action);
    };
    QMenu *theme = viewMenu->addMenu(tr("&Theme"));
    auto *themes = new QActionGroup(this);
    const QString chosenTheme = ConsoleTheme::nameOf(ConsoleTheme::saved());
    const auto addTheme = [&](const QString &text, const QString &name) {
        addChoice(theme, themes, text, name, name == chosenTheme, &MainWindow::themeChosen);
    };
    addTheme(tr("Follow the system"), QStringLiteral("system"));
    addTheme(tr("Light"), QStringLiteral("light"));
    addTheme(tr("Dark"), QStringLiteral("dark"));
    QMenu *language = menuBar()->addMenu(tr("&Language"));
    auto *languages = new QActionGroup(this);
    const QString chosenLanguage = QSettings().value(QStringLiteral("console/language")).toString();  // "": the system's
    const auto addLanguage = [&](const QString &text, const QString &code) {
        addChoice(language, languages, text, code, code == chosenLanguage, &MainWindow::languageChosen);
    };
    addLanguage(tr("System language"), QString());
    // Each language also under its own name, so that someone who cannot read the current one
    // still finds theirs.
    addLanguage(tr("English", "the English language, keep its own name"), QStringLiteral("en"));
    addLanguage(tr("Chinese (Simplified) — 简体中文", "the Chinese language, in its own name"), QStringLiteral("zh_CN"));
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Lantern"), this, [this] {
        QMessageBox::about(this, tr("About Lantern"),
                           tr("<b>Lantern Console</b> %1<br>Daily check-in and red-envelope campaigns on Redis and SQL.")
                                   .arg(QApplication::applicationVersion()));
    });
    return refreshNow;
}

void MainWindow::buildRefreshToolbar(QAction *refreshNow)
{
    // Auto-refresh: the interval is always visible and can be paused.
    QToolBar *toolbar = addToolBar(tr("Refresh"));
    toolbar->setObjectName(QStringLiteral("refreshToolbar"));
    toolbar->setMovable(false);
    toolbar->addAction(refreshNow);
    auto *intervalLabel = new QLabel(tr("Auto-refresh:"), this);
    intervalLabel->setContentsMargins(8, 0, 4, 0);
    toolbar->addWidget(intervalLabel);
    for (const int seconds : Intervals)
        m_interval->addItem(seconds == 0 ? tr("Off") : tr("every %n s", nullptr, seconds), seconds);
    m_interval->setCurrentIndex(m_interval->findData(m_refreshSeconds));
    toolbar->addWidget(m_interval);
    m_pause->setCheckable(true);
    m_pause->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->addWidget(m_pause);
    // The sandbox's simulated crowd grabs from every live campaign, so a launch can be rehearsed.
    auto *crowd = new QWidget(this);
    auto *crowdLayout = new QHBoxLayout(crowd);
    crowdLayout->setContentsMargins(16, 0, 0, 0);
    auto *crowdLabel = new QLabel(tr("Sandbox crowd:"), crowd);
    crowdLabel->setBuddy(m_crowdRate);
    m_crowdRate->setObjectName(QStringLiteral("crowdRate"));
    m_crowdRate->setRange(0, 500);
    m_crowdRate->setSuffix(tr(" grabs/s"));
    m_crowdRate->setSpecialValueText(tr("off"));
    m_crowdRate->setToolTip(tr("Simulated users grab this many envelopes per second from every live campaign of the sandbox, "
                               "including the ones you create and launch."));
    crowdLayout->addWidget(crowdLabel);
    crowdLayout->addWidget(m_crowdRate);
    m_crowdRateAction = toolbar->addWidget(crowd);
    m_crowdRateAction->setVisible(false);
    connect(m_crowdRate, &QSpinBox::valueChanged, this, &MainWindow::crowdRateChosen);
    connect(m_interval, &QComboBox::currentIndexChanged, this, [this] { setRefreshInterval(m_interval->currentData().toInt()); });
    connect(m_pause, &QToolButton::toggled, this, &MainWindow::setRefreshPaused);
    connect(&m_refreshTimer, &QTimer::timeout, this, [this] {
        if (ConsoleView *view = currentView(); view && view->wantsAutoRefresh())
            view->refresh();
    });
}

/** Mode, read-only badge, operator, connection; worker, latency and last refresh on the right. */
void MainWindow::buildStatusBar()
{
    m_mode->setContentsMargins(6, 0, 6, 0);
    m_connection->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_worker->setContentsMargins(6, 0, 6, 0);
    statusBar()->addWidget(m_mode);
    m_readOnly->setObjectName(QStringLiteral("readOnlyBadge"));
    m_readOnly->setText(tr("Read-only"));
    m_readOnly->setToolTip(tr("This connection refuses every change: look-ups and views work, make-ups, campaign actions, "
                              "dead-letter and recovery actions are disabled."));
    m_readOnly->setStyleSheet(ConsoleTheme::pillStyle(ConsoleTheme::Tone::Error, QStringLiteral("padding: 1px 6px; font-weight: 600;")));
    m_readOnly->setVisible(false);
    statusBar()->addWidget(m_readOnly);
    m_operatorButton->setObjectName(QStringLiteral("operatorButton"));
    m_operatorButton->setAutoRaise(true);
    m_operatorButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    connect(m_operatorButton, &QToolButton::clicked, this, [this] { m_operator->ask(this); });
    connect(m_operator, &OperatorIdentity::changed, this, &MainWindow::showOperator);
    statusBar()->addWidget(m_operatorButton);
    showOperator();
    statusBar()->addWidget(m_connection, 1);
    statusBar()->addPermanentWidget(m_worker);
    statusBar()->addPermanentWidget(m_latency);
    statusBar()->addPermanentWidget(m_refreshed);
    m_latency->setObjectName(QStringLiteral("serverState"));
    m_worker->setObjectName(QStringLiteral("workerState"));
    m_refreshed->setObjectName(QStringLiteral("lastRefresh"));
}

/** What every view shares: table actions, the operator, and the server status they report to. */
void MainWindow::wireViews()
{
    if (auto *connections = qobject_cast<ConnectionsView *>(view(QStringLiteral("connections")))) {
        connect(connections, &ConnectionsView::latencyMeasured, m_status,
                [this](double redisMs, double sqlMs, const QString &redisStatus, const QDateTime &sentAt) {
                    m_status->recordProbe(sentAt, redisMs, sqlMs, redisStatus);
                });
        connect(&m_latencyTimer, &QTimer::timeout, connections, &ConnectionsView::refresh);
    }
    for (ConsoleView *view : std::as_const(m_views)) {
        // Every table and tree (the calendar's month grid aside) copies its rows and exports CSV.
        for (QAbstractItemView *items : view->findChildren<QAbstractItemView *>()) {
            if ((qobject_cast<QTableView *>(items) || qobject_cast<QTreeView *>(items)) && items != m_users->calendarView())
                TableActions::install(items, view->viewName());
        }
        view->setOperatorIdentity(m_operator);
        connect(view, &ConsoleView::dataRead, m_status, [this, view](ServerStatus::Servers servers, const QDateTime &at) {
            m_status->recordAnswer(servers, at, view == currentView());
        });
        connect(view, &ConsoleView::failed, this, &MainWindow::probeServers);
    }
    connect(m_status, &ServerStatus::changed, this, &MainWindow::showServerStatus);
    m_connection->setText(tr("Not connected yet"));
    showServerStatus();
}

MainWindow::~MainWindow() = default;

bool MainWindow::event(QEvent *event)
{
    if (event->type() == QEvent::StatusTip)
        return true;
    return QMainWindow::event(event);
}

void MainWindow::buildAlerts()
{
    // The alerts read what the Queues view reads anyway (it samples while hidden too).
    QHash<QString, QString> titles;
    for (ConsoleView *view : std::as_const(m_views))
        titles.insert(view->viewName(), view->title());
    m_alerts->setViewTitles(titles);
    if (auto *queues = qobject_cast<QueuesView *>(view(QStringLiteral("queues"))))
        connect(queues, &QueuesView::loaded, m_alerts->monitor(), &ConsoleAlertMonitor::observe);
    connect(m_alerts, &AlertCenter::openView, this, [this](const QString &name) {
        showView(name);
        showNormal();
        raise();
        activateWindow();
    });
}

void MainWindow::addView(ConsoleView *view, const QString &iconName)
{
    m_views << view;
    // In a scroll area: a window smaller than a view's minimum (a 1366×768 laptop, 2× scaling)
    // scrolls the view instead of growing past the screen, and a view that needs a line more
    // (a selected missed day's hint) never resizes the window under the operator's pointer.
    auto *scroll = new ViewScroller(view, m_stack);
    scroll->setObjectName(view->viewName() + QStringLiteral("Scroll"));
    m_stack->addWidget(scroll);
    auto *item = new QListWidgetItem(QIcon::fromTheme(iconName), view->title(), m_navigation);
    item->setData(Qt::UserRole, view->viewName());
    connect(view, &ConsoleView::openView, this, &MainWindow::showView);
}

ConsoleView *MainWindow::view(const QString &name) const
{
    for (ConsoleView *candidate : m_views) {
        if (candidate->viewName() == name)
            return candidate;
    }
    return nullptr;
}

ConsoleView *MainWindow::currentView() const
{
    const int index = m_stack->currentIndex();
    return index >= 0 && index < m_views.size() ? m_views.at(index) : nullptr;
}

bool MainWindow::showView(const QString &name)
{
    ConsoleView *target = view(name);
    if (!target)
        return false;
    m_navigation->setCurrentRow(int(m_views.indexOf(target)));
    return true;
}

void MainWindow::onViewChanged(int row)
{
    if (row < 0 || row >= m_views.size())
        return;
    m_stack->setCurrentIndex(row);
    setWindowTitle(tr("Lantern Console — %1").arg(m_views.at(row)->title()));
    if (m_attached)
        m_views.at(row)->refresh();
}

void MainWindow::refreshCurrent()
{
    if (ConsoleView *view = currentView())
        view->refresh();
}

void MainWindow::setRefreshInterval(int seconds)
{
    m_refreshSeconds = std::max(0, seconds);
    const int index = m_interval->findData(m_refreshSeconds);
    if (index >= 0 && index != m_interval->currentIndex())
        m_interval->setCurrentIndex(index);
    updateRefreshTimer();
}

void MainWindow::setRefreshPaused(bool paused)
{
    m_paused = paused;
    if (m_pause->isChecked() != paused)
        m_pause->setChecked(paused);
    m_pause->setText(paused ? tr("Resume") : tr("Pause"));
    m_pause->setIcon(ConsoleTheme::standardIcon(this, paused ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));
    m_pause->setToolTip(paused ? tr("Auto-refresh is paused: what you see stays as it is.") : tr("Pause auto-refresh"));
    updateRefreshTimer();
}

void MainWindow::updateRefreshTimer()
{
    m_pause->setEnabled(m_refreshSeconds > 0);
    if (m_refreshSeconds > 0 && !m_paused)
        m_refreshTimer.start(m_refreshSeconds * 1000);
    else
        m_refreshTimer.stop();
}

void MainWindow::setConnection(const Config &config, bool sandbox)
{
    m_mode->setText(sandbox ? tr("Sandbox") : tr("Servers"));
    m_mode->setStyleSheet(ConsoleTheme::pillStyle(sandbox ? ConsoleTheme::Tone::Warning : ConsoleTheme::Tone::Information));
    m_mode->setToolTip(sandbox ? tr("A private Redis and an SQLite file with demo data; nothing here reaches production.")
                               : tr("Connected to the Redis and SQL servers given on the command line."));
    const QString redis = config.redis.redacted();
    const QString db = config.db.redacted();
    // Cut in the middle when long (a sandbox's file path), so the worker and latency figures
    // beside it keep their room; the tooltip has them whole.
    const int room = m_connection->fontMetrics().averageCharWidth() * 36;
    m_connection->setText(tr("Redis %1 · SQL %2")
                                  .arg(m_connection->fontMetrics().elidedText(redis, Qt::ElideMiddle, room),
                                       m_connection->fontMetrics().elidedText(db, Qt::ElideMiddle, room)));
    m_readOnly->setVisible(config.readOnly);
    m_connection->setToolTip(tr("Redis: %1\nSQL: %2").arg(redis, db));
    if (auto *connections = qobject_cast<ConnectionsView *>(view(QStringLiteral("connections"))))
        connections->setSandboxSession(sandbox);
    m_crowdRateAction->setVisible(sandbox);
    m_alerts->setProfile(config.profile);
}

void MainWindow::setCrowdRate(int grabsPerSecond)
{
    const QSignalBlocker blocker(m_crowdRate);
    m_crowdRate->setValue(grabsPerSecond);
}

void MainWindow::attachBackend(const Config &config)
{
    for (ConsoleView *view : std::as_const(m_views)) {
        view->setReadOnly(config.readOnly);
        view->attachBackend(config);
    }
    m_attached = true;
    showServerStatus();
    if (ConsoleView *connections = view(QStringLiteral("connections"))) {
        connections->refresh();  // the first latency figures now, then every 15 s
        m_latencyTimer.start(15000);
    }
}

void MainWindow::setWorkerStatus(const QString &text, bool trouble, const QString &detail)
{
    m_status->recordWorker(text, trouble, detail);
}

void MainWindow::probeServers()
{
    if (!m_attached)
        return;
    if (ConsoleView *connections = view(QStringLiteral("connections")))
        connections->refresh();  // ignored while a probe is out
}

void MainWindow::showServerStatus()
{
    const auto server = [this](const ServerStatus::State &state) {
        if (!state.known)
            return tr("…", "a server not heard from yet");
        if (!state.up)
            return state.problem;
        if (state.ms < 0)
            return tr("up");
        return tr("%1 ms").arg(state.ms, 0, 'f', state.ms < 10 ? 1 : 0);
    };
    const ServerStatus::State redis = m_status->redis();
    const ServerStatus::State sql = m_status->sql();
    m_latency->setText(tr("Redis %1 · SQL %2").arg(server(redis), server(sql)));
    const auto heard = [](const ServerStatus::State &state) {
        return state.known ? state.heardAt.time().toString(u"HH:mm:ss") : QStringLiteral("—");
    };
    m_latency->setToolTip(tr("Redis and SQL as last heard of (Redis at %1, SQL at %2): every answer a view gets counts, and a PING "
                             "and a SELECT 1 measure the round trips every 15 seconds and whenever a request fails.")
                                  .arg(heard(redis), heard(sql)));
    const bool down = (redis.known && !redis.up) || (sql.known && !sql.up);
    m_latency->setStyleSheet(down ? QStringLiteral("QLabel { color: %1; }").arg(ConsoleTheme::errorText()) : QString());
    m_latency->setVisible(m_attached);

    m_worker->setText(m_status->workerText());
    m_worker->setToolTip(m_status->workerDetail());
    m_worker->setStyleSheet(m_status->workerTrouble() ? QStringLiteral("QLabel { color: %1; }").arg(ConsoleTheme::errorText()) : QString());
    m_worker->setVisible(!m_status->workerText().isEmpty());

    const QDateTime refreshed = m_status->lastRefresh();
    m_refreshed->setText(refreshed.isValid() ? tr("Last refresh %1").arg(refreshed.time().toString(u"HH:mm:ss")) : QString());
    m_refreshed->setToolTip(refreshed.isValid() ? QLocale().toString(refreshed, QLocale::LongFormat) : QString());
    m_refreshed->setVisible(refreshed.isValid());
}

void MainWindow::showOperator()
{
    if (m_operator->isAccount()) {
        m_operatorButton->setText(tr("Account: %1").arg(m_operator->accountText()));
        m_operatorButton->setToolTip(tr("You are signed in to the servers with this account: they record it in the audit log and allow "
                                        "only what its role may do."));
        m_operatorButton->setStyleSheet(QString());
    } else if (m_operator->isSet()) {
        m_operatorButton->setText(tr("Operator: %1").arg(m_operator->name()));
        m_operatorButton->setToolTip(tr("Every change you make is recorded in the audit log under this name. Click to change it."));
        m_operatorButton->setStyleSheet(QString());
    } else {
        m_operatorButton->setText(tr("Operator: not set"));
        m_operatorButton->setToolTip(tr("No operator name yet: the first change you make asks for it, since every change is recorded "
                                        "in the audit log under a name. Click to set it now."));
        m_operatorButton->setStyleSheet(QStringLiteral("QToolButton { color: %1; }").arg(ConsoleTheme::warningText()));
    }
}

} // namespace lantern::ui
