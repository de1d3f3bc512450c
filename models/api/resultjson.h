#pragma once

#include "envelope/campaign.h"  // campaignJson

#include <QJsonObject>

namespace lantern {

struct CalendarMonth;
struct CheckinOutcome;
struct GrabOutcome;

// The JSON of DESIGN §6, shared by lanternd's commands and its HTTP API so both answer alike.

/** {"uid","date","kind","already","streak","month_count","points"} */
QJsonObject checkinOutcomeJson(const CheckinOutcome &outcome);
/** {"uid","month","signed","makeup","month_count","streak","longest","points_balance"} */
QJsonObject calendarJson(const CalendarMonth &calendar, qint64 pointsBalance);
/** {"status"} plus {"amount_cents","envelope"} for ok and already. */
QJsonObject grabOutcomeJson(const GrabOutcome &outcome);

} // namespace lantern
