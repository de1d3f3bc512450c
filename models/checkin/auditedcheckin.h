#pragma once

#include "checkin/checkinservice.h"

namespace lantern {

class SqlConnection;

/** Check-in actions taken by an operator — a make-up, a back-dated check-in — with their audit
    row. The row is written in an SQL transaction held open around the Redis script: if it cannot
    be written nothing reaches Redis, and if the script changes nothing (already signed, refused,
    failed) the row is rolled back. Used by `lanternd` and the console alike. */
class AuditedCheckin final {
public:
    AuditedCheckin(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, const CheckinRules &rules);

    /** `via` names the tool in the audit detail ("cli", "console"). */
    CheckinOutcome makeup(const MakeupRequest &request, QDate today, qint64 nowMs, const QString &via);
    CheckinOutcome backdatedCheckin(qint64 uid, QDate day, QDate today, const QString &actor, qint64 nowMs, const QString &via);

private:
    template<typename Action>
    CheckinOutcome audited(const QString &actor, const QString &action, qint64 uid, QDate day, const QString &reason,
                           const QString &via, qint64 nowMs, Action run);

    RedisClient &m_redis;
    SqlConnection &m_sql;
    CheckinService m_service;
};

} // namespace lantern
