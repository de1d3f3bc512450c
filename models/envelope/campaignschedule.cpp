#include "envelope/campaignschedule.h"

#include "audit/auditlog.h"
#include "core/errors.h"
#include "envelope/campaignstore.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "sql/sqlconnection.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSqlQuery>
#include <QTimeZone>

namespace lantern {

namespace {

const QString Columns = QStringLiteral(
        "campaign_id, action, due_at_ms, late_limit_s, scheduled_by, scheduled_at_ms, state, prepared_at_ms, done_at_ms, late_ms, reason");

std::optional<qint64> optionalInteger(const QVariant &value)
{
    return value.isNull() ? std::nullopt : std::optional<qint64>(value.toLongLong());
}

QVariant nullable(const std::optional<qint64> &value)
{
    return value ? QVariant(*value) : QVariant(QMetaType::fromType<qint64>());
}

ScheduledTransition rowOf(const QSqlQuery &row)
{
    ScheduledTransition transition;
    transition.campaignId = row.value(0).toLongLong();
    transition.action = row.value(1).toString() == QLatin1String("close") ? ScheduledAction::Close : ScheduledAction::Launch;
    transition.dueAtMs = row.value(2).toLongLong();
    transition.lateLimitS = optionalInteger(row.value(3));
    transition.scheduledBy = row.value(4).toString();
    transition.scheduledAtMs = row.value(5).toLongLong();
    const QString state = row.value(6).toString();
    transition.state = state == QLatin1String("done")     ? ScheduledTransition::State::Done
                       : state == QLatin1String("missed") ? ScheduledTransition::State::Missed
                                                          : ScheduledTransition::State::Pending;
    transition.preparedAtMs = optionalInteger(row.value(7));
    transition.doneAtMs = optionalInteger(row.value(8));
    transition.lateMs = optionalInteger(row.value(9));
    transition.reason = row.value(10).toString();
    return transition;
}

QList<ScheduledTransition> rowsOf(QSqlQuery query)
{
    QList<ScheduledTransition> rows;
    while (query.next())
        rows << rowOf(query);
    return rows;
}

const ScheduledTransition *pendingOf(const QList<ScheduledTransition> &rows, ScheduledAction action)
{
    for (const ScheduledTransition &row : rows) {
        if (row.action == action && row.state == ScheduledTransition::State::Pending)
            return &row;
    }
    return nullptr;
}

} // namespace

QString scheduledActionName(ScheduledAction action)
{
    return action == ScheduledAction::Close ? QStringLiteral("close") : QStringLiteral("launch");
}

QString ScheduledTransition::stateName(State state)
{
    switch (state) {
    case State::Done: return QStringLiteral("done");
    case State::Missed: return QStringLiteral("missed");
    case State::Pending: break;
    }
    return QStringLiteral("pending");
}

qint64 CampaignSchedule::parseTime(const QString &text, const QTimeZone &zone, const QString &option)
{
    static const QRegularExpression format(QStringLiteral(
            "^(\\d{4})-(\\d{2})-(\\d{2})[T ](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,3}))?)?(Z|[+-]\\d{2}:?\\d{2})?$"));
    const auto invalid = [&] {
        return InvalidInputError(tr("invalid --%1 '%2': expected an ISO 8601 time with its offset (2026-12-31T20:00:00+08:00) or a local "
                                    "time (2026-12-31T20:00) in the --tz zone")
                                         .arg(option, text));
    };
    const QRegularExpressionMatch match = format.match(text.trimmed());
    if (!match.hasMatch())
        throw invalid();
    const QDate date(match.captured(1).toInt(), match.captured(2).toInt(), match.captured(3).toInt());
    const QString fraction = match.captured(7);
    const QTime time(match.captured(4).toInt(), match.captured(5).toInt(), match.captured(6).toInt(),
                     fraction.isEmpty() ? 0 : QString(fraction + QStringLiteral("00")).left(3).toInt());
    if (!date.isValid() || !time.isValid())
        throw invalid();
    const QString offset = match.captured(8);
    QDateTime moment;
    if (offset == QLatin1String("Z")) {
        moment = QDateTime(date, time, QTimeZone::utc());
    } else if (!offset.isEmpty()) {
        const QString digits = QString(offset).remove(QLatin1Char(':'));
        const int hours = digits.mid(1, 2).toInt();
        const int minutes = digits.mid(3, 2).toInt();
        if (hours > 18 || minutes > 59)
            throw invalid();
        const int seconds = (hours * 3600 + minutes * 60) * (offset.startsWith(QLatin1Char('-')) ? -1 : 1);
        moment = QDateTime(date, time, QTimeZone(seconds));
    } else {
        moment = QDateTime(date, time, zone);
        // A local time the zone skips (the hour a daylight-saving change jumps over) is no time.
        if (!moment.isValid() || moment.date() != date || moment.time() != time)
            throw InvalidInputError(tr("invalid --%1 '%2': there is no such local time in %3 (a daylight-saving change skips it)")
                                            .arg(option, text, QString::fromUtf8(zone.id())));
    }
    if (!moment.isValid())
        throw invalid();
    return moment.toMSecsSinceEpoch();
}

QString CampaignSchedule::isoTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

std::optional<ScheduleProblem> CampaignSchedule::problem(const ScheduleRequest &request, CampaignStatus status,
                                                        const QList<ScheduledTransition> &current, qint64 nowMs)
{
    using Kind = ScheduleProblem::Kind;
    const bool times = request.launchAtMs || request.closeAtMs;
    if (request.clear && (times || request.lateLimitS || request.replace))
        return ScheduleProblem{Kind::ClearWithTimes};
    if (!request.clear && !request.replace && !times && !request.lateLimitS)
        return ScheduleProblem{Kind::NothingAsked};
    if (request.lateLimitS && (*request.lateLimitS < 1 || *request.lateLimitS > MaxLateLimitS))
        return ScheduleProblem{Kind::LateLimitOutOfRange, *request.lateLimitS};
    if (status == CampaignStatus::Closed && !request.clear && (times || request.lateLimitS))
        return ScheduleProblem{Kind::CampaignClosed};
    if (request.launchAtMs && status != CampaignStatus::Draft)
        return ScheduleProblem{Kind::LaunchNotDraft};
    if (request.launchAtMs && *request.launchAtMs <= nowMs)
        return ScheduleProblem{Kind::LaunchPassed, *request.launchAtMs, nowMs};
    if (request.closeAtMs && *request.closeAtMs <= nowMs)
        return ScheduleProblem{Kind::ClosePassed, *request.closeAtMs, nowMs};
    // A replacement drops what is pending: only its own times count.
    const ScheduledTransition *pendingLaunch = request.replace ? nullptr : pendingOf(current, ScheduledAction::Launch);
    const ScheduledTransition *pendingClose = request.replace ? nullptr : pendingOf(current, ScheduledAction::Close);
    const std::optional<qint64> launch = request.launchAtMs ? request.launchAtMs
                                         : pendingLaunch    ? std::optional<qint64>(pendingLaunch->dueAtMs)
                                                            : std::nullopt;
    const std::optional<qint64> close = request.closeAtMs ? request.closeAtMs
                                        : pendingClose    ? std::optional<qint64>(pendingClose->dueAtMs)
                                                          : std::nullopt;
    if (launch && close && *close <= *launch)
        return ScheduleProblem{Kind::CloseNotAfterLaunch, *close, *launch};
    if (request.lateLimitS && !times && !pendingLaunch && !pendingClose)
        return ScheduleProblem{Kind::LateLimitWithoutTimes};
    return std::nullopt;
}

void CampaignSchedule::validate(const ScheduleRequest &request, CampaignStatus status, const QList<ScheduledTransition> &current, qint64 nowMs)
{
    const std::optional<ScheduleProblem> found = problem(request, status, current, nowMs);
    if (!found)
        return;
    using Kind = ScheduleProblem::Kind;
    const auto refuse = [&found](const QString &message) { throw ScheduleRefusedError(message, *found); };
    switch (found->kind) {
    case Kind::ClearWithTimes:
        return refuse(tr("--clear drops the campaign's pending times: give it alone"));
    case Kind::NothingAsked:
        return refuse(tr("nothing to schedule: give --launch-at, --close-at, --late-limit or --clear"));
    case Kind::LateLimitOutOfRange:
        return refuse(tr("invalid --late-limit %1: expected 1 to %2 seconds").arg(found->atMs).arg(MaxLateLimitS));
    case Kind::CampaignClosed:
        return refuse(tr("the campaign is closed: it takes no times any more"));
    case Kind::LaunchNotDraft:
        return refuse(tr("the campaign is %1: only a draft can be scheduled to launch").arg(campaignStatusName(status)));
    case Kind::LaunchPassed:
    case Kind::ClosePassed:
        return refuse(tr("--%1 %2 has passed: the servers' time is %3")
                                        .arg(found->kind == Kind::LaunchPassed ? QLatin1String("launch-at") : QLatin1String("close-at"),
                                             isoTime(found->atMs), isoTime(found->otherMs)));
    case Kind::CloseNotAfterLaunch:
        return refuse(tr("the close (%1) must come after the launch (%2)").arg(isoTime(found->atMs), isoTime(found->otherMs)));
    case Kind::LateLimitWithoutTimes:
        return refuse(tr("--late-limit applies to pending times, and the campaign has none"));
    }
}

QList<ScheduledTransition> CampaignSchedule::of(qint64 campaignId)
{
    return rowsOf(m_sql.exec(QStringLiteral("SELECT ") + Columns + QStringLiteral(" FROM campaign_schedule WHERE campaign_id = ? ORDER BY action DESC"),
                             {campaignId}));
}

void CampaignSchedule::record(qint64 campaignId, const ScheduleRequest &request, const QString &actor, qint64 nowMs)
{
    QJsonObject detail;
    if (request.clear || request.replace) {
        QJsonArray cleared;
        for (const ScheduledTransition &row : of(campaignId)) {
            if (row.state == ScheduledTransition::State::Pending)
                cleared.append(scheduledActionName(row.action));
        }
        m_sql.exec(QStringLiteral("DELETE FROM campaign_schedule WHERE campaign_id = ? AND state = 'pending'"), {campaignId});
        detail.insert(request.replace ? QStringLiteral("replaced") : QStringLiteral("cleared"), cleared);
    }
    const auto put = [&](ScheduledAction action, qint64 dueAtMs) {
        const QString name = scheduledActionName(action);
        m_sql.exec(QStringLiteral("DELETE FROM campaign_schedule WHERE campaign_id = ? AND action = ?"), {campaignId, name});
        m_sql.exec(QStringLiteral("INSERT INTO campaign_schedule (campaign_id, action, due_at_ms, late_limit_s, scheduled_by, scheduled_at_ms, "
                                  "state) VALUES (?, ?, ?, ?, ?, ?, 'pending')"),
                   {campaignId, name, dueAtMs, nullable(request.lateLimitS), actor, nowMs});
        detail.insert(name + QStringLiteral("_at"), isoTime(dueAtMs));
    };
    if (request.launchAtMs)
        put(ScheduledAction::Launch, *request.launchAtMs);
    if (request.closeAtMs)
        put(ScheduledAction::Close, *request.closeAtMs);
    if (request.lateLimitS) {
        m_sql.exec(QStringLiteral("UPDATE campaign_schedule SET late_limit_s = ? WHERE campaign_id = ? AND state = 'pending'"),
                   {*request.lateLimitS, campaignId});
        detail.insert(QStringLiteral("late_limit_s"), *request.lateLimitS);
    }
    AuditLog(m_sql).record(actor, QStringLiteral("campaign.schedule"), QStringLiteral("campaign:%1").arg(campaignId), detail, nowMs);
}

QList<ScheduledTransition> CampaignSchedule::apply(qint64 campaignId, const ScheduleRequest &request, const QString &actor, qint64 nowMs)
{
    m_sql.transaction([&] { record(campaignId, request, actor, nowMs); });
    return of(campaignId);
}

std::pair<CampaignStatus, QList<ScheduledTransition>> CampaignSchedule::change(qint64 campaignId, const ScheduleRequest &request,
                                                                               const QString &actor, qint64 nowMs)
{
    const CampaignStatus status = m_sql.transaction([&] {
        const std::optional<Campaign> campaign = CampaignStore(m_sql).find(campaignId);
        if (!campaign)
            throw InvalidInputError(tr("no campaign with id %1").arg(campaignId));
        validate(request, campaign->status, of(campaignId), nowMs);
        record(campaignId, request, actor, nowMs);
        return campaign->status;
    });
    return {status, of(campaignId)};
}

QList<ScheduledTransition> CampaignSchedule::pendingBefore(qint64 untilMs)
{
    return rowsOf(m_sql.exec(QStringLiteral("SELECT ") + Columns
                                     + QStringLiteral(" FROM campaign_schedule WHERE state = 'pending' AND due_at_ms < ? "
                                                      "ORDER BY due_at_ms, campaign_id, action"),
                             {untilMs}));
}

QList<ScheduledTransition> CampaignSchedule::timetable(qint64 sinceMs, int limit)
{
    return rowsOf(m_sql.exec(QStringLiteral("SELECT ") + Columns
                                     + QStringLiteral(" FROM campaign_schedule WHERE state = 'pending' OR due_at_ms >= ? "
                                                      "ORDER BY due_at_ms, campaign_id, action LIMIT ?"),
                             {sinceMs, limit}));
}

void CampaignSchedule::markPrepared(qint64 campaignId, qint64 atMs)
{
    m_sql.exec(QStringLiteral("UPDATE campaign_schedule SET prepared_at_ms = ? WHERE campaign_id = ? AND action = 'launch' AND prepared_at_ms IS NULL"),
               {atMs, campaignId});
}

bool CampaignSchedule::settle(qint64 campaignId, ScheduledAction action, ScheduledTransition::State state, qint64 atMs, std::optional<qint64> lateMs,
                              const QString &reason)
{
    return m_sql.exec(QStringLiteral("UPDATE campaign_schedule SET state = ?, done_at_ms = ?, late_ms = ?, reason = ? "
                                     "WHERE campaign_id = ? AND action = ? AND state = 'pending'"),
                      {ScheduledTransition::stateName(state), atMs, nullable(lateMs), reason.left(255), campaignId, scheduledActionName(action)})
                   .numRowsAffected()
            > 0;
}

qint64 redisTimeMs(RedisClient &redis)
{
    const RedisValue reply = redis.command({"TIME"});
    throwOnErrorReply(reply);
    if (reply.elements.size() != 2)
        throw RedisReplyError(QStringLiteral("TIME returned an unexpected reply"));
    return reply.elements[0].toBytes().toLongLong() * 1000 + reply.elements[1].toBytes().toLongLong() / 1000;
}

} // namespace lantern
