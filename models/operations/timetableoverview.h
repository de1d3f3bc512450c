#pragma once

#include "envelope/campaign.h"
#include "envelope/campaignschedule.h"

#include <QList>
#include <QString>

namespace lantern {

class KeySchema;
class RedisClient;
class SqlConnection;

/** One transition of the timetable with what an operator needs beside it. */
struct TimetableEntry {
    ScheduledTransition transition;
    QString campaignName;
    CampaignStatus campaignStatus = CampaignStatus::Draft;
    bool prepared = false;  // a pending launch whose envelopes are in SQL and whose pools are loaded
    bool needsApproval = false;  // above the four-eyes bound (issue 25): it launches only once approved
    QString approvedBy;          // the account that approved it; empty: not (yet)
};

/** The campaigns' timetable as `lanternd campaign list --scheduled` prints it and the console's
    Campaigns view shows it (issue 30): pending transitions and those of the last HistoryMs, by
    time, on the servers' clock, with how many workers are alive to make them. */
struct TimetableOverview {
    static constexpr qint64 HistoryMs = 24LL * 3600 * 1000;
    static constexpr qint64 NoWorkerWarningMs = 10LL * 60 * 1000;

    QList<TimetableEntry> entries;
    qint64 serverNowMs = 0;  // Redis TIME when it was read
    qint64 workersAlive = 0;

    /** The first pending transition's time, when it is due within NoWorkerWarningMs and no worker
        is alive to make it: what deserves a warning. */
    std::optional<qint64> unattendedDueMs() const;

    static TimetableOverview read(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, int limit = 1000);
};

} // namespace lantern
