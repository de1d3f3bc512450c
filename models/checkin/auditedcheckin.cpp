#include "checkin/auditedcheckin.h"

#include "audit/auditlog.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

namespace lantern {

AuditedCheckin::AuditedCheckin(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, const CheckinRules &rules)
    : m_redis(redis), m_sql(sql), m_service(redis, keys, rules)
{
}

template<typename Action>
CheckinOutcome AuditedCheckin::audited(const QString &actor, const QString &action, qint64 uid, QDate day, const QString &reason,
                                       const QString &via, qint64 nowMs, Action run)
{
    m_redis.ensureConnected();  // reachable before anything is written
    m_sql.begin();
    try {
        AuditLog(m_sql).record(actor, action, QStringLiteral("uid:%1").arg(uid),
                               {{QStringLiteral("date"), day.toString(Qt::ISODate)},
                                {QStringLiteral("reason"), reason},
                                {QStringLiteral("via"), via}},
                               nowMs);
        const CheckinOutcome outcome = run();
        if (outcome.already)
            m_sql.rollback();
        else
            m_sql.commit();
        return outcome;
    } catch (...) {
        m_sql.rollback();
        throw;
    }
}

CheckinOutcome AuditedCheckin::makeup(const MakeupRequest &request, QDate today, qint64 nowMs, const QString &via)
{
    return audited(request.operatorName.trimmed(), QStringLiteral("checkin.makeup"), request.uid, request.date, request.reason.trimmed(),
                   via, nowMs, [&] { return m_service.makeup(request, today, nowMs); });
}

CheckinOutcome AuditedCheckin::backdatedCheckin(qint64 uid, QDate day, QDate today, const QString &actor, qint64 nowMs, const QString &via)
{
    return audited(actor, QStringLiteral("checkin.backdated"), uid, day, QString(), via, nowMs,
                   [&] { return m_service.checkin(uid, day, today, nowMs); });
}

} // namespace lantern
