#pragma once

#include "clientload.h"

#include "envelope/campaign.h"

namespace lantern {
class CampaignService;
class KeySchema;
class SqlConnection;
}

namespace lantern::bench {

/** Creates and launches, through the library, a campaign of `count` envelopes worth 1.00 each on
    average (double-mean split from `seed`), as an operator would; returns it, live. */
Campaign launchBenchCampaign(CampaignService &campaigns, const QString &name, qint64 count, quint64 seed);

/** Removes campaign `id`'s grabs from the ledger (grab, payout and grab_refused rows): once its
    Redis keys are removed too, launching it again rebuilds the whole pool (a launch of a live
    campaign repairs it from the ledger, which would otherwise keep the drained grabs grabbed). */
void forgetBenchGrabs(SqlConnection &sql, qint64 campaignId);
/** Clients that grab from campaign `id`: each its own GrabService over its own connection. */
ClientFactory grabClients(const KeySchema &keys, qint64 campaignId);

} // namespace lantern::bench
