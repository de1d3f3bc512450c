#include "mainwindow.h"

#include "auditview.h"
#include "campaignsview.h"
#include "checkinstatsview.h"
#include "connectionsview.h"
#include "console/usermonth.h"
#include "queuesview.h"
#include "recoveryview.h"
#include "usersview.h"

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
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QToolButton>

namespace lantern::ui {

namespace {

constexpr int Intervals[] = {0, 2, 5, 10, 30, 60};

} // namespace

MainWindow::MainWindow(const CheckinRules &rules, QWidget *parent)
    : QMainWindow(parent),
      m_users(new UsersView(rules, this)),
      m_navigation(new QListWidget(this)),
      m_stack(new QStackedWidget(this)),
      m_interval(new QComboBox(this)),
      m_pause(new QToolButton(this)),
      m_mode(new QLabel(this)),
      m_readOnly(new QLabel(this)),
      m_connection(new QLabel(this)),
      m_worker(new QLabel(this)),
      m_refreshed(new QLabel(this)),
      m_latency(new QLabel(this))
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
    layout->addWidget(m_stack, 1);
    setCentralWidget(central);

    addView(m_users, QStringLiteral("user-identity"));
    addView(new CampaignsView(this), QStringLiteral("mail-send"));
    addView(new QueuesView(this), QStringLiteral("view-list-details"));
    addView(new RecoveryView(this), QStringLiteral("view-refresh"));
    addView(new AuditView(this), QStringLiteral("document-open-recent"));
    addView(new CheckinStatsView(this), QStringLiteral("office-chart-bar"));
    addView(new ConnectionsView(this), QStringLiteral("network-server"));
    connect(m_navigation, &QListWidget::currentRowChanged, this, &MainWindow::onViewChanged);

    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    QMenu *viewMenu = menuBar()->addMenu(tr("&View"));
    for (int row = 0; row < m_views.size(); ++row) {
        QAction *action = viewMenu->addAction(m_views.at(row)->title(), this, [this, row] { m_navigation->setCurrentRow(row); });
        action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + row)));
    }
    viewMenu->addSeparator();
    QAction *refreshNow = viewMenu->addAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("&Refresh now"), QKeySequence::Refresh, this,
                                              &MainWindow::refreshCurrent);
    QMenu *language = menuBar()->addMenu(tr("&Language"));
    auto *languages = new QActionGroup(this);
    const QString chosenLanguage = QSettings().value(QStringLiteral("console/language")).toString();  // "": the system's
    const auto addLanguage = [&](const QString &text, const QString &code) {
        QAction *action = language->addAction(text, this, [this, code] { Q_EMIT languageChosen(code); });
        action->setData(code);
        action->setCheckable(true);
        action->setChecked(code == chosenLanguage);
        languages->addAction(action);
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
    connect(m_interval, &QComboBox::currentIndexChanged, this, [this] { setRefreshInterval(m_interval->currentData().toInt()); });
    connect(m_pause, &QToolButton::toggled, this, &MainWindow::setRefreshPaused);
    connect(&m_refreshTimer, &QTimer::timeout, this, [this] {
        if (ConsoleView *view = currentView(); view && view->wantsAutoRefresh())
            view->refresh();
    });

    m_mode->setContentsMargins(6, 0, 6, 0);
    m_connection->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_worker->setContentsMargins(6, 0, 6, 0);
    statusBar()->addWidget(m_mode);
    m_readOnly->setObjectName(QStringLiteral("readOnlyBadge"));
    m_readOnly->setText(tr("Read-only"));
    m_readOnly->setToolTip(tr("This connection refuses every change: look-ups and views work, make-ups, campaign actions, "
                              "dead-letter and recovery actions are disabled."));
    m_readOnly->setStyleSheet(QStringLiteral("QLabel { background: #fce8e6; color: #a50e0e; border-radius: 4px; padding: 1px 6px; font-weight: 600; }"));
    m_readOnly->setVisible(false);
    statusBar()->addWidget(m_readOnly);
    statusBar()->addWidget(m_connection, 1);
    statusBar()->addPermanentWidget(m_worker);
    statusBar()->addPermanentWidget(m_latency);
    statusBar()->addPermanentWidget(m_refreshed);
    m_latency->setVisible(false);
    if (auto *connections = qobject_cast<ConnectionsView *>(view(QStringLiteral("connections")))) {
        connect(connections, &ConnectionsView::latencyMeasured, this, &MainWindow::setLatency);
        connect(&m_latencyTimer, &QTimer::timeout, connections, &ConnectionsView::refresh);
    }
    m_connection->setText(tr("Not connected yet"));
    m_worker->setVisible(false);

    connect(m_users, &UsersView::monthShown, this, &MainWindow::showRefreshed);
    m_navigation->setCurrentRow(0);
    setRefreshPaused(false);
    resize(1180, 760);
}

MainWindow::~MainWindow() = default;

void MainWindow::addView(ConsoleView *view, const QString &iconName)
{
    m_views << view;
    m_stack->addWidget(view);
    auto *item = new QListWidgetItem(QIcon::fromTheme(iconName), view->title(), m_navigation);
    item->setData(Qt::UserRole, view->viewName());
    connect(view, &ConsoleView::statusMessage, this, [this](const QString &text) { m_refreshed->setText(text); });
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
    return qobject_cast<ConsoleView *>(m_stack->currentWidget());
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
    if (m_connection->property("attached").toBool())
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
    m_pause->setIcon(style()->standardIcon(paused ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));
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
    m_mode->setStyleSheet(sandbox ? QStringLiteral("QLabel { background: #fef7e0; color: #7a4f01; border-radius: 4px; padding: 1px 6px; }")
                                  : QStringLiteral("QLabel { background: #e8f0fe; color: #174ea6; border-radius: 4px; padding: 1px 6px; }"));
    m_mode->setToolTip(sandbox ? tr("A private Redis and an SQLite file with demo data; nothing here reaches production.")
                               : tr("Connected to the Redis and SQL servers given on the command line."));
    const QString redis = config.redis.redacted();
    const QString db = config.db.redacted();
    m_connection->setText(tr("Redis %1 · SQL %2").arg(redis, db));
    m_readOnly->setVisible(config.readOnly);
    m_connection->setToolTip(tr("Redis: %1\nSQL: %2").arg(redis, db));
}

void MainWindow::attachBackend(const Config &config)
{
    for (ConsoleView *view : std::as_const(m_views)) {
        view->setReadOnly(config.readOnly);
        view->attachBackend(config);
    }
    m_connection->setProperty("attached", true);
    if (ConsoleView *connections = view(QStringLiteral("connections"))) {
        connections->refresh();  // the first latency figures now, then every 15 s
        m_latencyTimer.start(15000);
    }
}

void MainWindow::setLatency(double redisMs, double sqlMs, const QString &redisStatus)
{
    const auto text = [this](double ms) { return ms < 0 ? tr("down") : tr("%1 ms").arg(ms, 0, 'f', ms < 10 ? 1 : 0); };
    m_latency->setText(tr("Redis %1 · SQL %2").arg(redisMs < 0 && !redisStatus.isEmpty() ? redisStatus : text(redisMs), text(sqlMs)));
    m_latency->setToolTip(tr("Round trip of a Redis PING and an SQL SELECT 1, measured every 15 seconds"));
    m_latency->setStyleSheet(redisMs < 0 || sqlMs < 0 ? QStringLiteral("QLabel { color: #a50e0e; }") : QString());
    m_latency->setVisible(true);
}

void MainWindow::setWorkerStatus(const QString &text, bool trouble)
{
    m_worker->setText(text);
    m_worker->setStyleSheet(trouble ? QStringLiteral("QLabel { color: #a50e0e; }") : QString());
    m_worker->setVisible(!text.isEmpty());
}

void MainWindow::showRefreshed(const UserMonth &month)
{
    m_refreshed->setText(tr("Last refresh %1").arg(month.loadedAt.time().toString(u"HH:mm:ss")));
    m_refreshed->setToolTip(QLocale().toString(month.loadedAt, QLocale::LongFormat));
}

} // namespace lantern::ui
