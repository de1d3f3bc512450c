#pragma once

#include <QtGlobal>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace lantern {

/** The thread behind what the event loops read but cannot fetch themselves (ClusterTopology's
    slot map, SentinelWatch's master): runs `work` when asked, and every `period`; at most once
    per `least` however many ask. `work` returns false to be run again after that pause. */
class RefreshThread final {
public:
    RefreshThread(std::chrono::milliseconds period, std::chrono::milliseconds least, std::function<bool()> work, bool wantedAtStart = false);
    /** Stops and joins the thread (a run under way finishes first). */
    ~RefreshThread();
    Q_DISABLE_COPY_MOVE(RefreshThread)

    /** Asks for a run soon; never waits. */
    void request();

private:
    void run();

    std::chrono::milliseconds m_period;
    std::chrono::milliseconds m_least;
    std::function<bool()> m_work;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_wanted = false;
    bool m_stopping = false;
    std::thread m_thread;  // last: started once the rest is set
};

} // namespace lantern
