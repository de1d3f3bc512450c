#include "api/apimetrics.h"

namespace lantern {

namespace {

constexpr auto Relaxed = std::memory_order_relaxed;

QByteArray number(double value)
{
    return QByteArray::number(value, 'g', 12);
}

QByteArray family(const char *name, const char *type, const char *help)
{
    return QByteArray("# HELP ") + name + ' ' + help + "\n# TYPE " + name + ' ' + type + '\n';
}

/** The campaigns' statuses a gauge counts; any other (a repair's) as "other". */
constexpr std::array<const char *, 4> CampaignStatuses{"live", "paused", "closed", "other"};

bool open(const QueueStatus &queue)
{
    return queue.campaignStatus == QLatin1String("live") || queue.campaignStatus == QLatin1String("paused");
}

} // namespace

const char *ApiMetrics::endpointName(ApiEndpoint endpoint)
{
    switch (endpoint) {
    case ApiEndpoint::Checkin: return "checkin";
    case ApiEndpoint::Calendar: return "calendar";
    case ApiEndpoint::Grab: return "grab";
    case ApiEndpoint::Campaign: return "campaign";
    case ApiEndpoint::Health: return "healthz";
    case ApiEndpoint::Metrics: return "metrics";
    case ApiEndpoint::Live: return "livez";
    case ApiEndpoint::Unknown: break;
    }
    return "unknown";
}

int ApiMetrics::statusIndex(int status)
{
    for (size_t i = 0; i + 1 < Statuses.size(); ++i) {
        if (Statuses[i] == status)
            return int(i);
    }
    return int(Statuses.size() - 1);
}

void ApiMetrics::recordRequest(ApiEndpoint endpoint, int status, double seconds)
{
    PerEndpoint &slot = m_endpoints[size_t(endpoint)];
    slot.byStatus[size_t(statusIndex(status))].fetch_add(1, Relaxed);
    slot.count.fetch_add(1, Relaxed);
    slot.sumNs.fetch_add(quint64(seconds * 1e9), Relaxed);
    for (size_t i = 0; i < LatencyBuckets.size(); ++i) {
        if (seconds <= LatencyBuckets[i]) {
            slot.buckets[i].fetch_add(1, Relaxed);
            break;
        }
    }
}

void ApiMetrics::recordGrab(const QString &outcome)
{
    for (size_t i = 0; i < GrabOutcomes.size(); ++i) {
        if (outcome == QLatin1String(GrabOutcomes[i])) {
            m_grabs[i].fetch_add(1, Relaxed);
            return;
        }
    }
}

void ApiMetrics::recordCheckin(bool already)
{
    (already ? m_checkinsAlready : m_checkinsNew).fetch_add(1, Relaxed);
}

void ApiMetrics::recordRedisBatches(quint64 commands, quint64 writes)
{
    if (commands)
        m_redisCommands.fetch_add(commands, Relaxed);
    if (writes)
        m_redisWrites.fetch_add(writes, Relaxed);
}

void ApiMetrics::observeRedisRuns(const QByteArray &runs)
{
    const std::lock_guard lock(m_runsMutex);
    if (!m_lastRuns.isEmpty() && runs != m_lastRuns)
        m_redisRestarts.fetch_add(1, Relaxed);
    m_lastRuns = runs;
}

void ApiMetrics::recordRedisRedirects(quint64 moved, quint64 asked, quint64 retried)
{
    if (moved)
        m_redisMoved.fetch_add(moved, Relaxed);
    if (asked)
        m_redisAsked.fetch_add(asked, Relaxed);
    if (retried)
        m_redisRetried.fetch_add(retried, Relaxed);
}

quint64 ApiMetrics::requests(ApiEndpoint endpoint, int status) const
{
    return m_endpoints[size_t(endpoint)].byStatus[size_t(statusIndex(status))].load(Relaxed);
}

quint64 ApiMetrics::grabs(const QString &outcome) const
{
    for (size_t i = 0; i < GrabOutcomes.size(); ++i) {
        if (outcome == QLatin1String(GrabOutcomes[i]))
            return m_grabs[i].load(Relaxed);
    }
    return 0;
}

QByteArray ApiMetrics::renderPayouts(const QueueOverview &queues)
{
    // Each live worker's payout figures as it said them with its last beat (issue 12): counters
    // since the worker started (a restart starts them over, as Prometheus expects), and gauges.
    struct Series {
        const char *name;
        const char *type;
        const char *help;
        QByteArray (*value)(const WorkerPayoutFigures &);
    };
    static const Series series[] = {
            {"lantern_worker_payouts_paid_total", "counter", "Payouts the provider confirmed, by worker.",
             [](const WorkerPayoutFigures &f) { return QByteArray::number(f.paid); }},
            {"lantern_worker_payout_calls_total", "counter", "Calls sent to the payout provider, by worker.",
             [](const WorkerPayoutFigures &f) { return QByteArray::number(f.calls); }},
            {"lantern_worker_payout_provider_errors_total", "counter", "Payout calls that did not come back paid (timeouts, 5xx, refusals), by worker.",
             [](const WorkerPayoutFigures &f) { return QByteArray::number(f.providerErrors); }},
            {"lantern_worker_payouts_in_flight", "gauge", "Payout calls out at the worker's last heartbeat.",
             [](const WorkerPayoutFigures &f) { return QByteArray::number(f.inFlight); }},
            {"lantern_worker_payouts_per_second", "gauge", "Payouts confirmed per second between the worker's last two heartbeats.",
             [](const WorkerPayoutFigures &f) { return number(f.paidPerSecond); }},
            {"lantern_worker_checkins_persisted_total", "counter", "Check-in log rows the worker wrote (the storm's drain), by worker.",
             [](const WorkerPayoutFigures &f) { return QByteArray::number(f.checkinsPersisted); }},
            {"lantern_worker_grabs_persisted_total", "counter", "Grab rows the worker wrote to the ledger (the storm's drain), by worker.",
             [](const WorkerPayoutFigures &f) { return QByteArray::number(f.grabsPersisted); }},
    };
    QByteArray out;
    for (const Series &s : series) {
        out += QByteArray("# HELP ") + s.name + ' ' + s.help + "\n# TYPE " + s.name + ' ' + s.type + '\n';
        for (const WorkerStatus &worker : queues.workers) {
            if (worker.payouts)
                out += QByteArray(s.name) + "{worker=\"" + worker.id.toUtf8() + "\"} " + s.value(*worker.payouts) + '\n';
        }
    }
    return out;
}

QByteArray ApiMetrics::renderTimetable(const TimetableSnapshot &timetable)
{
    // One series per transition: pending ones count down to their time (negative once overdue,
    // while no worker makes them); made or missed ones say how late they were.
    QByteArray due = "# HELP lantern_campaign_transitions_due_seconds Seconds until each pending scheduled campaign transition "
                     "(negative: overdue).\n# TYPE lantern_campaign_transitions_due_seconds gauge\n";
    QByteArray late = "# HELP lantern_campaign_transitions_late_seconds How late each scheduled campaign transition of the last day "
                      "was made, or was when it was given up (state=\"missed\").\n# TYPE lantern_campaign_transitions_late_seconds gauge\n";
    for (const ScheduledTransition &row : timetable.transitions) {
        const QByteArray labels = "campaign=\"" + QByteArray::number(row.campaignId) + "\",action=\"" + scheduledActionName(row.action).toLatin1() + '"';
        if (row.state == ScheduledTransition::State::Pending)
            due += "lantern_campaign_transitions_due_seconds{" + labels + "} " + number(double(row.dueAtMs - timetable.nowMs) / 1000.0) + '\n';
        else if (row.lateMs)
            late += "lantern_campaign_transitions_late_seconds{" + labels + ",state=\"" + ScheduledTransition::stateName(row.state).toLatin1() + "\"} "
                    + number(double(*row.lateMs) / 1000.0) + '\n';
    }
    return due + late;
}

QByteArray ApiMetrics::renderQueues(const QueueOverview &queues)
{
    QByteArray out = family("lantern_queue_depth", "gauge", "Entries waiting in a queue.");
    for (const QueueStatus &queue : queues.queues)
        out += "lantern_queue_depth{queue=\"" + queue.name.toUtf8() + "\"} " + QByteArray::number(queue.depth) + '\n';
    out += family("lantern_queue_oldest_age_seconds", "gauge", "Age of the oldest waiting entry.");
    for (const QueueStatus &queue : queues.queues)
        out += "lantern_queue_oldest_age_seconds{queue=\"" + queue.name.toUtf8() + "\"} " + number(queue.oldestAgeS) + '\n';
    out += family("lantern_dead_letter_entries", "gauge", "Entries set aside on a queue's dead-letter lists.");
    for (const QueueStatus &queue : queues.queues)
        out += "lantern_dead_letter_entries{queue=\"" + queue.name.toUtf8() + "\"} " + QByteArray::number(queue.deadLetter) + '\n';
    qint64 alive = 0;
    qint64 backup = 0;
    QByteArray beats = family("lantern_worker_last_heartbeat_age_seconds", "gauge", "Seconds since each live worker's last heartbeat.");
    for (const WorkerStatus &worker : queues.workers) {
        alive += worker.alive ? 1 : 0;
        backup += worker.backupDepth;
        if (worker.lastBeatS)
            beats += "lantern_worker_last_heartbeat_age_seconds{worker=\"" + worker.id.toUtf8() + "\"} " + number(*worker.lastBeatS) + '\n';
    }
    out += family("lantern_workers", "gauge", "Known workers by heartbeat state.") + "lantern_workers{state=\"alive\"} " + QByteArray::number(alive)
           + "\nlantern_workers{state=\"dead\"} " + QByteArray::number(qint64(queues.workers.size()) - alive) + '\n' + beats;
    out += family("lantern_backup_entries", "gauge", "Entries held in workers' backup lists.") + "lantern_backup_entries " + QByteArray::number(backup) + '\n';

    // The launched campaigns: how many by status, what the open ones have left, and the grabs the
    // ledger refused because Redis had lost state (a set that only grows while the campaign lives).
    std::array<qint64, CampaignStatuses.size()> byStatus{};
    QByteArray remaining = family("lantern_campaign_envelopes_remaining", "gauge", "Envelopes left in each live or paused campaign's pools.");
    QByteArray refused = family("lantern_ledger_refused_grabs_total", "counter",
                                "Grabs the ledger refused and Redis undid (Redis had lost state: a restart or failover), by campaign.");
    for (const QueueStatus &queue : queues.queues) {
        if (!queue.campaignId)
            continue;
        size_t status = CampaignStatuses.size() - 1;
        for (size_t i = 0; i + 1 < CampaignStatuses.size(); ++i) {
            if (queue.campaignStatus == QLatin1String(CampaignStatuses[i]))
                status = i;
        }
        ++byStatus[status];
        const QByteArray label = "{campaign=\"" + QByteArray::number(*queue.campaignId) + "\"} ";
        if (open(queue))
            remaining += "lantern_campaign_envelopes_remaining" + label + QByteArray::number(queue.remainingEnvelopes) + '\n';
        refused += "lantern_ledger_refused_grabs_total" + label + QByteArray::number(queue.refused) + '\n';
    }
    out += family("lantern_campaigns", "gauge", "Launched campaigns by their status in Redis.");
    for (size_t i = 0; i < CampaignStatuses.size(); ++i)
        out += "lantern_campaigns{status=\"" + QByteArray(CampaignStatuses[i]) + "\"} " + QByteArray::number(byStatus[i]) + '\n';
    return out + remaining + refused;
}

QByteArray ApiMetrics::renderLedger(const LedgerCheckResult &ledger, qint64 nowMs)
{
    QByteArray out = family("lantern_ledger_balanced", "gauge",
                            "Whether the workers' last ledger check found each live or paused campaign balanced between SQL and Redis (1) or not (0).");
    for (const LedgerBalance &campaign : ledger.campaigns)
        out += "lantern_ledger_balanced{campaign=\"" + QByteArray::number(campaign.campaignId) + "\"} " + (campaign.balanced ? "1" : "0") + '\n';
    out += family("lantern_ledger_check_age_seconds", "gauge", "Seconds since the workers' last ledger check.")
           + "lantern_ledger_check_age_seconds " + number(double(std::max<qint64>(0, nowMs - ledger.atMs)) / 1000.0) + '\n';
    return out;
}

QByteArray ApiMetrics::render(const MetricsScrape &scrape) const
{
    QByteArray out;
    out.reserve(8192);
    out += "# HELP lantern_http_requests_total HTTP requests answered, by endpoint and status code.\n"
           "# TYPE lantern_http_requests_total counter\n";
    for (int e = 0; e < ApiEndpointCount; ++e) {
        const PerEndpoint &slot = m_endpoints[size_t(e)];
        for (size_t s = 0; s < Statuses.size(); ++s) {
            const quint64 value = slot.byStatus[s].load(Relaxed);
            if (value == 0)
                continue;
            out += "lantern_http_requests_total{endpoint=\"" + QByteArray(endpointName(ApiEndpoint(e))) + "\",code=\"" +
                   (Statuses[s] ? QByteArray::number(Statuses[s]) : QByteArray("other")) + "\"} " + QByteArray::number(value) + '\n';
        }
    }
    out += "# HELP lantern_http_request_duration_seconds Time from a parsed request to its response, by endpoint.\n"
           "# TYPE lantern_http_request_duration_seconds histogram\n";
    for (int e = 0; e < ApiEndpointCount; ++e) {
        const PerEndpoint &slot = m_endpoints[size_t(e)];
        const QByteArray label = "endpoint=\"" + QByteArray(endpointName(ApiEndpoint(e))) + '"';
        quint64 cumulative = 0;
        for (size_t b = 0; b < LatencyBuckets.size(); ++b) {
            cumulative += slot.buckets[b].load(Relaxed);
            out += "lantern_http_request_duration_seconds_bucket{" + label + ",le=\"" + number(LatencyBuckets[b]) + "\"} " +
                   QByteArray::number(cumulative) + '\n';
        }
        const quint64 count = slot.count.load(Relaxed);
        out += "lantern_http_request_duration_seconds_bucket{" + label + ",le=\"+Inf\"} " + QByteArray::number(count) + '\n';
        out += "lantern_http_request_duration_seconds_sum{" + label + "} " + number(double(slot.sumNs.load(Relaxed)) / 1e9) + '\n';
        out += "lantern_http_request_duration_seconds_count{" + label + "} " + QByteArray::number(count) + '\n';
    }
    out += "# HELP lantern_grabs_total Grab outcomes answered by this server.\n"
           "# TYPE lantern_grabs_total counter\n";
    for (size_t i = 0; i < GrabOutcomes.size(); ++i)
        out += "lantern_grabs_total{outcome=\"" + QByteArray(GrabOutcomes[i]) + "\"} " + QByteArray::number(m_grabs[i].load(Relaxed)) + '\n';
    out += "# HELP lantern_grabs_unreplicated_total Grabs answered (grab-wait on) before the replicas asked for had their writes.\n"
           "# TYPE lantern_grabs_unreplicated_total counter\n"
           "lantern_grabs_unreplicated_total " + QByteArray::number(m_grabsUnreplicated.load(Relaxed)) + '\n';
    out += "# HELP lantern_checkins_total Check-ins answered by this server (already: the day was signed before).\n"
           "# TYPE lantern_checkins_total counter\n"
           "lantern_checkins_total{result=\"new\"} " + QByteArray::number(m_checkinsNew.load(Relaxed)) + "\n"
           "lantern_checkins_total{result=\"already\"} " + QByteArray::number(m_checkinsAlready.load(Relaxed)) + '\n';
    if (scrape.queues) {
        out += renderQueues(*scrape.queues);
        out += renderPayouts(*scrape.queues);
    }
    if (scrape.ledger)
        out += renderLedger(*scrape.ledger, scrape.nowMs);
    out += "# HELP lantern_redis_commands_total Commands the event loops sent to Redis.\n# TYPE lantern_redis_commands_total counter\n"
           "lantern_redis_commands_total " + QByteArray::number(m_redisCommands.load(Relaxed)) + '\n';
    out += "# HELP lantern_redis_writes_total write() calls that carried them (commands per write: the batching).\n"
           "# TYPE lantern_redis_writes_total counter\n"
           "lantern_redis_writes_total " + QByteArray::number(m_redisWrites.load(Relaxed)) + '\n';
    out += "# HELP lantern_redis_cluster_replies_total Redis Cluster replies followed (moved, ask) or waited out (retried).\n"
           "# TYPE lantern_redis_cluster_replies_total counter\n"
           "lantern_redis_cluster_replies_total{kind=\"moved\"} " + QByteArray::number(m_redisMoved.load(Relaxed)) + "\n"
           "lantern_redis_cluster_replies_total{kind=\"ask\"} " + QByteArray::number(m_redisAsked.load(Relaxed)) + "\n"
           "lantern_redis_cluster_replies_total{kind=\"retried\"} " + QByteArray::number(m_redisRetried.load(Relaxed)) + '\n';
    if (scrape.timetable)
        out += renderTimetable(*scrape.timetable);
    out += family("lantern_redis_restarts_total", "counter", "Redis restarts or failovers this server saw (a master's run_id changed between scrapes).")
           + "lantern_redis_restarts_total " + QByteArray::number(m_redisRestarts.load(Relaxed)) + '\n';
    out += family("lantern_redis_loading", "gauge", "Whether Redis answered this scrape that it is loading its dataset.")
           + "lantern_redis_loading " + (scrape.redisLoading ? "1" : "0") + '\n';
    out += "# HELP lantern_redis_up Whether Redis answered this scrape.\n# TYPE lantern_redis_up gauge\n"
           "lantern_redis_up " + QByteArray(scrape.queues ? "1" : "0") + '\n';
    return out;
}

} // namespace lantern
