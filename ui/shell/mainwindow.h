#pragma once

#include "settings/config.h"

#include <QList>
#include <QMainWindow>
#include <QTimer>

class QComboBox;
class QSpinBox;
class QLabel;
class QListWidget;
class QStackedWidget;
class QToolButton;

namespace lantern {
class ServerStatus;
}

namespace lantern::ui {

class AlertCenter;
class ConsoleView;
class OperatorIdentity;
class UsersView;

/** The console window: a navigation list of views (Users, Campaigns, Queues, Recovery, Audit
    log, Connections) next to the current one; a toolbar with the auto-refresh interval (visible,
    pause-able) and Refresh now; the status bar names the servers in use (passwords redacted),
    their state with one round-trip readout, the in-process worker when there is one, and when
    the shown data was last read — all from one ServerStatus, which every view's answer and
    every probe update. */
class MainWindow final : public QMainWindow {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    static constexpr QSize DefaultSize{1318, 760};
    /** `identity`: the session's operator, shared by every view (nullptr: one of the window's own). */
    explicit MainWindow(const CheckinRules &rules, OperatorIdentity *identity = nullptr, QWidget *parent = nullptr);
    ~MainWindow() override;

    UsersView *usersView() const { return m_users; }
    const QList<ConsoleView *> &views() const { return m_views; }
    /** nullptr for an unknown name. */
    ConsoleView *view(const QString &name) const;
    ConsoleView *currentView() const;
    /** Shows the view called `name` ("users", "campaigns", ...); false if there is none. */
    bool showView(const QString &name);

    /** Names the servers in the status bar; `sandbox` marks the embedded environment (and shows
        its crowd's rate in the toolbar). */
    void setConnection(const Config &config, bool sandbox);
    /** The sandbox crowd's grabs per second into every live campaign, as the toolbar shows it. */
    void setCrowdRate(int grabsPerSecond);
    QSpinBox *crowdRateBox() const { return m_crowdRate; }
    /** Gives every view its backend (each starts its own service thread). */
    void attachBackend(const Config &config);
    /** What the in-process worker last did (sandbox only); `detail`: why it is in trouble. */
    void setWorkerStatus(const QString &text, bool trouble, const QString &detail = {});

    /** What the status bar shows, and the labels showing it. */
    ServerStatus *serverStatus() const { return m_status; }
    QLabel *serversLabel() const { return m_latency; }
    QLabel *workerLabel() const { return m_worker; }
    QLabel *refreshedLabel() const { return m_refreshed; }
    OperatorIdentity *operatorIdentity() const { return m_operator; }
    /** The console's own alerts (issue 27). */
    AlertCenter *alerts() const { return m_alerts; }
    /** The status bar's "Operator: …" button, which sets the name. */
    QToolButton *operatorButton() const { return m_operatorButton; }

    /** Auto-refresh interval in seconds; 0 = off. */
    void setRefreshInterval(int seconds);
    int refreshInterval() const { return m_refreshSeconds; }
    void setRefreshPaused(bool paused);
    bool isRefreshPaused() const { return m_paused; }

Q_SIGNALS:
    /** The user picked an interface language ("" for the system's, "en", "zh_CN"). */
    void languageChosen(const QString &language);
    /** The user picked a theme (View › Theme): "system", "light" or "dark". */
    void themeChosen(const QString &theme);
    /** The user set the sandbox crowd's grabs per second (0: no crowd). */
    void crowdRateChosen(int grabsPerSecond);

protected:
    /** Swallows status tips: a hovered button's tip would hide the status bar's mode badge,
        operator and servers (what a tip says is in the button's tooltip and the status bar). */
    bool event(QEvent *event) override;

private:
    void buildLayout();
    void addViews();
    void addView(ConsoleView *view, const QString &iconName);
    void buildAlerts();
    QAction *buildMenus();
    void buildRefreshToolbar(QAction *refreshNow);
    void buildStatusBar();
    void wireViews();
    void onViewChanged(int row);
    void refreshCurrent();
    void updateRefreshTimer();
    /** Probes the servers now (a view's request failed), instead of at the next tick. */
    void probeServers();
    void showServerStatus();
    void showOperator();

    UsersView *m_users;
    QList<ConsoleView *> m_views;
    QListWidget *m_navigation;
    QStackedWidget *m_stack;
    QComboBox *m_interval;
    QToolButton *m_pause;
    QSpinBox *m_crowdRate;
    QAction *m_crowdRateAction = nullptr;  // the toolbar's crowd part, sandbox only
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
    ServerStatus *m_status;
    OperatorIdentity *m_operator;
    QToolButton *m_operatorButton;
    AlertCenter *m_alerts;
    bool m_attached = false;  // attachBackend() ran
};

} // namespace lantern::ui
