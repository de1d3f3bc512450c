#pragma once

#include "common/consoleview.h"

#include <QDate>
#include <QObject>
#include <QTimer>

namespace lantern::ui {

class MainWindow;

/** `lantern --screenshot FILE --view NAME [--uid U] [--month YYYY-MM] [--campaign I]`: shows the
    view, and once the backend is there asks it to load what the request names, waits for its
    answer (a signal, never a sleep), grabs the window to a PNG and reports an exit code. A
    deadline ends a run that gets no answer. */
class ScreenshotJob final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ScreenshotJob)

public:
    static constexpr int DeadlineMs = 120000;

    /** `day`, when valid, is selected once the month is shown. */
    ScreenshotJob(MainWindow *window, QString file, const QString &viewName, ScreenshotRequest request, QObject *parent = nullptr);

    /** The backend answers: look the user up now. */
    void backendReady();
    /** The backend could not start: the window shows why; capture that and fail. */
    void backendFailed(const QString &message);

Q_SIGNALS:
    /** 0 when the view showed real data and the PNG was written. */
    void finished(int exitCode);

private:
    void capture(int exitCode, const QString &problem = {});

    MainWindow *m_window;
    QString m_file;
    ConsoleView *m_view;
    ScreenshotRequest m_request;
    QTimer m_deadline;
    bool m_done = false;
};

} // namespace lantern::ui
