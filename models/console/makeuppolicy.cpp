#include "makeuppolicy.h"

namespace lantern {

bool MakeupPolicy::insideWindow(QDate day, QDate today) const
{
    if (m_rules.makeupWindowDays == 0)
        return day.year() == today.year() && day.month() == today.month();
    return day >= today.addDays(-m_rules.makeupWindowDays);
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
