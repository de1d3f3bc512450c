#include "envelope/ledgerwriter.h"

#include "sql/sqlconnection.h"

namespace lantern {

LedgerWriter::LedgerWriter(DbUrl url) : m_url(std::move(url)), m_thread([this] { run(); }) {}

LedgerWriter::~LedgerWriter()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    m_thread.join();
}

void LedgerWriter::start(QList<PayoutRecord> records, QList<PayoutTask> tasks, std::function<void()> finished)
{
    {
        const std::lock_guard lock(m_mutex);
        Q_ASSERT(!m_job && !m_running && !m_result && !m_error);
        m_job = Job{std::move(records), std::move(tasks), std::move(finished)};
    }
    m_changed.notify_all();
}

bool LedgerWriter::busy() const
{
    const std::lock_guard lock(m_mutex);
    return m_job || m_running;
}

LedgerWrite LedgerWriter::take()
{
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [this] { return !m_job && !m_running; });
    if (const std::exception_ptr error = std::exchange(m_error, nullptr))
        std::rethrow_exception(error);
    LedgerWrite result = std::move(m_result).value_or(LedgerWrite{});
    m_result.reset();
    return result;
}

void LedgerWriter::run()
{
    std::unique_ptr<SqlConnection> sql;  // this thread's: a QSqlDatabase must not cross threads
    for (;;) {
        Job job;
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [this] { return m_stop || m_job.has_value(); });
            if (!m_job)
                return;  // stopping, with nothing left to write
            job = std::move(*m_job);
            m_job.reset();
            m_running = true;
        }
        std::optional<LedgerWrite> result;
        std::exception_ptr error;
        try {
            if (!sql)
                sql = std::make_unique<SqlConnection>(m_url);
            result = PayoutLedger(*sql).write(job.records, job.tasks);
        } catch (...) {
            error = std::current_exception();
            sql.reset();  // a connection that failed is not reused
        }
        {
            const std::lock_guard lock(m_mutex);
            m_result = std::move(result);
            m_error = error;
            m_running = false;
        }
        m_changed.notify_all();
        if (job.finished)
            job.finished();
    }
}

} // namespace lantern
