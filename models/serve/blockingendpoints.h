#pragma once

#include "api/apigate.h"
#include "api/apihandler.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace lantern {

/** The endpoints that need SQL or several reads (calendar, metrics), answered on threads that
    each own an ApiHandler with blocking connections, so the event loops never wait on them.
    A job's `reply` runs on the worker thread: it hands the response back to its loop. */
class BlockingEndpoints final {
public:
    using Reply = std::function<void(ApiResponse response)>;

    BlockingEndpoints(ApiShared &shared, int threads);
    /** Finishes the jobs queued, then joins the threads. */
    ~BlockingEndpoints();
    Q_DISABLE_COPY_MOVE(BlockingEndpoints)

    void submit(ApiAdmission admission, ApiRequest request, Reply reply);

private:
    struct Job {
        ApiAdmission admission;
        ApiRequest request;
        Reply reply;
    };
    void work();

    ApiShared &m_shared;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Job> m_jobs;
    bool m_stopping = false;
    std::vector<std::thread> m_threads;
};

} // namespace lantern
