#include "operations/campaigntimetable.h"

#include "audit/auditlog.h"
#include "core/errors.h"
#include "envelope/campaignservice.h"
#include "envelope/campaignstore.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

#include <QJsonObject>

#include <algorithm>

namespace lantern {

namespace {

const ScheduledTransition *find(const QList<ScheduledTransition> &rows, ScheduledAction action)
{
    for (const ScheduledTransition &row : rows) {
        if (row.action == action)
            return &row;
    }
    return nullptr;
}

QString seconds(qint64 ms)
{
    return QString::number(double(ms) / 1000.0, 'f', 1);
}

} // namespace

CampaignTimetable::CampaignTimetable(RedisClient &redis, const KeySchema &keys, QString workerId)
    : m_redis(redis), m_keys(keys), m_workerId(std::move(workerId))
{
}

TimetableRound CampaignTimetable::keep(SqlConnection &sql, const std::function<void()> &keepAlive,
                                       const std::function<void(const QString &)> &report)
{
    TimetableRound round;
    qint64 now = redisTimeMs(m_redis);
    const bool comeDue = std::any_of(m_known.cbegin(), m_known.cend(), [now](const ScheduledTransition &row) { return row.dueAtMs <= now; });
    if (m_readAtMs == 0 || comeDue || now - m_readAtMs >= ReadEveryMs) {
        m_known = CampaignSchedule(sql).pendingBefore(now + PrepareAheadMs);
        m_readAtMs = now;
    }
    const QList<ScheduledTransition> known = m_known;
    bool ranAny = false;
    for (const ScheduledTransition &row : known) {
        if (row.dueAtMs <= now) {
            run(sql, row, now, round, keepAlive, report);
            ranAny = true;
        } else if (row.action == ScheduledAction::Launch) {
            const qint64 before = round.prepared;
            prepareAhead(sql, row, round, keepAlive);
            if (round.prepared > before)
                now = redisTimeMs(m_redis);  // a preparation takes its time
        }
    }
    if (ranAny)
        m_readAtMs = 0;  // what was settled (or left for the next look) is read again
    for (const ScheduledTransition &row : std::as_const(m_known)) {
        if (row.dueAtMs > now && (!round.nextDueInMs || row.dueAtMs - now < *round.nextDueInMs))
            round.nextDueInMs = row.dueAtMs - now;
    }
    return round;
}

bool CampaignTimetable::run(SqlConnection &sql, const ScheduledTransition &due, qint64 nowMs, TimetableRound &round,
                            const std::function<void()> &keepAlive, const std::function<void(const QString &)> &report)
{
    // As SQL has it now: another worker may have settled it, an operator moved or cleared it.
    CampaignSchedule schedule(sql);
    const QList<ScheduledTransition> rows = schedule.of(due.campaignId);
    const ScheduledTransition *current = find(rows, due.action);
    if (!current || current->state != ScheduledTransition::State::Pending || current->dueAtMs > nowMs)
        return false;
    const qint64 lateMs = nowMs - current->dueAtMs;
    const QString action = scheduledActionName(current->action);
    if (current->lateLimitS && lateMs > *current->lateLimitS * 1000) {
        miss(sql, *current, nowMs, tr("%1 s late, over its late limit of %2 s").arg(seconds(lateMs)).arg(*current->lateLimitS), round, report);
        return false;
    }
    const auto campaign = CampaignStore(sql).find(current->campaignId);
    if (!campaign) {
        miss(sql, *current, nowMs, tr("the campaign does not exist"), round, report);
        return false;
    }

    // The audit row is the scheduler's, written with the change and the timetable row settled in
    // the same transaction, by the one process whose change took effect.
    TransitionAudit audit;
    audit.actor = current->scheduledBy;
    audit.atMs = nowMs;
    audit.via = QStringLiteral("schedule");
    qint64 madeLateMs = 0;
    audit.withChange = [&] {
        const qint64 at = redisTimeMs(m_redis);
        madeLateMs = std::max<qint64>(0, at - current->dueAtMs);
        schedule.settle(current->campaignId, current->action, ScheduledTransition::State::Done, at, madeLateMs, {});
        return QJsonObject{{QStringLiteral("due_at"), CampaignSchedule::isoTime(current->dueAtMs)},
                           {QStringLiteral("late_ms"), madeLateMs},
                           {QStringLiteral("worker"), m_workerId}};
    };
    CampaignService service(m_redis, sql, m_keys);
    bool changed = false;
    QString already;
    if (current->action == ScheduledAction::Launch) {
        if (campaign->status == CampaignStatus::Closed) {
            miss(sql, *current, nowMs, tr("the campaign was closed before its launch time"), round, report);
            return false;
        }
        if (campaign->status == CampaignStatus::Draft && campaign->awaitsApproval()) {
            // Four eyes (issue 25): the database would refuse the launch anyway.
            miss(sql, *current, nowMs, tr("no second manager approved the campaign before its launch time (four eyes)"), round, report);
            return false;
        }
        if (campaign->status == CampaignStatus::Paused) {
            already = tr("launched before its time");
        } else {
            // Prepared ahead, this is one status change; a launch nobody prepared (scheduled
            // too close to its time, or Redis lost the pools) is prepared now, and is late.
            if (campaign->status == CampaignStatus::Draft && !service.poolsLoaded(*campaign))
                service.prepare(campaign->id, keepAlive, current->preparedAtMs.has_value());
            try {
                service.goLive(campaign->id, audit, &changed);
            } catch (const RefusedError &) {
                m_readAtMs = 0;  // its pools went meanwhile: prepared again and retried by the next look
                return false;
            }
            if (!changed)
                already = tr("launched before its time");
        }
    } else if (campaign->status == CampaignStatus::Closed) {
        already = tr("closed before its time");
    } else {
        service.close(campaign->id, audit, &changed);
        if (!changed)
            already = tr("closed before its time");
    }
    if (!changed) {
        // Made by hand (or by another worker, which settled it already): nothing to audit.
        schedule.settle(current->campaignId, current->action, ScheduledTransition::State::Done, nowMs, std::nullopt, already);
        return false;
    }
    ++round.made;
    if (madeLateMs > LateToSayMs && report)
        report(tr("campaign %1: %2 made %3 s after its time (%4)")
                       .arg(current->campaignId)
                       .arg(action, seconds(madeLateMs), CampaignSchedule::isoTime(current->dueAtMs)));
    return true;
}

void CampaignTimetable::miss(SqlConnection &sql, const ScheduledTransition &due, qint64 nowMs, const QString &reason, TimetableRound &round,
                             const std::function<void(const QString &)> &report)
{
    const qint64 lateMs = nowMs - due.dueAtMs;
    const bool settled = sql.transaction([&] {
        if (!CampaignSchedule(sql).settle(due.campaignId, due.action, ScheduledTransition::State::Missed, nowMs, lateMs, reason))
            return false;
        QJsonObject detail{{QStringLiteral("transition"), scheduledActionName(due.action)},
                           {QStringLiteral("due_at"), CampaignSchedule::isoTime(due.dueAtMs)},
                           {QStringLiteral("late_ms"), lateMs},
                           {QStringLiteral("reason"), reason},
                           {QStringLiteral("via"), QStringLiteral("schedule")},
                           {QStringLiteral("worker"), m_workerId}};
        if (due.lateLimitS)
            detail.insert(QStringLiteral("late_limit_s"), *due.lateLimitS);
        AuditLog(sql).record(due.scheduledBy, QStringLiteral("campaign.missed"), QStringLiteral("campaign:%1").arg(due.campaignId), detail, nowMs);
        return true;
    });
    if (!settled)
        return;
    ++round.missed;
    if (report)
        report(tr("campaign %1: %2 due at %3 not made: %4")
                       .arg(due.campaignId)
                       .arg(scheduledActionName(due.action), CampaignSchedule::isoTime(due.dueAtMs), reason));
}

void CampaignTimetable::prepareAhead(SqlConnection &sql, const ScheduledTransition &launch, TimetableRound &round,
                                     const std::function<void()> &keepAlive)
{
    CampaignService service(m_redis, sql, m_keys);
    const auto campaign = CampaignStore(sql).find(launch.campaignId);
    if (!campaign || campaign->status != CampaignStatus::Draft || campaign->awaitsApproval())
        return;  // nothing to prepare (or not yet: unapproved); its time decides
    // As SQL has it now (another worker may have prepared it since the timetable was read).
    const QList<ScheduledTransition> rows = CampaignSchedule(sql).of(launch.campaignId);
    const ScheduledTransition *current = find(rows, ScheduledAction::Launch);
    const bool envelopesInSql = launch.preparedAtMs || (current && current->preparedAtMs);
    const auto remember = [this, &launch](qint64 preparedAtMs) {
        for (ScheduledTransition &row : m_known) {
            if (row.campaignId == launch.campaignId && row.action == ScheduledAction::Launch)
                row.preparedAtMs = preparedAtMs;
        }
    };
    if (envelopesInSql && service.poolsLoaded(*campaign)) {
        remember(current && current->preparedAtMs ? *current->preparedAtMs : *launch.preparedAtMs);
        return;
    }
    // One worker prepares it; if it dies, the lock lapses and another takes over (a preparation
    // resumes where it stopped). Two at once would only do the same work twice.
    const QByteArray lock = m_keys.campaignMeta(campaign->id) + ":prepare";
    if (m_redis.command({"SET", lock, m_workerId.toUtf8(), "NX", "PX", QByteArray::number(PrepareLockMs)}).isNil())
        return;
    try {
        service.prepare(campaign->id, keepAlive, envelopesInSql);
        const qint64 at = redisTimeMs(m_redis);
        CampaignSchedule(sql).markPrepared(campaign->id, at);
        remember(at);
    } catch (...) {
        m_redis.command({"DEL", lock});
        throw;
    }
    m_redis.command({"DEL", lock});
    ++round.prepared;
}

} // namespace lantern
