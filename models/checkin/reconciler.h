#pragma once

#include "checkin/checkinrules.h"

#include <QCoreApplication>
#include <QDate>

namespace lantern {

class KeySchema;
class RedisClient;
class SqlConnection;

struct MonthRound;

/** What `reconcile` reports (DESIGN §6). */
struct ReconcileReport {
    QDate date;
    qint64 redisCount = 0;  // users whose bit of the day is set
    qint64 dbCount = 0;     // checkin_log rows for the day, before back-fill
    qint64 missing = 0;     // in Redis, not in SQL
    qint64 backfilled = 0;  // rows written now
};

/** Compares a day's check-ins in Redis with checkin_log and back-fills lost log entries,
    rebuilding kind and reward from the user's month words (DESIGN §4, invariant 5). It streams
    the month's blocks (MonthScan) a round at a time, each round checked against SQL by uid range
    (or by uid list for sparse users), so its memory does not grow with the user count. */
class Reconciler final {
    Q_DECLARE_TR_FUNCTIONS(lantern::Reconciler)

public:
    Reconciler(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, const CheckinRules &rules);

    ReconcileReport reconcile(QDate day, qint64 nowMs);

private:
    /** Back-fills the round's users signed on `day` that SQL lacks. */
    void reconcileRound(const MonthRound &round, QDate day, qint64 nowMs, ReconcileReport &report);


    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
    CheckinRules m_rules;
};

} // namespace lantern
