#pragma once

#include "core/config.h"

#include <QMainWindow>

class QLabel;

namespace lantern {
struct UserMonth;
}

namespace lantern::ui {

class UsersView;

/** The console window. For now one view, Users; the status bar names the Redis and SQL
    servers in use (passwords redacted), the in-process worker when there is one, and when the
    shown data was last read. */
class MainWindow final : public QMainWindow {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    explicit MainWindow(const CheckinRules &rules, QWidget *parent = nullptr);
    ~MainWindow() override;

    UsersView *usersView() const { return m_users; }

    /** Names the servers in the status bar; `sandbox` marks the embedded environment. */
    void setConnection(const Config &config, bool sandbox);
    /** What the in-process worker last did (sandbox only). */
    void setWorkerStatus(const QString &text, bool trouble);

private:
    void showRefreshed(const UserMonth &month);

    UsersView *m_users;
    QLabel *m_mode;
    QLabel *m_connection;
    QLabel *m_worker;
    QLabel *m_refreshed;
};

} // namespace lantern::ui
