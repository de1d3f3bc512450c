#include "checkin/streakcalculator.h"

namespace lantern {

StreakCalculator::Result StreakCalculator::current(QDate asOf, const QList<MonthBits> &newestFirst, StreakPolicy policy)
{
    Result result;
    if (newestFirst.isEmpty())
        return result;
    const MonthBits &month = newestFirst.front();
    const int end = month.isSigned(asOf.day()) ? asOf.day() : asOf.day() - 1;
    result.streak = month.runEndingAt(end);
    if (policy == StreakPolicy::Monthly || result.streak < end)
        return result;

    // Rolling: the run reaches the 1st, so it continues from the end of each earlier month.
    for (qsizetype i = 1; i < newestFirst.size(); ++i) {
        const MonthBits &earlier = newestFirst.at(i);
        const int run = earlier.runEndingAt(earlier.days());
        result.streak += run;
        if (run < earlier.days())
            return result;
    }
    result.needsEarlierMonth = true;
    return result;
}

int rewardFor(const QList<int> &rewards, int streakDay)
{
    if (rewards.isEmpty() || streakDay <= 0)
        return 0;
    return rewards.at(std::min<qsizetype>(streakDay, rewards.size()) - 1);
}

} // namespace lantern
