#include "api/resultjson.h"

#include "checkin/checkinservice.h"
#include "envelope/campaign.h"
#include "envelope/envelopesplitter.h"
#include "envelope/grabservice.h"

#include <QJsonArray>

namespace lantern {

namespace {

QJsonArray toArray(const QList<int> &days)
{
    QJsonArray array;
    for (const int day : days)
        array.append(day);
    return array;
}

} // namespace

QJsonObject checkinOutcomeJson(const CheckinOutcome &outcome)
{
    return {{QStringLiteral("uid"), outcome.uid},
            {QStringLiteral("date"), outcome.date.toString(Qt::ISODate)},
            {QStringLiteral("kind"), outcome.kind},
            {QStringLiteral("already"), outcome.already},
            {QStringLiteral("streak"), outcome.streak},
            {QStringLiteral("month_count"), outcome.monthCount},
            {QStringLiteral("points"), outcome.points}};
}

QJsonObject calendarJson(const CalendarMonth &calendar, qint64 pointsBalance)
{
    return {{QStringLiteral("uid"), calendar.uid},
            {QStringLiteral("month"), calendar.month.toString(u"yyyy-MM")},
            {QStringLiteral("signed"), toArray(calendar.signedDays)},
            {QStringLiteral("makeup"), toArray(calendar.makeupDays)},
            {QStringLiteral("month_count"), calendar.monthCount},
            {QStringLiteral("streak"), calendar.streak},
            {QStringLiteral("longest"), calendar.longest},
            {QStringLiteral("points_balance"), pointsBalance}};
}

QJsonObject campaignJson(const Campaign &campaign)
{
    QJsonObject json{{QStringLiteral("id"), campaign.id},
            {QStringLiteral("name"), campaign.name},
            {QStringLiteral("status"), campaignStatusName(campaign.status)},
            {QStringLiteral("total_cents"), campaign.totalCents},
            {QStringLiteral("count"), campaign.count},
            {QStringLiteral("min_cents"), campaign.minCents},
            {QStringLiteral("algorithm"), splitAlgorithmName(campaign.algorithm)},
            {QStringLiteral("seed"), QString::number(campaign.seed)},
            {QStringLiteral("max_attempts"), campaign.maxAttempts},
            {QStringLiteral("refunded_cents"), campaign.refundedCents}};
    // Sub-pools only when asked for: the contract's fields stay as they were otherwise.
    if (campaign.pools > 1)
        json.insert(QStringLiteral("pools"), campaign.pools);
    // Four eyes (issue 25), only for a campaign above the bound.
    if (campaign.needsApproval) {
        json.insert(QStringLiteral("needs_approval"), true);
        json.insert(QStringLiteral("created_by"), campaign.createdBy);
        json.insert(QStringLiteral("approved_by"), campaign.approvedBy.isEmpty() ? QJsonValue() : QJsonValue(campaign.approvedBy));
    }
    return json;
}

QJsonObject grabOutcomeJson(const GrabOutcome &outcome)
{
    QJsonObject json{{QStringLiteral("status"), outcome.status}};
    if (outcome.seq > 0) {
        json.insert(QStringLiteral("amount_cents"), outcome.amountCents);
        json.insert(QStringLiteral("envelope"), outcome.seq);
    }
    // Only with grab-wait on: how many replicas had the grab's writes when it was answered.
    if (outcome.replicas >= 0)
        json.insert(QStringLiteral("replicas"), outcome.replicas);
    return json;
}

} // namespace lantern
