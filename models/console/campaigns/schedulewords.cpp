#include "console/campaigns/schedulewords.h"

#include <QDateTime>

namespace lantern {

QString ScheduleWords::timeText(qint64 ms, const QTimeZone &zone)
{
    const QDateTime at = QDateTime::fromMSecsSinceEpoch(ms, zone);
    return QStringLiteral("%1 (%2)").arg(at.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")), zone.displayName(at, QTimeZone::OffsetName));
}

QString ScheduleWords::problemText(const ScheduleProblem &problem, const QTimeZone &zone)
{
    using Kind = ScheduleProblem::Kind;
    switch (problem.kind) {
    case Kind::ClearWithTimes:
    case Kind::NothingAsked:
        return tr("No time was changed.");
    case Kind::LateLimitOutOfRange:
        return tr("The late limit must be between 1 second and 7 days.");
    case Kind::CampaignClosed:
        return tr("The campaign is closed: it takes no times any more.");
    case Kind::LaunchNotDraft:
        return tr("Only a draft can be given a launch time: this campaign was launched already.");
    case Kind::LaunchPassed:
        return tr("The launch time %1 has passed: the servers' time is %2.").arg(timeText(problem.atMs, zone), timeText(problem.otherMs, zone));
    case Kind::ClosePassed:
        return tr("The close time %1 has passed: the servers' time is %2.").arg(timeText(problem.atMs, zone), timeText(problem.otherMs, zone));
    case Kind::CloseNotAfterLaunch:
        return tr("The close (%1) must come after the launch (%2).").arg(timeText(problem.atMs, zone), timeText(problem.otherMs, zone));
    case Kind::LateLimitWithoutTimes:
        return tr("A late limit needs a launch or close time.");
    }
    return {};
}

} // namespace lantern
