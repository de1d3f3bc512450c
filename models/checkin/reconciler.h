#pragma once

#include "core/config.h"

#include <QCoreApplication>
#include <QDate>

namespace lantern {

class KeySchema;
class RedisClient;
class SqlConnection;

/** What `reconcile` reports (DESIGN §6). */
struct ReconcileReport {
    QDate date;
    qint64 redisCount = 0;  // uids in the day's sets
    qint64 dbCount = 0;     // checkin_log rows for the day, before back-fill
    qint64 missing = 0;     // in Redis, not in SQL
    qint64 backfilled = 0;  // rows written now
};

/** Compares a day's uid sets in Redis with checkin_log and back-fills lost log entries,
    rebuilding kind and reward from the user's bitmaps (DESIGN §4, invariant 5). */
class Reconciler final {
    Q_DECLARE_TR_FUNCTIONS(lantern::Reconciler)

public:
    Reconciler(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, const CheckinRules &rules);

    ReconcileReport reconcile(QDate day, qint64 nowMs);

private:
    QList<qint64> redisUids(QDate day);

    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
    CheckinRules m_rules;
};

} // namespace lantern
