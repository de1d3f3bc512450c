#include "envelope/campaign.h"

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

} // namespace lantern
