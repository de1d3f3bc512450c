#pragma once

#include "sql/dburl.h"

#include <QtGlobal>

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace lantern {

class SqlConnection;

/** A thread with an SQL connection of its own (opened there on first use, reopened after a
    failure), running one job at a time while the thread that started it does something else:
    the payout drain's transaction while its payouts go on, a second share of a check-in pass
    (issue 12). The job's exception comes back through take(). */
class SqlWorker final {
public:
    using Job = std::function<void(SqlConnection &)>;

    explicit SqlWorker(DbUrl url);
    /** Waits for a job under way; the connection closes on its thread. */
    ~SqlWorker();
    Q_DISABLE_COPY_MOVE(SqlWorker)

    /** Starts `job`; `finished` runs on the worker's thread once it is done (to wake the caller's
        event loop). What the job reads and writes must outlive take(). Not while busy(). */
    void start(Job job, std::function<void()> finished = {});
    /** A job was started and has not finished. */
    bool busy() const;
    /** Waits for the job started last; rethrows its exception (the connection is then dropped,
        and the next job opens a new one). */
    void take();

private:
    void run();

    const DbUrl m_url;
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::optional<std::pair<Job, std::function<void()>>> m_job;  // waiting for the thread
    bool m_running = false;                                      // the thread works on a job
    std::exception_ptr m_error;                                  // the last job's, not taken yet
    bool m_stop = false;
    std::thread m_thread;                                        // last: started once everything above exists
};

} // namespace lantern
