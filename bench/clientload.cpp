#include "clientload.h"

#include "redis/redisclient.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <latch>
#include <mutex>
#include <thread>

#include <sys/resource.h>

namespace lantern::bench {

namespace {

using Clock = std::chrono::steady_clock;

/** Shared by the client threads: the uid cursor and the first failure. */
class LoadState final {
public:
    explicit LoadState(const std::vector<qint64> &uids) : m_uids(uids) {}

    /** The next uid to send, or 0 when all are taken or a client failed. */
    qint64 take()
    {
        if (m_failed.load(std::memory_order_relaxed))
            return 0;
        const size_t index = m_next.fetch_add(1, std::memory_order_relaxed);
        return index < m_uids.size() ? m_uids[index] : 0;
    }

    void fail(std::exception_ptr error)
    {
        const std::lock_guard lock(m_mutex);
        if (!m_error)
            m_error = std::move(error);
        m_failed.store(true, std::memory_order_relaxed);
    }

    void rethrowFailure()
    {
        if (m_error)
            std::rethrow_exception(m_error);
    }

private:
    const std::vector<qint64> &m_uids;
    std::atomic<size_t> m_next{0};
    std::atomic<bool> m_failed{false};
    std::mutex m_mutex;
    std::exception_ptr m_error;
};

void runClient(const RedisUrl &url, const ClientFactory &factory, LoadState &state, std::latch &connected, std::vector<qint64> &latenciesNs)
{
    RedisClient redis(url);
    bool arrived = false;
    try {
        redis.ensureConnected();
        // Before the start line: whatever the client opens (its own SQL connection, say) is not timed.
        const ClientRequest request = factory(redis);
        connected.arrive_and_wait();
        arrived = true;
        while (const qint64 uid = state.take()) {
            const auto start = Clock::now();
            request(uid);
            const auto end = Clock::now();
            latenciesNs.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
        }
    } catch (...) {
        state.fail(std::current_exception());
        if (!arrived)
            connected.count_down();
    }
}

} // namespace

PhaseFigures runClientLoad(const RedisUrl &redis, int clientCount, const std::vector<qint64> &uids, const ClientFactory &factory)
{
    const auto clients = static_cast<size_t>(clientCount);
    LoadState state(uids);
    std::vector<std::vector<qint64>> latenciesNs(clients);
    for (std::vector<qint64> &client : latenciesNs)
        client.reserve(uids.size() / clients * 2 + 64);

    // The main thread counts too: it takes the start time once every client has connected.
    std::latch connected(static_cast<std::ptrdiff_t>(clients) + 1);
    std::vector<std::thread> threads;
    threads.reserve(clients);
    for (size_t i = 0; i < clients; ++i)
        threads.emplace_back(runClient, std::cref(redis), std::cref(factory), std::ref(state), std::ref(connected), std::ref(latenciesNs[i]));
    connected.arrive_and_wait();
    const auto start = Clock::now();
    const double cpuStart = cpuMicros(RUSAGE_SELF);
    for (std::thread &thread : threads)
        thread.join();
    const auto end = Clock::now();
    const double cpuEnd = cpuMicros(RUSAGE_SELF);
    state.rethrowFailure();

    PhaseFigures figures;
    std::vector<qint64> latencies;
    latencies.reserve(uids.size());
    for (const std::vector<qint64> &client : latenciesNs)
        latencies.insert(latencies.end(), client.begin(), client.end());
    figures.requests = static_cast<qint64>(latencies.size());
    figures.seconds = std::chrono::duration<double>(end - start).count();
    figures.perSecond = static_cast<double>(figures.requests) / figures.seconds;
    figures.clientMicros = (cpuEnd - cpuStart) / static_cast<double>(std::max<qint64>(figures.requests, 1));
    setPercentiles(figures, latencies);
    return figures;
}

} // namespace lantern::bench
