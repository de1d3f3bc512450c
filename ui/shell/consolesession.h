#pragma once

#include "settings/config.h"
#include "shell/consoleoptions.h"

#include <QHash>
#include <QObject>
#include <QVariantMap>

#include <memory>

class QThread;

namespace lantern {
class Sandbox;
}

namespace lantern::ui {

class MainWindow;
class OperatorIdentity;
class ScreenshotJob;

/** One run of the console: the window, the backend it talks to (the sandbox, or the servers
    given on the command line), the lookup service's thread, and a screenshot job if asked.
    Tears them down in a safe order: window (each view joins its service thread), sandbox
    worker, Redis child. */
class ConsoleSession final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConsoleSession)

public:
    /** Throws InvalidInputError for malformed settings. */
    explicit ConsoleSession(ConsoleOptions options, QObject *parent = nullptr);
    ~ConsoleSession() override;

    /** Shows the window (offscreen for a screenshot) and starts the backend. */
    void start();
    MainWindow *window() const { return m_window.get(); }

Q_SIGNALS:
    /** The session is over (a screenshot was taken): quit with this code. */
    void finished(int exitCode);

private:
    void attachBackend(const Config &config);
    /** Who the profile's MariaDB account is (issue 25): with a Lantern role, the session's operator
        becomes that account and the views disable what the role may not do. */
    void readAccount(const Config &config);
    /** A connection profile was applied: a new window on `config`; the sandbox, if any, stops. */
    void switchTo(const Config &config);
    /** Back from a profile's servers to a fresh sandbox (a new folder, server and worker). */
    void switchToSandbox();
    void startSandbox();
    /** Another interface language: translators swapped, the window rebuilt on the same backend. */
    void switchLanguage(const QString &language);
    /** Another theme: the palette swapped, the window rebuilt (every colour chosen again). */
    void switchTheme(const QString &theme);
    /** A new window on the backend in use, on the same view. */
    void rebuildInPlace();
    /** A new window (each view's service thread ends with the old one), on `config`. */
    void rebuildWindow(const Config &config, const QString &viewName);
    void wireWindow();

    ConsoleOptions m_options;
    const Config m_launchConfig;  // from the command line: what a sandbox is built on
    Config m_config;
    std::unique_ptr<Sandbox> m_sandbox;
    OperatorIdentity *m_operator;  // one per session: it outlives the windows of a language or profile switch
    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<ScreenshotJob> m_screenshot;
    bool m_screenshotWaitsForAccount = false;
    std::unique_ptr<QThread> m_accountReader;  // readAccount()'s, waited for before the next and on exit
    QHash<QString, QVariantMap> m_restoredStates;  // per view, from the window a rebuild replaced
};

/** The whole of `lantern`'s main(): options, translations, session, event loop. */
int runConsole(int argc, char *argv[]);

} // namespace lantern::ui
