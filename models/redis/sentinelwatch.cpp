#include "redis/sentinelwatch.h"

#include "core/errors.h"
#include "redis/redisconnection.h"
#include "redis/redissentinel.h"

#include <map>

namespace lantern {

namespace {

/** However often loops ask, the sentinels are asked at most this often. */
constexpr std::chrono::milliseconds LeastBetweenResolutions{100};

} // namespace

std::shared_ptr<SentinelWatch> SentinelWatch::of(const RedisUrl &url, const RedisOptions &options)
{
    static std::mutex mutex;
    static std::map<QString, std::weak_ptr<SentinelWatch>> watches;
    std::lock_guard lock(mutex);
    std::weak_ptr<SentinelWatch> &entry = watches[url.redacted() + QLatin1Char('\n') + url.password + url.sentinelPassword];
    if (auto watch = entry.lock())
        return watch;
    std::shared_ptr<SentinelWatch> watch(new SentinelWatch(url, options));
    entry = watch;
    return watch;
}

SentinelWatch::SentinelWatch(RedisUrl url, RedisOptions options) : m_url(std::move(url)), m_options(options)
{
    resolve();  // the first answer before the loops start, as ClusterTopology::discover
    m_refresh = std::make_unique<RefreshThread>(RefreshEvery, LeastBetweenResolutions, [this] {
        resolve();
        return true;
    });
}

SentinelWatch::~SentinelWatch() = default;

SentinelWatch::Snapshot SentinelWatch::snapshot() const
{
    std::lock_guard lock(m_mutex);
    return m_snapshot;
}

void SentinelWatch::requestRefresh()
{
    m_refresh->request();
}

void SentinelWatch::resolve()
{
    std::optional<RedisEndpoint> master;
    std::exception_ptr error;
    try {
        master = RedisSentinel::connectToMaster(m_url, m_options)->endpoint();
    } catch (const LanternError &) {
        error = std::current_exception();
    }
    m_resolutions.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard lock(m_mutex);
    if (master && m_snapshot.master == master)
        return;  // nothing new: the loops keep their connections
    m_snapshot.master = master;
    m_snapshot.error = error;
    m_snapshot.version = m_version.fetch_add(1, std::memory_order_release) + 1;
}

} // namespace lantern
