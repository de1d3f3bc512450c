#include "benchcampaign.h"

#include "envelope/campaignservice.h"
#include "envelope/grabservice.h"

#include <QDateTime>

#include <memory>

namespace lantern::bench {

Campaign launchBenchCampaign(CampaignService &campaigns, const QString &name, qint64 count, quint64 seed)
{
    CampaignDraft draft;
    draft.name = name;
    draft.count = count;
    draft.totalCents = count * 100;
    draft.seed = seed;
    return campaigns.launch(campaigns.create(draft, QDateTime::currentMSecsSinceEpoch()).id);
}

ClientFactory grabClients(const KeySchema &keys, qint64 campaignId)
{
    return [&keys, campaignId](RedisClient &redis) -> ClientRequest {
        auto service = std::make_shared<GrabService>(redis, keys);
        return [service, campaignId](qint64 uid) { service->grab(campaignId, uid, QDateTime::currentMSecsSinceEpoch()); };
    };
}

} // namespace lantern::bench
