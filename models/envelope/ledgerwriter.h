#pragma once

#include "envelope/payoutledger.h"
#include "sql/dburl.h"

#include <QList>

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace lantern {

class SqlConnection;

/** PayoutLedger::write() on a thread of its own, over a connection of its own (opened there, on
    first use, from the drain's URL), so the drain's payouts go on while a batch's transaction
    runs (issue 12). One write at a time; its result or its exception comes back through take(). */
class LedgerWriter final {
public:
    explicit LedgerWriter(DbUrl url);
    /** Waits for a write under way; the connection closes on its thread. */
    ~LedgerWriter();
    Q_DISABLE_COPY_MOVE(LedgerWriter)

    /** Starts a write; `finished` runs on the writer's thread once it is done (wake the caller's
        event loop with it). Not while busy(). */
    void start(QList<PayoutRecord> records, QList<PayoutTask> tasks, std::function<void()> finished);
    /** A write was started and not taken yet, and has not finished. */
    bool busy() const;
    /** Waits for the write started last; its result, or its exception rethrown (the connection
        is then dropped, and the next write opens a new one). */
    LedgerWrite take();

private:
    struct Job {
        QList<PayoutRecord> records;
        QList<PayoutTask> tasks;
        std::function<void()> finished;
    };

    void run();

    const DbUrl m_url;
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::optional<Job> m_job;             // waiting for the thread
    bool m_running = false;               // the thread works on a job
    std::optional<LedgerWrite> m_result;  // done, not taken
    std::exception_ptr m_error;           // done with this, not taken
    bool m_stop = false;
    std::thread m_thread;                 // last: started once everything above exists
};

} // namespace lantern
