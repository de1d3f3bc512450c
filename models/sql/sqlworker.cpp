#include "sql/sqlworker.h"

#include "sql/sqlconnection.h"

#include <memory>

namespace lantern {

SqlWorker::SqlWorker(DbUrl url) : m_url(std::move(url)), m_thread([this] { run(); }) {}

SqlWorker::~SqlWorker()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    m_thread.join();
}

void SqlWorker::start(Job job, std::function<void()> finished)
{
    {
        const std::lock_guard lock(m_mutex);
        Q_ASSERT(!m_job && !m_running);
        m_error = nullptr;
        m_job.emplace(std::move(job), std::move(finished));
    }
    m_changed.notify_all();
}

bool SqlWorker::busy() const
{
    const std::lock_guard lock(m_mutex);
    return m_job || m_running;
}

void SqlWorker::take()
{
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [this] { return !m_job && !m_running; });
    if (const std::exception_ptr error = std::exchange(m_error, nullptr))
        std::rethrow_exception(error);
}

void SqlWorker::run()
{
    std::unique_ptr<SqlConnection> sql;  // this thread's: a QSqlDatabase must not cross threads
    for (;;) {
        std::pair<Job, std::function<void()>> job;
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [this] { return m_stop || m_job.has_value(); });
            if (!m_job)
                return;  // stopping, with nothing left to run
            job = std::move(*m_job);
            m_job.reset();
            m_running = true;
        }
        std::exception_ptr error;
        try {
            if (!sql)
                sql = std::make_unique<SqlConnection>(m_url);
            job.first(*sql);
        } catch (...) {
            error = std::current_exception();
            sql.reset();  // a connection that failed is not reused
        }
        {
            const std::lock_guard lock(m_mutex);
            m_error = error;
            m_running = false;
        }
        m_changed.notify_all();
        if (job.second)
            job.second();
    }
}

} // namespace lantern
