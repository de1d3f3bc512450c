#include "stopsignal.h"

#include <QDeadlineTimer>
#include <QThread>

#include <algorithm>
#include <atomic>
#include <csignal>

namespace lantern::cli {

namespace {

std::atomic_bool s_stopRequested{false};

void requestStop(int)
{
    s_stopRequested.store(true);
}

} // namespace

void installStopHandlers()
{
    std::signal(SIGTERM, requestStop);
    std::signal(SIGINT, requestStop);
}

bool stopRequested()
{
    return s_stopRequested.load();
}

void pauseUnlessStopped(int ms, const std::function<void()> &duringWait)
{
    const QDeadlineTimer deadline(ms);
    while (!deadline.hasExpired() && !s_stopRequested.load()) {
        if (duringWait)
            duringWait();
        QThread::msleep(static_cast<unsigned long>(std::clamp<qint64>(deadline.remainingTime(), 0, 50)));
    }
}

} // namespace lantern::cli
