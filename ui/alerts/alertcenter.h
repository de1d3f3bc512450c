#pragma once

#include "console/alerts/consolealerts.h"

#include <QFrame>
#include <QObject>

class QLabel;
class QSystemTrayIcon;
class QWidget;

namespace lantern::ui {

/** The strip above the views that lists the console's active alerts (issue 27), always shown
    while one is active, each with a link to the view that shows it. */
class AlertBar final : public QFrame {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AlertBar)

public:
    explicit AlertBar(QWidget *parent = nullptr);
    ~AlertBar() override;

    /** `titles`: view name -> its title, for the links. */
    void setAlerts(const QList<ConsoleAlert> &alerts, const QHash<QString, QString> &titles);
    QLabel *label() const { return m_text; }

Q_SIGNALS:
    void openView(const QString &name);

private:
    QLabel *m_text;
};

/** The console's alerts for the profile in use: the monitor (fed the Queues view's snapshots),
    the bar, and a desktop notification for each alert raised where the desktop has a system tray
    (Qt sends it through the freedesktop notification service there); a click on either opens the
    view that shows it. An alert is notified once, until it clears. */
class AlertCenter final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AlertCenter)

public:
    explicit AlertCenter(QWidget *parent);
    ~AlertCenter() override;

    /** View name -> its title, for the bar's links. */
    void setViewTitles(const QHash<QString, QString> &titles);
    AlertBar *bar() const { return m_bar; }
    ConsoleAlertMonitor *monitor() const { return m_monitor; }
    /** The profile in use ("" for the command line's servers or the sandbox): its thresholds. */
    void setProfile(const QString &profile);
    const QString &profile() const { return m_profile; }
    /** Asks for the profile's thresholds in a dialog, saves and applies them. */
    void editThresholds(QWidget *parent);
    /** Whether a desktop notification can be shown here (a system tray with messages). */
    bool desktopNotifications() const;
    /** The desktop notifications sent so far (title and text), for tests and screenshots. */
    const QStringList &notified() const { return m_notified; }

Q_SIGNALS:
    void openView(const QString &name);

private:
    void onRaised(const ConsoleAlert &alert);

    QHash<QString, QString> m_titles;
    ConsoleAlertMonitor *m_monitor;
    AlertBar *m_bar;
    QSystemTrayIcon *m_tray = nullptr;  // made on the first notification, where there is a tray
    QString m_profile;
    QString m_lastNotifiedView;
    QStringList m_notified;
};

} // namespace lantern::ui
