#pragma once

#include "checkin/checkinrules.h"

#include <QDate>

namespace lantern {

/** Why a make-up of a given day cannot be granted, checked before asking the server (so the
    console can explain it and disable the action) and used to name a server-side refusal. */
enum class MakeupBlock {
    None,           // may be granted
    NoDay,          // no day of the month is selected
    NotPast,        // today or a future day: a make-up is for a past day
    AlreadySigned,  // the day is signed already
    OutsideWindow,  // older than the configured window allows
    QuotaUsed,      // the month's make-up quota is used up
};

/** The console's reading of the make-up rules of DESIGN §4 (CheckinService enforces them). */
class MakeupPolicy final {
public:
    explicit MakeupPolicy(const CheckinRules &rules) : m_rules(rules) {}

    /** makeupsInMonth: make-ups already granted in `day`'s month. */
    MakeupBlock check(QDate day, QDate today, bool alreadySigned, int makeupsInMonth) const;
    /** Whether `day` lies inside the window, whatever else holds. */
    bool insideWindow(QDate day, QDate today) const;

    int quota() const { return m_rules.makeupQuota; }
    int windowDays() const { return m_rules.makeupWindowDays; }

private:
    CheckinRules m_rules;
};

} // namespace lantern
