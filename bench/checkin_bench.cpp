// lantern-bench-checkin: check-ins per second through the library (CheckinService over the
// blocking RedisClient, one thread per client) next to redis-benchmark sending the very same
// EVALSHA at the same concurrency, and the ratio of the two. It measures; it asserts nothing.
#include "benchserver.h"
#include "scriptcomparison.h"

#include "checkin/checkinservice.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "settings/config.h"

#include <QCommandLineParser>
#include <QDateTime>

#include <memory>

using namespace lantern;
using namespace lantern::bench;

namespace {

// One shard: redis-benchmark cannot compute uid mod S for the {ck:S} hash tag, so with one
// shard both phases name the same day set and log queue. On a single Redis the shard count does
// not change the script's work, only over how many sets the day's uids spread.
constexpr int BenchShards = 1;

int run(const QCoreApplication &app)
{
    QCommandLineParser parser;
    addComparisonOptions(parser, QStringLiteral("Check-ins"),
                         QStringLiteral("Check-ins per second through CheckinService at N concurrent clients, next to redis-benchmark "
                                        "running the same EVALSHA at the same concurrency."));
    parser.addOption({QStringLiteral("date"), QStringLiteral("The day every uid signs."), QStringLiteral("yyyy-mm-dd"),
                      QStringLiteral("2024-03-15")});
    processArguments(parser, app);
    const ComparisonSettings settings = comparisonSettings(parser);
    const QDate day = parseDate(parser.value(QStringLiteral("date")), QStringLiteral("--date"));
    const KeySchema keys(settings.bench.prefix, BenchShards);
    const CheckinRules rules;  // the defaults: monthly streaks, rewards 10/20/30/50

    runScriptComparison(settings, QStringLiteral("checkin"), [&](const ComparisonServer &setup) {
        ScriptComparison comparison;
        comparison.title = QStringLiteral("Check-in through the library vs redis-benchmark");
        comparison.unit = QStringLiteral("check-ins");
        comparison.freshColumn = QStringLiteral("fresh check-ins");
        comparison.library = QStringLiteral("CheckinService::checkin");
        comparison.notes = {QStringLiteral("day %1 for every uid; %2 check-in shard").arg(day.toString(Qt::ISODate)).arg(BenchShards)};
        comparison.client = [&keys, &rules, day](RedisClient &client) -> ClientRequest {
            auto service = std::make_shared<CheckinService>(client, keys, rules);
            return [service, day](qint64 uid) { service->checkin(uid, day, day, QDateTime::currentMSecsSinceEpoch()); };
        };
        comparison.uidArguments = 1;  // ARGV[1]: 13-digit uids are sparse, their month is a field of the shard's hash
        comparison.fresh = [&server = setup.server, &keys] { return server.listLength(keys.checkinQueue(0)); };
        return comparison;
    });
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-checkin"), run);
}
