#include "schedulecommands.h"

#include "commandcontext.h"
#include "core/errors.h"
#include "envelope/campaignservice.h"
#include "envelope/campaignstore.h"
#include "operations/timetableoverview.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

#include <QCoreApplication>

#include <algorithm>
#include <limits>

namespace lantern::cli {

namespace {

QJsonObject transitionJson(const ScheduledTransition &row, qint64 nowMs)
{
    QJsonObject json{{QStringLiteral("campaign"), row.campaignId},
                     {QStringLiteral("action"), scheduledActionName(row.action)},
                     {QStringLiteral("due_at"), CampaignSchedule::isoTime(row.dueAtMs)},
                     {QStringLiteral("state"), ScheduledTransition::stateName(row.state)},
                     {QStringLiteral("scheduled_by"), row.scheduledBy},
                     {QStringLiteral("late_limit_s"), row.lateLimitS ? QJsonValue(*row.lateLimitS) : QJsonValue()}};
    if (row.state == ScheduledTransition::State::Pending)
        json.insert(QStringLiteral("due_in_s"), double(row.dueAtMs - nowMs) / 1000.0);
    if (row.doneAtMs)
        json.insert(QStringLiteral("done_at"), CampaignSchedule::isoTime(*row.doneAtMs));
    if (row.lateMs)
        json.insert(QStringLiteral("late_s"), double(*row.lateMs) / 1000.0);
    if (!row.reason.isEmpty())
        json.insert(QStringLiteral("reason"), row.reason);
    return json;
}

} // namespace

QStringList scheduleOptions()
{
    return {QStringLiteral("launch-at"), QStringLiteral("close-at"), QStringLiteral("late-limit")};
}

ScheduleRequest scheduleRequest(CommandContext &context)
{
    const CommandLine &line = context.line();
    ScheduleRequest request;
    for (const QString &option : {QStringLiteral("launch-at"), QStringLiteral("close-at")}) {
        if (!line.has(option))
            continue;
        const qint64 at = CampaignSchedule::parseTime(line.value(option), context.config().timeZone, option);
        (option == QLatin1String("launch-at") ? request.launchAtMs : request.closeAtMs) = at;
    }
    if (line.has(QStringLiteral("late-limit")))
        request.lateLimitS = line.integer(QStringLiteral("late-limit"), 1, CampaignSchedule::MaxLateLimitS);
    request.clear = line.switches.contains(QStringLiteral("clear"));
    return request;
}

QJsonArray transitionsJson(const QList<ScheduledTransition> &transitions, qint64 nowMs)
{
    QJsonArray list;
    for (const ScheduledTransition &row : transitions)
        list.append(transitionJson(row, nowMs));
    return list;
}

int runCampaignSchedule(CommandContext &context)
{
    const qint64 id = context.line().integer(QStringLiteral("id"), 1, std::numeric_limits<qint64>::max());
    const ScheduleRequest request = scheduleRequest(context);
    const qint64 nowMs = redisTimeMs(context.redis());
    const auto [status, transitions] = CampaignSchedule(context.sql()).change(id, request, context.actor(), nowMs);
    printJson({{QStringLiteral("id"), id},
               {QStringLiteral("status"), campaignStatusName(status)},
               {QStringLiteral("transitions"), transitionsJson(transitions, nowMs)}});
    return 0;
}

int runCampaignList(CommandContext &context)
{
    const int limit = int(context.line().integer(QStringLiteral("limit"), 1, 1000, 100));
    SqlConnection &sql = context.sql();
    CampaignStore store(sql);
    if (!context.line().switches.contains(QStringLiteral("scheduled"))) {
        QJsonArray campaigns;
        for (const Campaign &campaign : store.recent(limit))
            campaigns.append(QJsonObject{{QStringLiteral("id"), campaign.id},
                                         {QStringLiteral("name"), campaign.name},
                                         {QStringLiteral("status"), campaignStatusName(campaign.status)},
                                         {QStringLiteral("total_cents"), campaign.totalCents},
                                         {QStringLiteral("count"), campaign.count}});
        printJson({{QStringLiteral("campaigns"), campaigns}});
        return 0;
    }
    // The timetable: what is pending, and what happened or was missed in the last day.
    const TimetableOverview overview = TimetableOverview::read(context.redis(), sql, context.keys(), limit);
    QJsonArray transitions;
    for (const TimetableEntry &entry : overview.entries) {
        QJsonObject json = transitionJson(entry.transition, overview.serverNowMs);
        json.insert(QStringLiteral("name"), entry.campaignName);
        json.insert(QStringLiteral("status"), campaignStatusName(entry.campaignStatus));
        const bool pendingLaunch = entry.transition.action == ScheduledAction::Launch && entry.transition.state == ScheduledTransition::State::Pending;
        if (pendingLaunch)
            json.insert(QStringLiteral("prepared"), entry.prepared);
        // Four eyes (issue 25): whether a launch above the bound has its second manager yet.
        if (pendingLaunch && entry.needsApproval)
            json.insert(QStringLiteral("approved_by"), entry.approvedBy.isEmpty() ? QJsonValue() : QJsonValue(entry.approvedBy));
        transitions.append(json);
    }
    QJsonObject json{{QStringLiteral("now"), CampaignSchedule::isoTime(overview.serverNowMs)},
                     {QStringLiteral("workers_alive"), overview.workersAlive},
                     {QStringLiteral("transitions"), transitions}};
    if (const std::optional<qint64> due = overview.unattendedDueMs())
        json.insert(QStringLiteral("warning"),
                    QCoreApplication::translate("lantern::cli::Campaign", "a transition is due at %1 and no worker is alive to make it: start lanternd work")
                            .arg(CampaignSchedule::isoTime(*due)));
    printJson(json);
    return 0;
}

} // namespace lantern::cli
