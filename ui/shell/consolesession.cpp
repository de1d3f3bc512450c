#include "shell/consolesession.h"

#include "connections/connectionsview.h"
#include "console/sandbox/sandbox.h"
#include "console/sandbox/sandboxseeder.h"
#include "common/consoletheme.h"
#include "core/errors.h"
#include "shell/mainwindow.h"
#include "shell/operatoridentity.h"
#include "sql/sqlconnection.h"
#include "shell/screenshotjob.h"
#include "translations.h"
#include "users/usersview.h"

#include <QApplication>
#include <QLineEdit>
#include <QSettings>
#include <QThread>

#include <cstdio>

namespace lantern::ui {

ConsoleSession::ConsoleSession(ConsoleOptions options, QObject *parent)
    : QObject(parent),
      m_options(std::move(options)),
      m_launchConfig(Config::resolve(m_options.settings)),
      m_config(m_launchConfig),
      m_operator(new OperatorIdentity(this))
{
    m_window = std::make_unique<MainWindow>(m_config.checkin, m_operator);
    wireWindow();
    if (!m_options.screenshotFile.isEmpty()) {
        ScreenshotRequest request{m_options.uid, m_options.month, m_options.day, m_options.campaignId};
        if (request.user.isEmpty() && m_options.sandbox && m_options.view == QLatin1String("users"))
            request.user = QString::number(SandboxSeeder::demoUids().constFirst());
        m_screenshot = std::make_unique<ScreenshotJob>(m_window.get(), m_options.screenshotFile, m_options.view, request);
        connect(m_screenshot.get(), &ScreenshotJob::finished, this, &ConsoleSession::finished);
    }
}

ConsoleSession::~ConsoleSession()
{
    if (m_accountReader)
        m_accountReader->wait();
    m_screenshot.reset();
    m_window.reset();
    m_sandbox.reset();
}

void ConsoleSession::start()
{
    if (m_options.size.isValid())
        m_window->resize(m_options.size);
    else if (!m_options.screenshotFile.isEmpty())
        m_window->resize(MainWindow::DefaultSize);  // whatever the offscreen screen's size
    m_window->showView(m_options.view);
    m_window->show();
    UsersView *view = m_window->usersView();
    if (m_options.month.isValid())
        view->showMonth(m_options.month);
    if (!m_options.sandbox) {
        attachBackend(m_config);
        return;
    }
    startSandbox();
}

void ConsoleSession::startSandbox()
{
    UsersView *view = m_window->usersView();
    const QString directory = m_options.sandboxDirectory.isEmpty() ? Sandbox::defaultDirectory() : m_options.sandboxDirectory;
    // The command line's settings, never a profile's (its key prefix, its read-only flag).
    m_sandbox = std::make_unique<Sandbox>(m_launchConfig, directory);
    m_window->setCrowdRate(m_sandbox->crowdRate());  // the rate chosen in an earlier run
    connect(m_sandbox.get(), &Sandbox::progress, view, &UsersView::showStarting);
    connect(m_sandbox.get(), &Sandbox::ready, this, [this] {
        const SeedSummary &summary = m_sandbox->summary();
        m_window->setWorkerStatus(tr("Worker: %n check-in(s) persisted", nullptr, static_cast<int>(summary.persisted)), false);
        attachBackend(m_sandbox->config());
        if (!m_options.screenshotFile.isEmpty() || !m_options.uid.isEmpty())
            return;
        QStringList ids;
        for (qint64 uid : summary.uids)
            ids << QString::number(uid);
        m_window->usersView()->searchField()->setPlaceholderText(tr("Demo users: %1").arg(ids.join(QStringLiteral(", "))));
    });
    connect(m_sandbox.get(), &Sandbox::failed, this, [this](const QString &message, const QString &detail) {
        m_window->usersView()->showStartupFailure(message, detail);
        m_window->setWorkerStatus(tr("Sandbox stopped"), true);
        if (m_screenshot)
            m_screenshot->backendFailed(message);
    });
    connect(m_sandbox.get(), &Sandbox::workerPersisted, this, [this](qint64 rows) {
        m_window->setWorkerStatus(tr("Worker: %n new check-in(s) persisted", nullptr, static_cast<int>(rows)), false);
    });
    connect(m_sandbox.get(), &Sandbox::workerTrouble, this, [this](const QString &detail) {
        m_window->setWorkerStatus(tr("Worker: retrying"), true, detail);
    });
    connect(m_sandbox.get(), &Sandbox::workerRecovered, this, [this] { m_window->setWorkerStatus(tr("Worker: running again"), false); });
    m_sandbox->start();
}

void ConsoleSession::wireWindow()
{
    auto *connections = qobject_cast<ConnectionsView *>(m_window->view(QStringLiteral("connections")));
    connect(connections, &ConnectionsView::profileActivated, this, &ConsoleSession::switchTo, Qt::QueuedConnection);
    connect(connections, &ConnectionsView::sandboxRequested, this, &ConsoleSession::switchToSandbox, Qt::QueuedConnection);
    connect(m_window.get(), &MainWindow::languageChosen, this, &ConsoleSession::switchLanguage, Qt::QueuedConnection);
    connect(m_window.get(), &MainWindow::themeChosen, this, &ConsoleSession::switchTheme, Qt::QueuedConnection);
    connect(m_window.get(), &MainWindow::crowdRateChosen, this, [this](int rate) {
        if (m_sandbox)
            m_sandbox->setCrowdRate(rate);
    });
    m_window->setCrowdRate(m_sandbox ? m_sandbox->crowdRate() : SandboxWorker::DefaultCrowdRate);
}

void ConsoleSession::rebuildWindow(const Config &config, const QString &viewName)
{
    const QRect geometry = m_window->geometry();
    const int interval = m_window->refreshInterval();
    m_window.reset();
    m_window = std::make_unique<MainWindow>(config.checkin, m_operator);
    wireWindow();
    m_window->setGeometry(geometry);
    m_window->setRefreshInterval(interval);
    m_window->showView(viewName);
    m_window->show();
}

void ConsoleSession::switchTo(const Config &config)
{
    // Each view's service thread ends with the old window; the sandbox (if any) after it.
    const QString view = QStringLiteral("connections");
    m_restoredStates.clear();  // other servers: what the views showed may not exist there
    rebuildWindow(config, view);
    m_sandbox.reset();
    m_options.sandbox = false;
    m_config = config;
    attachBackend(m_config);
    qobject_cast<ConnectionsView *>(m_window->view(view))->showActive(m_config);
}

void ConsoleSession::switchToSandbox()
{
    // As a profile switch: the old window's service threads end with it; then a fresh sandbox.
    const QString view = QStringLiteral("connections");
    m_restoredStates.clear();
    m_config = m_launchConfig;  // the command line's rules, as the sandbox will use them
    rebuildWindow(m_config, view);
    m_sandbox.reset();
    m_options.sandbox = true;
    m_options.uid.clear();
    startSandbox();
}

void ConsoleSession::switchLanguage(const QString &language)
{
    installTranslations(language);
    QSettings().setValue(QStringLiteral("console/language"), language);
    rebuildInPlace();
}

void ConsoleSession::switchTheme(const QString &theme)
{
    const ConsoleTheme::Theme chosen = ConsoleTheme::fromName(theme);
    ConsoleTheme::save(chosen);
    ConsoleTheme::apply(chosen);
    rebuildInPlace();
}

void ConsoleSession::rebuildInPlace()
{
    const QString view = m_window->currentView() ? m_window->currentView()->viewName() : QStringLiteral("users");
    // What each view shows comes back in the new window, once its backend is there.
    m_restoredStates.clear();
    for (const ConsoleView *shown : m_window->views())
        m_restoredStates.insert(shown->viewName(), shown->viewState());
    const Config config = m_sandbox && m_sandbox->isReady() ? m_sandbox->config() : m_config;
    const bool attached = !m_sandbox || m_sandbox->isReady();
    rebuildWindow(config, view);
    if (attached)
        attachBackend(config);
}

void ConsoleSession::readAccount(const Config &config)
{
    m_operator->clearAccount();
    if (m_accountReader)
        m_accountReader->wait();
    m_accountReader.reset();
    if (config.db.dialect != DbUrl::Dialect::MySql)
        return;  // SQLite has no accounts: the operator types a name
    // Off the GUI thread (a connect can take seconds); the answer comes back queued.
    const DbUrl url = config.db;
    m_accountReader.reset(QThread::create([this, url] {
        access::AccountIdentity account;
        try {
            SqlConnection sql(url, SqlAccess::ReadOnly);
            account = access::AccountIdentity::of(sql);
        } catch (const LanternError &) {
            // the views say what is wrong with the connection
        }
        QMetaObject::invokeMethod(
                this,
                [this, account] {
                    m_operator->setAccount(account);
                    if (m_screenshot && m_screenshotWaitsForAccount)
                        m_screenshot->backendReady();  // drawn with the account's rights
                    m_screenshotWaitsForAccount = false;
                },
                Qt::QueuedConnection);
    }));
    m_accountReader->start();
}

void ConsoleSession::attachBackend(const Config &config)
{
    readAccount(config);
    m_window->setConnection(config, m_options.sandbox);
    m_window->attachBackend(config);
    for (ConsoleView *shown : m_window->views()) {
        if (m_restoredStates.contains(shown->viewName()))
            shown->restoreViewState(m_restoredStates.value(shown->viewName()));
    }
    const bool restored = !m_restoredStates.isEmpty();
    m_restoredStates.clear();
    UsersView *view = m_window->usersView();
    if (m_screenshot) {
        // With an account to read, the picture waits for it (readAccount says when).
        m_screenshotWaitsForAccount = m_accountReader != nullptr;
        if (!m_screenshotWaitsForAccount)
            m_screenshot->backendReady();
    } else if (!m_options.uid.isEmpty() && !restored) {
        view->lookUp(m_options.uid, m_options.month);
    }
}

int runConsole(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("lantern"));
    QApplication::setOrganizationName(QStringLiteral("lantern"));
    QApplication::setApplicationVersion(QStringLiteral(LANTERN_VERSION));

    const QStringList arguments = QApplication::arguments();
    // --lang, else the language last picked in the Language menu, else the system's.
    QString language = ConsoleOptions::languageFrom(arguments);
    if (language.isEmpty())
        language = QSettings().value(QStringLiteral("console/language")).toString();
    installTranslations(language);
    // --theme, else the one picked in View › Theme, else the system's palette.
    const QString themeName = ConsoleTheme::nameFrom(arguments);
    ConsoleTheme::apply(themeName.isEmpty() ? ConsoleTheme::saved() : ConsoleTheme::fromName(themeName));
    try {
        ConsoleSession session(ConsoleOptions::parse(arguments));
        QObject::connect(&session, &ConsoleSession::finished, &app, &QCoreApplication::exit);
        session.start();
        return QApplication::exec();
    } catch (const InvalidInputError &error) {
        std::fprintf(stderr, "lantern: %s\n", error.what());
        return 2;
    }
}

} // namespace lantern::ui
