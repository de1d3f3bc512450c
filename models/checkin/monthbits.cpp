#include "checkin/monthbits.h"

#include <bit>

namespace lantern {

MonthBits MonthBits::fromBitfield(QDate month, qint64 value)
{
    MonthBits result{month.addDays(1 - month.day()), 0};
    const int days = result.days();
    for (int day = 1; day <= days; ++day) {
        if ((static_cast<quint64>(value) >> (days - day)) & 1u)
            result.bits |= 1u << (day - 1);
    }
    return result;
}

MonthBits MonthBits::fromDays(QDate month, const QList<int> &days)
{
    MonthBits result{month.addDays(1 - month.day()), 0};
    for (int day : days) {
        if (day >= 1 && day <= result.days())
            result.bits |= 1u << (day - 1);
    }
    return result;
}

MonthBits MonthBits::fromWord(QDate month, quint32 word)
{
    MonthBits result{month.addDays(1 - month.day()), 0};
    for (int day = 1; day <= result.days(); ++day) {
        if ((word >> (32 - day)) & 1u)
            result.bits |= 1u << (day - 1);
    }
    return result;
}

quint32 MonthBits::word() const
{
    quint32 result = 0;
    for (int day = 1; day <= 31; ++day) {
        if (isSigned(day))
            result |= 1u << (32 - day);
    }
    return result;
}

bool MonthBits::isFull() const
{
    return count() == days();
}

int MonthBits::count() const
{
    return std::popcount(bits);
}

int MonthBits::runEndingAt(int day) const
{
    int run = 0;
    while (day >= 1 && isSigned(day)) {
        ++run;
        --day;
    }
    return run;
}

int MonthBits::longestRun() const
{
    int longest = 0;
    int current = 0;
    for (int day = 1; day <= days(); ++day) {
        current = isSigned(day) ? current + 1 : 0;
        longest = std::max(longest, current);
    }
    return longest;
}

QList<int> MonthBits::signedDays() const
{
    QList<int> result;
    for (int day = 1; day <= days(); ++day) {
        if (isSigned(day))
            result << day;
    }
    return result;
}

} // namespace lantern
