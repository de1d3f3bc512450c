#include "makeuppolicy.h"

#include "checkin/checkinservice.h"

namespace lantern {

bool MakeupPolicy::insideWindow(QDate day, QDate today) const
{
    return CheckinService::insideMakeupWindow(day, today, m_rules);
}

MakeupBlock MakeupPolicy::check(QDate day, QDate today, bool alreadySigned, int makeupsInMonth) const
{
    if (!day.isValid())
        return MakeupBlock::NoDay;
    if (day >= today)
        return MakeupBlock::NotPast;
    if (alreadySigned)
        return MakeupBlock::AlreadySigned;
    if (!insideWindow(day, today))
        return MakeupBlock::OutsideWindow;
    if (makeupsInMonth >= m_rules.makeupQuota)
        return MakeupBlock::QuotaUsed;
    return MakeupBlock::None;
}

} // namespace lantern
