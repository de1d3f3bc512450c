#pragma once

#include <QList>

namespace lantern {

enum class StreakPolicy {
    Monthly,  // the count restarts on the 1st (the seeds' rule)
    Rolling,  // streaks cross month boundaries
};

/** The check-in rules of DESIGN §4, all configurable. */
struct CheckinRules {
    StreakPolicy streakPolicy = StreakPolicy::Monthly;
    QList<int> rewards{10, 20, 30, 50};  // points for day 1, 2, 3, 4+ of a streak
    int makeupWindowDays = 0;            // 0: any past day of the current month; N: the last N days
    int makeupQuota = 3;                 // make-ups per calendar month of the made-up day
    bool makeupGrantsPoints = false;     // a make-up restores the streak but grants nothing
};

} // namespace lantern
