#pragma once

#include "clientload.h"

#include "envelope/campaign.h"

namespace lantern {
class CampaignService;
class KeySchema;
}

namespace lantern::bench {

/** Creates and launches, through the library, a campaign of `count` envelopes worth 1.00 each on
    average (double-mean split from `seed`), as an operator would; returns it, live. */
Campaign launchBenchCampaign(CampaignService &campaigns, const QString &name, qint64 count, quint64 seed);

/** Clients that grab from campaign `id`: each its own GrabService over its own connection. */
ClientFactory grabClients(const KeySchema &keys, qint64 campaignId);

} // namespace lantern::bench
