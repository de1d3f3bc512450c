#pragma once

#include "core/config.h"

#include <QList>
#include <QMainWindow>
#include <QTimer>

class QComboBox;
class QLabel;
class QListWidget;
class QStackedWidget;
class QToolButton;

namespace lantern {
struct UserMonth;
}

namespace lantern::ui {

class ConsoleView;
class UsersView;

/** The console window: a navigation list of views (Users, Campaigns, Queues, Recovery, Audit
    log, Connections) next to the current one; a toolbar with the auto-refresh interval (visible,
    pause-able) and Refresh now; the status bar names the servers in use (passwords redacted),
    the in-process worker when there is one, and when the shown data was last read. */
class MainWindow final : public QMainWindow {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    explicit MainWindow(const CheckinRules &rules, QWidget *parent = nullptr);
    ~MainWindow() override;

    UsersView *usersView() const { return m_users; }
    const QList<ConsoleView *> &views() const { return m_views; }
    /** nullptr for an unknown name. */
    ConsoleView *view(const QString &name) const;
    ConsoleView *currentView() const;
    /** Shows the view called `name` ("users", "campaigns", ...); false if there is none. */
    bool showView(const QString &name);

    /** Names the servers in the status bar; `sandbox` marks the embedded environment. */
    void setConnection(const Config &config, bool sandbox);
    /** Gives every view its backend (each starts its own service thread). */
    void attachBackend(const Config &config);
    /** What the in-process worker last did (sandbox only). */
    void setWorkerStatus(const QString &text, bool trouble);

    /** Round trips of the connection in use, in ms (negative: that server is down, or for Redis
        in the state `redisStatus` names, e.g. "is loading"). */
    void setLatency(double redisMs, double sqlMs, const QString &redisStatus = {});

    /** Auto-refresh interval in seconds; 0 = off. */
    void setRefreshInterval(int seconds);
    int refreshInterval() const { return m_refreshSeconds; }
    void setRefreshPaused(bool paused);
    bool isRefreshPaused() const { return m_paused; }

Q_SIGNALS:
    /** The user picked an interface language ("" for the system's, "en", "zh_CN"). */
    void languageChosen(const QString &language);

private:
    void addView(ConsoleView *view, const QString &iconName);
    void onViewChanged(int row);
    void refreshCurrent();
    void updateRefreshTimer();
    void showRefreshed(const UserMonth &month);

    UsersView *m_users;
    QList<ConsoleView *> m_views;
    QListWidget *m_navigation;
    QStackedWidget *m_stack;
    QComboBox *m_interval;
    QToolButton *m_pause;
    QTimer m_refreshTimer;
    int m_refreshSeconds = 5;
    bool m_paused = false;
    QLabel *m_mode;
    QLabel *m_readOnly;  // the "Read-only" badge, shown while the connection refuses writes
    QLabel *m_connection;
    QLabel *m_worker;
    QLabel *m_refreshed;
    QLabel *m_latency;
    QTimer m_latencyTimer;  // the status bar's round trips, measured off the GUI thread
};

} // namespace lantern::ui
