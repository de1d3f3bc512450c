#include "envelope/campaign.h"

#include <QJsonObject>

namespace lantern {

QString campaignStatusName(CampaignStatus status)
{
    switch (status) {
    case CampaignStatus::Draft:
        return QStringLiteral("draft");
    case CampaignStatus::Live:
        return QStringLiteral("live");
    case CampaignStatus::Paused:
        return QStringLiteral("paused");
    case CampaignStatus::Closed:
        return QStringLiteral("closed");
    }
    return {};
}

std::optional<CampaignStatus> campaignStatusFromName(const QString &name)
{
    for (CampaignStatus status : {CampaignStatus::Draft, CampaignStatus::Live, CampaignStatus::Paused, CampaignStatus::Closed}) {
        if (campaignStatusName(status) == name)
            return status;
    }
    return std::nullopt;
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

} // namespace lantern
