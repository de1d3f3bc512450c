#pragma once

#include "core/errors.h"
#include "envelope/campaign.h"

#include <QCoreApplication>
#include <QList>
#include <QString>

#include <optional>

class QTimeZone;

namespace lantern {

class RedisClient;
class SqlConnection;

/** A transition a campaign makes at a set time (issue 30). */
enum class ScheduledAction { Launch, Close };
QString scheduledActionName(ScheduledAction action);  // "launch", "close"

/** One row of campaign_schedule: a campaign's launch or close at `dueAtMs` (Redis time). */
struct ScheduledTransition {
    enum class State { Pending, Done, Missed };

    qint64 campaignId = 0;
    ScheduledAction action = ScheduledAction::Launch;
    qint64 dueAtMs = 0;
    std::optional<qint64> lateLimitS;  // skipped (missed) when it would happen later than this; none: however late
    QString scheduledBy;               // the audit actor of the transition
    qint64 scheduledAtMs = 0;
    State state = State::Pending;
    std::optional<qint64> preparedAtMs;  // launch: the envelopes were in SQL ahead of time
    std::optional<qint64> doneAtMs;      // when it happened or was given up
    std::optional<qint64> lateMs;        // how late it happened, or would have
    QString reason;                      // missed: why; done: what was found ("already live")

    static QString stateName(State state);  // "pending", "done", "missed"
};

/** What `campaign create --launch-at/--close-at` and `campaign schedule` ask for. */
struct ScheduleRequest {
    std::optional<qint64> launchAtMs;
    std::optional<qint64> closeAtMs;
    std::optional<qint64> lateLimitS;
    bool clear = false;    // drop the campaign's pending transitions
    bool replace = false;  // the pending timetable becomes exactly these times (the console's "Times…")

    bool isEmpty() const { return !launchAtMs && !closeAtMs && !lateLimitS && !clear && !replace; }
};

/** Why a ScheduleRequest cannot apply (CampaignSchedule::problem); `atMs`/`otherMs` name the
    times involved. The command line and the console each put it in their own words. */
struct ScheduleProblem {
    enum class Kind {
        ClearWithTimes,         // --clear together with a time or a late limit
        NothingAsked,
        LateLimitOutOfRange,    // atMs: the limit in seconds
        CampaignClosed,
        LaunchNotDraft,
        LaunchPassed,           // atMs: the launch, otherMs: the servers' time
        ClosePassed,            // atMs: the close, otherMs: the servers' time
        CloseNotAfterLaunch,    // atMs: the close, otherMs: the launch
        LateLimitWithoutTimes,
    };
    Kind kind = Kind::NothingAsked;
    qint64 atMs = 0;
    qint64 otherMs = 0;
};

/** What validate() throws: the command line's words, and the problem for a caller that words
    it otherwise (the console). */
class ScheduleRefusedError final : public InvalidInputError {
public:
    ScheduleRefusedError(const QString &message, const ScheduleProblem &problem) : InvalidInputError(message), m_problem(problem) {}
    const ScheduleProblem &problem() const { return m_problem; }

private:
    ScheduleProblem m_problem;
};

/** The SQL side of the timetable: campaign_schedule, the rules a request must meet, and the
    times it is given in. Every write that changes the timetable writes its audit row in the same
    transaction ("campaign.schedule"). */
class CampaignSchedule final {
    Q_DECLARE_TR_FUNCTIONS(lantern::CampaignSchedule)

public:
    static constexpr qint64 MaxLateLimitS = 7LL * 86400;

    explicit CampaignSchedule(SqlConnection &sql) : m_sql(sql) {}

    /** ISO 8601 with an offset or Z ("2026-12-31T20:00:00+08:00"), or a local date and time
        ("2026-12-31T20:00[:ss]" or with a space) in `zone`; ms since the epoch. Throws
        InvalidInputError naming `option` for anything else, and for a local time the zone skips
        (a daylight-saving gap). */
    static qint64 parseTime(const QString &text, const QTimeZone &zone, const QString &option);
    /** "2026-12-31T12:00:00.000Z" */
    static QString isoTime(qint64 ms);

    /** Throws InvalidInputError, before anything is written, when `request` cannot apply to a
        campaign with `status` and the transitions `current` pending: a time not after `nowMs`, a
        close not after the launch, a launch for a campaign that is not a draft, any time for a
        closed campaign, a late limit out of range, --clear with a time. */
    static void validate(const ScheduleRequest &request, CampaignStatus status, const QList<ScheduledTransition> &current, qint64 nowMs);
    /** The rules validate() applies, as a value: the first one `request` breaks, or none. */
    static std::optional<ScheduleProblem> problem(const ScheduleRequest &request, CampaignStatus status, const QList<ScheduledTransition> &current,
                                                  qint64 nowMs);

    /** The campaign's transitions, launch first. */
    QList<ScheduledTransition> of(qint64 campaignId);
    /** Applies a validated request in one transaction with its audit row; returns the campaign's
        transitions after it. A time given replaces the pending one (or a missed one: it is
        scheduled again). */
    QList<ScheduledTransition> apply(qint64 campaignId, const ScheduleRequest &request, const QString &actor, qint64 nowMs);
    /** apply() without its transaction, for a caller that holds one (a campaign created with
        its times: the campaign, its audit row and its timetable commit together). */
    void record(qint64 campaignId, const ScheduleRequest &request, const QString &actor, qint64 nowMs);
    /** `campaign schedule` and the console's "Times…": checks the request against the campaign
        as it is (InvalidInputError for an unknown id or a request validate() refuses) and
        applies it, in one transaction; returns the campaign's status and transitions after it. */
    std::pair<CampaignStatus, QList<ScheduledTransition>> change(qint64 campaignId, const ScheduleRequest &request, const QString &actor,
                                                                 qint64 nowMs);

    /** Pending transitions due before `untilMs`, earliest first (the workers' look-ahead). */
    QList<ScheduledTransition> pendingBefore(qint64 untilMs);
    /** Pending transitions and those that happened or were missed since `sinceMs`, by due time:
        the timetable as `campaign list --scheduled`, /metrics and the console show it. */
    QList<ScheduledTransition> timetable(qint64 sinceMs, int limit = 1000);

    /** Records that the launch's envelopes are in SQL (no audit: nothing an operator decided). */
    void markPrepared(qint64 campaignId, qint64 atMs);
    /** pending -> done or missed; true when this call moved it (exactly one caller does). */
    bool settle(qint64 campaignId, ScheduledAction action, ScheduledTransition::State state, qint64 atMs, std::optional<qint64> lateMs,
                const QString &reason);

private:
    SqlConnection &m_sql;
};

/** The servers' clock: Redis TIME, in ms since the epoch. Every worker and command that keeps
    the timetable reads it, so transitions follow one clock, not each machine's. */
qint64 redisTimeMs(RedisClient &redis);

} // namespace lantern
