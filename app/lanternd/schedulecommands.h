#pragma once

#include "envelope/campaignschedule.h"

#include <QJsonArray>

namespace lantern::cli {

class CommandContext;

/** --launch-at, --close-at, --late-limit and --clear as given (times parsed in --tz when they
    carry no offset); InvalidInputError for a malformed one, before anything is contacted. */
ScheduleRequest scheduleRequest(CommandContext &context);
/** The options scheduleRequest() reads, for requireOnly(). */
QStringList scheduleOptions();
/** A campaign's transitions as `campaign schedule` and `campaign create` print them. */
QJsonArray transitionsJson(const QList<ScheduledTransition> &transitions, qint64 nowMs);

int runCampaignSchedule(CommandContext &context);
int runCampaignList(CommandContext &context);

} // namespace lantern::cli
