#pragma once

#include "checkin/monthbits.h"
#include "checkin/checkinrules.h"

namespace lantern {

/** Computes the current streak from month bitmaps (DESIGN §4), with no I/O. */
class StreakCalculator final {
public:
    struct Result {
        int streak = 0;
        /** Rolling policy only: the run reaches the first day of the oldest month given, so an
            earlier month is needed to finish counting. */
        bool needsEarlierMonth = false;
    };

    /** The streak as of `asOf`: counted back from `asOf` when it is signed, else from the day
        before. `newestFirst[0]` is the month of `asOf`, then each earlier month in turn. */
    static Result current(QDate asOf, const QList<MonthBits> &newestFirst, StreakPolicy policy);
};

/** Points for the n-th day of a streak: rewards[n-1], the last entry for every later day. */
int rewardFor(const QList<int> &rewards, int streakDay);

} // namespace lantern
