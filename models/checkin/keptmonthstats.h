#pragma once

#include "checkin/monthstats.h"

#include <QDate>
#include <QString>

#include <optional>

namespace lantern {

class KeySchema;
class RedisClient;

/** The current month's check-in figures kept in Redis (issue 26, docs/decisions.md): one worker
    at a time (a turn per interval, as LedgerBalanceCheck's) reads the month's blocks once a
    minute and stores MonthStats as JSON with the time it read them; the statistics view reads
    that one key instead of 160 blocks and 16,384 hashes, so ten consoles cost what one read a
    minute costs, and says "as of". Kept three intervals: figures nobody renews go. */
class KeptMonthStats final {
public:
    static constexpr qint64 IntervalMs = 60000;

    /** Reads and stores the month of `today` when this worker's interval is over and no other
        worker has had its turn in the interval; true when it did. */
    bool keepIfDue(RedisClient &redis, const KeySchema &keys, const QString &workerId, QDate today, qint64 nowMs);
    /** Reads the month of `today` now and stores it. */
    static MonthStats keep(RedisClient &redis, const KeySchema &keys, QDate today, qint64 nowMs);
    /** The figures kept for `month` as of the business day `today`; none when nothing is kept,
        or they were read on another day (a day's figures change until it is over). */
    static std::optional<MonthStats> read(RedisClient &redis, const KeySchema &keys, QDate month, QDate today);

    static QByteArray toJson(const MonthStats &stats, QDate today);
    static std::optional<MonthStats> fromJson(const QByteArray &json, QDate today);

private:
    qint64 m_nextTryMs = 0;
};

} // namespace lantern
