#pragma once

#include "envelope/campaignschedule.h"

#include <QCoreApplication>
#include <QString>

#include <functional>
#include <optional>

namespace lantern {

class KeySchema;
class RedisClient;
class SqlConnection;

/** What one look at the timetable did. */
struct TimetableRound {
    qint64 made = 0;      // transitions this worker made (their audit rows are its)
    qint64 missed = 0;    // transitions this worker gave up (late limit, or impossible by then)
    qint64 prepared = 0;  // launches this worker prepared ahead
    std::optional<qint64> nextDueInMs;  // the next pending transition it knows of, from now (Redis time)
};

/** The timetable as a worker keeps it (issue 30; a duty of WorkerShift). On the servers' clock
    (Redis TIME): launches due within PrepareAheadMs are prepared (envelopes to SQL, pools into
    Redis: everything but the status, by one worker at a time), so that at its time a launch is
    one status change; a transition due is made through CampaignService, whose SQL transaction
    lets exactly one process change the campaign and write its audit row (actor: who scheduled
    it, via: schedule, with how late it was), the timetable row settled in that same transaction.
    A transition later than its late limit is marked missed instead (audited once, "campaign.
    missed"), as is one the campaign can no longer make (a launch of a closed campaign). */
class CampaignTimetable final {
    Q_DECLARE_TR_FUNCTIONS(lantern::CampaignTimetable)

public:
    static constexpr qint64 PrepareAheadMs = 15 * 60 * 1000;
    static constexpr qint64 PrepareLockMs = 120'000;  // one worker prepares a campaign; another takes over after
    static constexpr qint64 ReadEveryMs = 250;        // the timetable is read again at most this often, or when a time comes
    static constexpr qint64 LateToSayMs = 1000;       // a transition later than this is reported

    CampaignTimetable(RedisClient &redis, const KeySchema &keys, QString workerId);

    /** One look: what is due is made, what comes soon is prepared. `keepAlive` runs while a
        preparation takes long (the heartbeat); `report` gets a line for each late or missed
        transition. Outages propagate (the shift backs off); a transition is retried by the next
        look until it is settled. */
    TimetableRound keep(SqlConnection &sql, const std::function<void()> &keepAlive, const std::function<void(const QString &)> &report);

private:
    /** Makes or gives up one due transition; returns whether this worker made it. */
    bool run(SqlConnection &sql, const ScheduledTransition &due, qint64 nowMs, TimetableRound &round, const std::function<void()> &keepAlive,
             const std::function<void(const QString &)> &report);
    /** Gives a transition up, with its audit row, once. */
    void miss(SqlConnection &sql, const ScheduledTransition &due, qint64 nowMs, const QString &reason, TimetableRound &round,
              const std::function<void(const QString &)> &report);
    /** Prepares a launch coming soon unless it is ready or another worker prepares it. */
    void prepareAhead(SqlConnection &sql, const ScheduledTransition &launch, TimetableRound &round, const std::function<void()> &keepAlive);

    RedisClient &m_redis;
    const KeySchema &m_keys;
    QString m_workerId;
    QList<ScheduledTransition> m_known;  // pending within the look-ahead, as last read
    qint64 m_readAtMs = 0;               // Redis time of that read
};

} // namespace lantern
