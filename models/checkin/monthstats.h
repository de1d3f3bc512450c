#pragma once

#include <QDate>
#include <QList>

#include <optional>

namespace lantern {

class KeySchema;
class RedisClient;

/** One day of `stats --month`. */
struct DayStats {
    QDate date;
    qint64 checkedIn = 0;  // users whose day is signed, make-ups included
    qint64 makeups = 0;    // of which make-ups
};

/** What `lanternd stats --month` prints: the month's figures read from the check-in bits. */
struct MonthStats {
    QDate month;             // the first of the month
    QList<DayStats> days;    // every day of the month up to today
    qint64 activeUsers = 0;  // signed at least one day of the month
    qint64 everyDayUsers = 0;  // signed every day of `days` (0 when `days` is empty)
    std::optional<qint64> asOfMs{};  // kept figures (KeptMonthStats): when a worker read them; none: read now
};

/** Computes MonthStats from the block layout with MonthScan (bounded memory, no SCAN). */
class MonthStatsReader final {
public:
    MonthStatsReader(RedisClient &redis, const KeySchema &keys) : m_redis(redis), m_keys(keys) {}

    /** Days after `today` are left out (a future month has none). */
    MonthStats read(QDate month, QDate today);

private:
    RedisClient &m_redis;
    const KeySchema &m_keys;
};

} // namespace lantern
