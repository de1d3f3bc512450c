#include "screenshotjob.h"

#include "console/usermonth.h"
#include "mainwindow.h"
#include "usersview.h"

#include <QFileInfo>
#include <QPixmap>

#include <cstdio>

namespace lantern::ui {

ScreenshotJob::ScreenshotJob(MainWindow *window, QString file, QString user, QDate month, QDate day, QObject *parent)
    : QObject(parent), m_window(window), m_file(std::move(file)), m_user(std::move(user)), m_month(month), m_day(day)
{
    m_deadline.setSingleShot(true);
    m_deadline.setInterval(DeadlineMs);
    connect(&m_deadline, &QTimer::timeout, this, [this] { capture(1, QStringLiteral("no answer within the deadline")); });
    m_deadline.start();

    UsersView *view = m_window->usersView();
    connect(view, &UsersView::monthShown, this, [this] {
        if (m_day.isValid())
            m_window->usersView()->selectDay(m_day);
        capture(0);
    });
    connect(view, &UsersView::failed, this, [this](const QString &message) { capture(1, message); });
}

void ScreenshotJob::backendReady()
{
    UsersView *view = m_window->usersView();
    if (m_user.isEmpty()) {
        if (m_month.isValid())
            view->showMonth(m_month);
        capture(0);
        return;
    }
    view->lookUp(m_user, m_month);
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
