#pragma once

#include "envelope/campaignschedule.h"

#include <QCoreApplication>
#include <QTimeZone>

namespace lantern {

/** The timetable's rules (CampaignSchedule::problem) in the console's words: no option names,
    times in the console's business zone. */
class ScheduleWords final {
    Q_DECLARE_TR_FUNCTIONS(lantern::ScheduleWords)

public:
    static QString problemText(const ScheduleProblem &problem, const QTimeZone &zone);
    /** "2026-12-31 20:00:00 (UTC+08:00)": a time in `zone`, with the zone said. */
    static QString timeText(qint64 ms, const QTimeZone &zone);
};

} // namespace lantern
