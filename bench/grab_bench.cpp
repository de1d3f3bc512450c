// lantern-bench-grab: grabs per second through the library (GrabService over the blocking
// RedisClient, one thread per client) during a storm on one launched campaign, next to
// redis-benchmark sending the very same EVALSHA of grab.lua at the same concurrency, and the ratio
// of the two. It measures; it asserts nothing.
#include "benchcampaign.h"
#include "benchserver.h"
#include "scriptcomparison.h"

#include "core/errors.h"
#include "envelope/campaignservice.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/dburl.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"

#include <QCommandLineParser>
#include <QTemporaryDir>

#include <memory>

using namespace lantern;
using namespace lantern::bench;

namespace {

int run(const QCoreApplication &app)
{
    QCommandLineParser parser;
    addComparisonOptions(parser, QStringLiteral("Grabs"),
                         QStringLiteral("Grabs per second through GrabService at N concurrent clients on one launched campaign, next to "
                                        "redis-benchmark running the same EVALSHA of grab.lua at the same concurrency. The campaign is "
                                        "created and launched through CampaignService on an SQLite file in a temporary directory, and "
                                        "launched again before each phase so that both phases find the same full pool."));
    parser.addOption({QStringLiteral("envelopes"), QStringLiteral("Envelopes in the campaign's pool; at least --requests, so that no grab finds it empty."),
                      QStringLiteral("n"), QStringLiteral("0")});
    processArguments(parser, app);
    const ComparisonSettings settings = comparisonSettings(parser);
    const qint64 envelopes = std::max(integerOption(parser, QStringLiteral("envelopes"), 0, MaxEnvelopeCount), settings.requests);
    const KeySchema keys(settings.bench.prefix);

    // The campaign's SQL side lives in a throwaway SQLite file; grabs never touch it.
    const QTemporaryDir sqlDir;
    if (!sqlDir.isValid())
        throw LanternError(QStringLiteral("cannot create a temporary directory: %1").arg(sqlDir.errorString()));
    const std::unique_ptr<SqlConnection> sql = openMigrated(DbUrl::parse(QStringLiteral("sqlite://") + sqlDir.filePath(QStringLiteral("bench.db"))));
    std::unique_ptr<CampaignService> campaigns;

    runScriptComparison(settings, QStringLiteral("grab"), [&](const ComparisonServer &setup) {
        campaigns = std::make_unique<CampaignService>(setup.redis, *sql, keys);
        const Campaign campaign = launchBenchCampaign(*campaigns, QStringLiteral("lantern-bench-grab"), envelopes, settings.bench.seed);
        const qint64 id = campaign.id;

        ScriptComparison comparison;
        comparison.title = QStringLiteral("Grab storm through the library vs redis-benchmark");
        comparison.unit = QStringLiteral("grabs");
        comparison.freshColumn = QStringLiteral("envelopes won");
        comparison.library = QStringLiteral("GrabService::grab");
        comparison.notes = {QStringLiteral("campaign %1: %2 envelopes, %3 cents, double-mean split (seed %4), at most %5 attempts a user, "
                                           "created and launched through CampaignService (SQLite in a temporary directory)")
                                    .arg(id)
                                    .arg(campaign.count)
                                    .arg(campaign.totalCents)
                                    .arg(campaign.seed)
                                    .arg(campaign.maxAttempts)};
        comparison.client = grabClients(keys, id);
        // The whole pool back in Redis, no draws, attempts or tasks, counters at 0: launching a
        // campaign live in SQL whose keys are gone rebuilds it from the ledger, which holds no grab.
        comparison.reset = [&campaigns, id] { campaigns->launch(id); };
        comparison.fresh = [&server = setup.server, &keys, id] { return server.listLength(keys.campaignTasks(id)); };
        return comparison;
    });
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-grab"), run);
}
