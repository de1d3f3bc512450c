#include "checkin/monthstats.h"

#include "checkin/monthbits.h"
#include "checkin/monthscan.h"

#include <array>

namespace lantern {

MonthStats MonthStatsReader::read(QDate month, QDate today)
{
    MonthStats stats;
    stats.month = QDate(month.year(), month.month(), 1);
    const QDate lastOfMonth = stats.month.addMonths(1).addDays(-1);
    const int lastDay = today >= lastOfMonth ? lastOfMonth.day() : today >= stats.month ? today.day() : 0;
    quint32 everyDay = 0;  // the month word with days 1..lastDay set
    for (int day = 1; day <= lastDay; ++day)
        everyDay |= 1u << (32 - day);

    std::array<qint64, 32> checkedIn{};
    std::array<qint64, 32> makeups{};
    MonthScan scan(m_redis, m_keys, stats.month);
    const auto countDays = [lastDay](const MonthRound &round, std::array<qint64, 32> &perDay) {
        for (const UserWord &user : round.words) {
            for (int day = 1; day <= lastDay; ++day)
                perDay[size_t(day)] += (user.word >> (32 - day)) & 1u;
        }
    };
    scan.signWords([&](const MonthRound &round) {
        stats.activeUsers += round.words.size();
        for (const UserWord &user : round.words) {
            if (lastDay > 0 && (user.word & everyDay) == everyDay)
                ++stats.everyDayUsers;
        }
        countDays(round, checkedIn);
    });
    scan.makeupWords([&](const MonthRound &round) { countDays(round, makeups); });
    for (int day = 1; day <= lastDay; ++day)
        stats.days << DayStats{stats.month.addDays(day - 1), checkedIn[size_t(day)], makeups[size_t(day)]};
    return stats;
}

} // namespace lantern
