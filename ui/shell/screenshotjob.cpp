#include "shell/screenshotjob.h"

#include "shell/mainwindow.h"

#include <QFileInfo>
#include <QPixmap>

#include <cstdio>

namespace lantern::ui {

ScreenshotJob::ScreenshotJob(MainWindow *window, QString file, const QString &viewName, ScreenshotRequest request, QObject *parent)
    : QObject(parent), m_window(window), m_file(std::move(file)), m_view(window->view(viewName)), m_request(std::move(request))
{
    Q_ASSERT(m_view);
    m_deadline.setSingleShot(true);
    m_deadline.setInterval(DeadlineMs);
    connect(&m_deadline, &QTimer::timeout, this, [this] { capture(1, QStringLiteral("no answer within the deadline")); });
    m_deadline.start();
    m_window->setRefreshInterval(0);  // nothing may change the view between its answer and the grab
    m_window->showView(viewName);
    connect(m_view, &ConsoleView::screenshotReady, this, [this] { capture(0); });
    connect(m_view, &ConsoleView::screenshotFailed, this, [this](const QString &message) { capture(1, message); });
}

void ScreenshotJob::backendReady()
{
    m_view->prepareScreenshot(m_request);
}

void ScreenshotJob::backendFailed(const QString &message)
{
    capture(1, message);
}

void ScreenshotJob::capture(int exitCode, const QString &problem)
{
    if (m_done)
        return;
    m_done = true;
    m_deadline.stop();
    // Let the answer's layout and paint events run first: one turn of the event loop.
    QTimer::singleShot(0, this, [this, exitCode, problem] {
        const QPixmap image = m_window->grab();
        int code = exitCode;
        if (!image.save(m_file, "PNG")) {
            std::fprintf(stderr, "lantern: cannot write the screenshot to %s\n", qPrintable(QFileInfo(m_file).absoluteFilePath()));
            code = 1;
        } else if (!problem.isEmpty()) {
            std::fprintf(stderr, "lantern: screenshot saved, but the view did not show data: %s\n", qPrintable(problem));
        }
        Q_EMIT finished(code);
    });
}

} // namespace lantern::ui
