#include "redis/refreshthread.h"

namespace lantern {

RefreshThread::RefreshThread(std::chrono::milliseconds period, std::chrono::milliseconds least, std::function<bool()> work, bool wantedAtStart)
    : m_period(period), m_least(least), m_work(std::move(work)), m_wanted(wantedAtStart), m_thread([this] { run(); })
{
}

RefreshThread::~RefreshThread()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

void RefreshThread::request()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_wanted)
            return;
        m_wanted = true;
    }
    m_wake.notify_one();
}

void RefreshThread::run()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait_for(lock, m_period, [this] { return m_stopping || m_wanted; });
        if (m_stopping)
            return;
        m_wanted = false;
        lock.unlock();
        const bool done = m_work();
        lock.lock();
        if (!done)
            m_wanted = true;  // again after the pause below
        m_wake.wait_for(lock, m_least, [this] { return m_stopping; });
        if (m_stopping)
            return;
    }
}

} // namespace lantern
