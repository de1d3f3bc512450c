#pragma once

#include "envelope/campaignschedule.h"
#include "operations/ledgerbalancecheck.h"
#include "operations/queueoverview.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <array>
#include <atomic>
#include <mutex>
#include <optional>

namespace lantern {

/** The campaigns' timetable at a scrape (issue 30), read from SQL, on the servers' clock. */
struct TimetableSnapshot {
    QList<ScheduledTransition> transitions;  // pending, and made or missed in the last day
    qint64 nowMs = 0;                        // Redis TIME
};

/** What one scrape read from Redis and SQL; a part is left out when its server did not answer. */
struct MetricsScrape {
    std::optional<QueueOverview> queues;        // set when Redis answered
    std::optional<TimetableSnapshot> timetable;
    std::optional<LedgerCheckResult> ledger;    // the workers' last ledger check, while it lives
    bool redisLoading = false;                  // Redis answered -LOADING
    qint64 nowMs = 0;                           // this host's clock, as the workers' beats
};

/** The HTTP API's endpoints, for routing, limits and metrics. */
enum class ApiEndpoint { Checkin, Calendar, Grab, Campaign, Health, Metrics, Live, Unknown };
inline constexpr int ApiEndpointCount = 8;

/** Counters and latency histograms shared by every server thread (lock-free), rendered in the
    Prometheus text format for GET /metrics. */
class ApiMetrics final {
public:
    static constexpr std::array<double, 12> LatencyBuckets{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                           0.05,   0.1,   0.25,   0.5,   1.0,  2.5};
    static constexpr std::array<int, 10> Statuses{200, 400, 401, 404, 405, 409, 429, 500, 503, 0};  // 0: any other
    static constexpr std::array<const char *, 5> GrabOutcomes{"ok", "already", "sold_out", "not_live", "too_many_attempts"};

    void recordRequest(ApiEndpoint endpoint, int status, double seconds);
    void recordGrab(const QString &outcome);
    /** A grab answered (grab-wait on) before the replicas asked for had its writes. */
    void recordUnreplicatedGrab() { m_grabsUnreplicated.fetch_add(1, std::memory_order_relaxed); }
    quint64 unreplicatedGrabs() const { return m_grabsUnreplicated.load(std::memory_order_relaxed); }
    void recordCheckin(bool already);
    /** Commands the event loops' RedisPipes sent, and the write() calls that carried them. */
    void recordRedisBatches(quint64 commands, quint64 writes);
    /** Redis Cluster replies the event loops followed: -MOVED, -ASK, and those waited out
        (-TRYAGAIN, -CLUSTERDOWN, ...): the share of commands a reshard or failover touched. */
    void recordRedisRedirects(quint64 moved, quint64 asked, quint64 retried);
    /** The run_id of every master a scrape saw (RedisRunWatch): a change from the last one seen
        counts a Redis restart or failover; the first one seen counts nothing. */
    void observeRedisRuns(const QByteArray &runs);

    quint64 requests(ApiEndpoint endpoint, int status) const;
    quint64 grabs(const QString &outcome) const;

    /** The whole exposition: the counters, and the gauges of what `scrape` holds. */
    QByteArray render(const MetricsScrape &scrape) const;

    static const char *endpointName(ApiEndpoint endpoint);

private:
    static int statusIndex(int status);
    static QByteArray renderPayouts(const QueueOverview &queues);
    static QByteArray renderQueues(const QueueOverview &queues);
    static QByteArray renderLedger(const LedgerCheckResult &ledger, qint64 nowMs);
    static QByteArray renderTimetable(const TimetableSnapshot &timetable);

    struct PerEndpoint {
        std::array<std::atomic<quint64>, Statuses.size()> byStatus{};
        std::array<std::atomic<quint64>, LatencyBuckets.size()> buckets{};  // non-cumulative
        std::atomic<quint64> count{0};
        std::atomic<quint64> sumNs{0};
    };
    std::array<PerEndpoint, ApiEndpointCount> m_endpoints{};
    std::array<std::atomic<quint64>, GrabOutcomes.size()> m_grabs{};
    std::atomic<quint64> m_grabsUnreplicated{0};
    std::atomic<quint64> m_checkinsNew{0};
    std::atomic<quint64> m_checkinsAlready{0};
    std::atomic<quint64> m_redisCommands{0};
    std::atomic<quint64> m_redisWrites{0};
    std::atomic<quint64> m_redisMoved{0};
    std::atomic<quint64> m_redisAsked{0};
    std::atomic<quint64> m_redisRetried{0};
    std::atomic<quint64> m_redisRestarts{0};
    std::mutex m_runsMutex;
    QByteArray m_lastRuns;  // guarded by m_runsMutex
};

} // namespace lantern
