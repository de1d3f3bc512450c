#include "serve/blockingendpoints.h"

namespace lantern {

BlockingEndpoints::BlockingEndpoints(ApiShared &shared, int threads) : m_shared(shared)
{
    for (int i = 0; i < threads; ++i)
        m_threads.emplace_back([this] { work(); });
}

BlockingEndpoints::~BlockingEndpoints()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    for (std::thread &thread : m_threads)
        thread.join();
}

void BlockingEndpoints::submit(ApiAdmission admission, ApiRequest request, Reply reply)
{
    {
        const std::lock_guard lock(m_mutex);
        m_jobs.push_back({admission, std::move(request), std::move(reply)});
    }
    m_wake.notify_one();
}

void BlockingEndpoints::work()
{
    ApiHandler handler(m_shared);  // its connections open on first use, in this thread
    for (;;) {
        Job job;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_jobs.empty(); });
            if (m_jobs.empty())
                return;
            job = std::move(m_jobs.front());
            m_jobs.pop_front();
        }
        job.reply(handler.answer(job.admission, job.request));
    }
}

} // namespace lantern
