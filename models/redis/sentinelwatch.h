#pragma once

#include "redis/redisoptions.h"
#include "redis/redisurl.h"
#include "redis/refreshthread.h"

#include <QString>

#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>

namespace lantern {

/** The master of a redis-sentinel:// URL for the event loops of `lanternd serve`, which never
    wait on I/O (the Sentinel counterpart of ClusterTopology): RedisSentinel::connectToMaster on a
    thread of its own, at start, whenever a loop asks (a connection lost, a -READONLY reply) and
    every RefreshEvery; one resolution at a time however many loops ask. One per URL and process,
    shared by every RedisPipe of that URL (of()). While no master is known, snapshot() says why. */
class SentinelWatch final {
public:
    static constexpr std::chrono::milliseconds RefreshEvery{1000};

    /** The watch of `url` (made on first use, shared while someone holds it). */
    static std::shared_ptr<SentinelWatch> of(const RedisUrl &url, const RedisOptions &options);
    ~SentinelWatch();
    Q_DISABLE_COPY_MOVE(SentinelWatch)

    struct Snapshot {
        std::optional<RedisEndpoint> master;
        std::exception_ptr error;  // why there is none (RedisSentinel's errors)
        quint64 version = 0;
    };
    Snapshot snapshot() const;
    bool isNewerThan(quint64 version) const { return m_version.load(std::memory_order_acquire) > version; }
    /** Asks for the sentinels to be asked again soon; never waits. */
    void requestRefresh();
    /** Resolutions so far. */
    quint64 resolutions() const { return m_resolutions.load(std::memory_order_relaxed); }

private:
    SentinelWatch(RedisUrl url, RedisOptions options);
    void resolve();

    RedisUrl m_url;
    RedisOptions m_options;
    mutable std::mutex m_mutex;
    Snapshot m_snapshot;
    std::atomic<quint64> m_version{0};
    std::atomic<quint64> m_resolutions{0};
    std::unique_ptr<RefreshThread> m_refresh;  // last: stopped first
};

} // namespace lantern
