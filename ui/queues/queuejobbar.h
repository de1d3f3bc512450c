#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace lantern::ui {

/** What a long action (bulk retry, compensation) is doing: its name, a progress bar and Cancel.
    Hidden while nothing runs. */
class QueueJobBar final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QueueJobBar)

public:
    explicit QueueJobBar(QWidget *parent = nullptr);

    void start(const QString &what);
    void setProgress(qint64 done, qint64 total);
    void finish();
    bool isRunning() const { return m_running; }
    QPushButton *cancelButton() const { return m_cancel; }

Q_SIGNALS:
    void cancelRequested();

private:
    QLabel *m_what;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
    bool m_running = false;
};

} // namespace lantern::ui
