#include "benchcampaign.h"

#include "envelope/campaignservice.h"
#include "envelope/grabservice.h"
#include "sql/sqlconnection.h"

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

void forgetBenchGrabs(SqlConnection &sql, qint64 campaignId)
{
    sql.transaction([&] {
        for (const char *table : {"payout", "grab_refused", "grab", "ledger_tally"})  // the tally goes with its rows
            sql.exec(QStringLiteral("DELETE FROM %1 WHERE campaign_id = ?").arg(QLatin1String(table)), {campaignId});
    });
}

ClientFactory grabClients(const KeySchema &keys, qint64 campaignId)
{
    return [&keys, campaignId](RedisClient &redis) -> ClientRequest {
        auto service = std::make_shared<GrabService>(redis, keys);
        return [service, campaignId](qint64 uid) { service->grab(campaignId, uid, QDateTime::currentMSecsSinceEpoch()); };
    };
}

} // namespace lantern::bench
