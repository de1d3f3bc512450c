#include "operations/timetableoverview.h"

#include "envelope/campaignservice.h"
#include "envelope/campaignstore.h"
#include "operations/queueoverview.h"

#include <QDateTime>
#include <QHash>

#include <algorithm>

namespace lantern {

std::optional<qint64> TimetableOverview::unattendedDueMs() const
{
    if (workersAlive > 0)
        return std::nullopt;
    for (const TimetableEntry &entry : entries) {
        if (entry.transition.state == ScheduledTransition::State::Pending && entry.transition.dueAtMs - serverNowMs <= NoWorkerWarningMs)
            return entry.transition.dueAtMs;
    }
    return std::nullopt;
}

TimetableOverview TimetableOverview::read(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, int limit)
{
    TimetableOverview overview;
    overview.serverNowMs = redisTimeMs(redis);
    CampaignStore store(sql);
    CampaignService service(redis, sql, keys);
    QHash<qint64, std::optional<Campaign>> campaigns;
    for (const ScheduledTransition &row : CampaignSchedule(sql).timetable(overview.serverNowMs - HistoryMs, limit)) {
        if (!campaigns.contains(row.campaignId))
            campaigns.insert(row.campaignId, store.find(row.campaignId));
        TimetableEntry entry;
        entry.transition = row;
        if (const std::optional<Campaign> &campaign = campaigns.value(row.campaignId)) {
            entry.campaignName = campaign->name;
            entry.campaignStatus = campaign->status;
            entry.needsApproval = campaign->needsApproval;
            entry.approvedBy = campaign->approvedBy;
            if (row.action == ScheduledAction::Launch && row.state == ScheduledTransition::State::Pending && row.preparedAtMs)
                entry.prepared = service.poolsLoaded(*campaign);
        }
        overview.entries << entry;
    }
    // Only the heartbeats: the whole queue overview read every worker's backup lists (issue 26).
    overview.workersAlive = QueueOverview::aliveWorkers(redis, keys);
    return overview;
}

} // namespace lantern
