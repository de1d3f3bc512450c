// lantern-bench-cluster: grabs and check-ins per second through the library (GrabService and
// CheckinService over the blocking RedisClient, one thread per client) on a single redis-server
// and on a Redis Cluster, the same clients in the same run: one campaign (one slot, so one
// master: what routing costs), three campaigns on three masters, check-ins of users on every
// master; and how much CPU each server spent per phase. It measures; it asserts nothing.
#include "benchcampaign.h"
#include "benchsettings.h"
#include "clientload.h"
#include "rounds.h"
#include "summaryrows.h"

#include "checkin/checkinservice.h"
#include "core/errors.h"
#include "envelope/campaignservice.h"
#include "envelope/grabservice.h"
#include "redis/clusterslotmap.h"
#include "redis/keyschema.h"
#include "redis/keyslot.h"
#include "redis/redisclient.h"
#include "sql/dburl.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QMap>
#include <QTemporaryDir>
#include <QTextStream>

#include <memory>
#include <numeric>

using namespace lantern;
using namespace lantern::bench;

namespace {

/** Check-in shards: the {ck:S} tags of 16 shards land on every master of a 3-master cluster. */
constexpr int ClusterBenchShards = 16;

/** Server CPU (used_cpu_user + used_cpu_sys, seconds) of every master, by address. */
QMap<QString, double> serverCpu(RedisClient &redis)
{
    QMap<QString, double> cpu;
    for (const auto &[master, info] : redis.onEveryMaster({"INFO", "cpu"})) {
        double seconds = 0;
        for (const QByteArray &line : info.toBytes().split('\n')) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:"))
                seconds += line.mid(line.indexOf(':') + 1).trimmed().toDouble();
        }
        cpu.insert(master.text(), seconds);
    }
    return cpu;
}

/** "a 1.9 s, b 0.1 s": each server's CPU between two readings. */
QString cpuSpent(const QMap<QString, double> &before, const QMap<QString, double> &after)
{
    QStringList parts;
    for (auto it = after.cbegin(); it != after.cend(); ++it)
        parts << QStringLiteral("%1 %2 s").arg(it.key()).arg(it.value() - before.value(it.key()), 0, 'f', 2);
    return parts.join(QStringLiteral(", "));
}

struct Target {
    QString name;
    RedisUrl url;
    std::unique_ptr<RedisClient> redis;  // for set-up and server figures
    std::unique_ptr<CampaignService> campaigns;
};

int run(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "Grabs and check-ins per second through the library on a single redis-server (--redis) and on a Redis Cluster "
            "(--cluster), the same clients in the same run."));
    addBenchOptions(parser);
    parser.addOption({QStringLiteral("cluster"), QStringLiteral("The Redis Cluster: a seed list or one node's URL."), QStringLiteral("url")});
    parser.addOption({QStringLiteral("requests"), QStringLiteral("Requests per phase."), QStringLiteral("n"), QStringLiteral("60000")});
    processArguments(parser, app);
    const BenchSettings settings = benchSettings(parser);
    const qint64 requests = integerOption(parser, QStringLiteral("requests"), 1, 10'000'000);
    if (!parser.isSet(QStringLiteral("cluster")))
        throw InvalidInputError(QStringLiteral("--cluster is required"));
    const KeySchema keys(settings.prefix, ClusterBenchShards);
    const CheckinRules rules;

    const QTemporaryDir sqlDir;
    if (!sqlDir.isValid())
        throw LanternError(QStringLiteral("cannot create a temporary directory: %1").arg(sqlDir.errorString()));
    const std::unique_ptr<SqlConnection> sql = openMigrated(DbUrl::parse(QStringLiteral("sqlite://") + sqlDir.filePath(QStringLiteral("bench.db"))));

    Target single{QStringLiteral("single redis-server"), settings.redis, std::make_unique<RedisClient>(settings.redis), nullptr};
    const RedisUrl clusterUrl = RedisUrl::parse(parser.value(QStringLiteral("cluster")));
    Target cluster{QStringLiteral("3-master cluster"), clusterUrl, std::make_unique<RedisClient>(clusterUrl), nullptr};
    cluster.redis->ensureConnected();
    if (!cluster.redis->isCluster())
        throw InvalidInputError(QStringLiteral("--cluster %1 is not a Redis Cluster").arg(clusterUrl.redacted()));
    for (Target *target : {&single, &cluster})
        target->campaigns = std::make_unique<CampaignService>(*target->redis, *sql, keys);

    // Campaigns: one on the single server; on the cluster, one per master (created until every
    // master serves one: a campaign's keys are one {cp:ID} slot).
    const qint64 pool = requests;
    const qint64 singleCampaign = launchBenchCampaign(*single.campaigns, QStringLiteral("bench-single"), pool, settings.seed).id;
    const ClusterSlotMap map = ClusterSlotMap::fromSlotsReply(cluster.redis->command({"CLUSTER", "SLOTS"}), clusterUrl.seeds().first());
    QMap<QString, qint64> campaignOf;  // master -> campaign
    for (int n = 0; campaignOf.size() < map.masters().size(); ++n) {
        if (n == 64)
            throw LanternError(QStringLiteral("64 campaigns did not cover every master"));
        const qint64 id = launchBenchCampaign(*cluster.campaigns, QStringLiteral("bench-cluster-%1").arg(n), pool, settings.seed).id;
        const QString master = map.masterOf(keyslot::of(keys.campaignMeta(id)))->text();
        if (!campaignOf.contains(master))
            campaignOf.insert(master, id);
    }
    const std::vector<qint64> spread(campaignOf.cbegin(), campaignOf.cend());
    const qint64 oneCampaign = spread.front();

    QTextStream out(stdout);
    out << "## Single redis-server vs Redis Cluster, through the library\n\n"
        << "- " << settings.clients << " client threads, " << requests << " requests per phase, " << settings.rounds
        << " rounds (alternating order), medians compared.\n"
        << "- Campaigns of " << pool << " envelopes, launched again before each grab phase; check-ins of fresh users on a new day "
        << "each phase, " << ClusterBenchShards << " shards.\n"
        << "- The cluster: " << clusterUrl.redacted() << ", masters " << QStringList(campaignOf.keys()).join(QStringLiteral(", "))
        << "; one campaign is served by " << campaignOf.key(oneCampaign) << ".\n\n"
        << "| round | phase | ops/s | p50 ms | p99 ms | client CPU us | server CPU (each master) |\n|---|---|---:|---:|---:|---:|---|\n";
    out.flush();

    qint64 nextUid = 1;
    int checkinDay = 0;
    const auto phase = [&](const QString &label, Target &target, const std::function<ClientFactory()> &prepare) -> RoundPhase {
        return [&, label, prepare, on = &target](int round) {
            Target &target = *on;
            const ClientFactory factory = prepare();
            std::vector<qint64> uids(static_cast<size_t>(requests));
            std::iota(uids.begin(), uids.end(), nextUid);
            nextUid += requests;
            const QMap<QString, double> before = serverCpu(*target.redis);
            const PhaseFigures figures = runClientLoad(target.url, settings.clients, uids, factory);
            const QMap<QString, double> after = serverCpu(*target.redis);
            out << "| " << round << " | " << label << " | " << rate(figures.perSecond) << " | " << QString::number(figures.p50Ms, 'f', 2)
                << " | " << QString::number(figures.p99Ms, 'f', 2) << " | " << QString::number(figures.clientMicros, 'f', 1) << " | "
                << cpuSpent(before, after) << " |\n";
            out.flush();
            return figures.perSecond;
        };
    };
    const auto grabsOn = [&keys](Target &target, std::vector<qint64> ids) {
        return [&keys, on = &target, ids] {
            for (const qint64 id : ids)
                on->campaigns->launch(id);  // the whole pool back, no draws
            return ClientFactory([&keys, ids](RedisClient &redis) -> ClientRequest {
                auto service = std::make_shared<GrabService>(redis, keys);
                return [service, ids](qint64 uid) { service->grab(ids[size_t(uid) % ids.size()], uid, QDateTime::currentMSecsSinceEpoch()); };
            });
        };
    };
    const auto checkinsOn = [&keys, &rules, &checkinDay] {
        const QDate day = QDate(2024, 1, 1).addDays(checkinDay++);
        return ClientFactory([&keys, &rules, day](RedisClient &redis) -> ClientRequest {
            auto service = std::make_shared<CheckinService>(redis, keys, rules);
            return [service, day](qint64 uid) { service->checkin(uid, day, day, QDateTime::currentMSecsSinceEpoch()); };
        });
    };

    const std::vector<double> rates = runAlternatingRounds(
            settings.rounds, {phase(QStringLiteral("grabs, single server"), single, grabsOn(single, {singleCampaign})),
                              phase(QStringLiteral("grabs, cluster, one campaign"), cluster, grabsOn(cluster, {oneCampaign})),
                              phase(QStringLiteral("grabs, cluster, a campaign per master"), cluster, grabsOn(cluster, spread)),
                              phase(QStringLiteral("check-ins, single server"), single, checkinsOn),
                              phase(QStringLiteral("check-ins, cluster"), cluster, checkinsOn)});
    out << "\n";
    printSummary(out, settings.rounds, QStringLiteral("ops/s"),
                 {{QStringLiteral("grabs, single server"), rates[0]},
                  {QStringLiteral("grabs, cluster, one campaign"), rates[1]},
                  {QStringLiteral("grabs, cluster, a campaign per master"), rates[2]},
                  {QStringLiteral("check-ins, single server"), rates[3]},
                  {QStringLiteral("check-ins, cluster"), rates[4]}},
                 {{QStringLiteral("grabs, one campaign: cluster / single"), rates[1], rates[0]},
                  {QStringLiteral("grabs, a campaign per master: cluster / single"), rates[2], rates[0]},
                  {QStringLiteral("check-ins: cluster / single"), rates[4], rates[3]}});
    const QString clients = QString::number(settings.clients);
    appendSummaryRows(settings.summaryFile,
                      {{QStringLiteral("grabs/s on a 3-master cluster, one campaign (one master), %1 clients").arg(clients), rate(rates[1]),
                        QStringLiteral("the same on one redis-server"), rate(rates[0]), ratioText(rates[1], rates[0])},
                       {QStringLiteral("grabs/s on a 3-master cluster, a campaign per master, %1 clients").arg(clients), rate(rates[2]),
                        QStringLiteral("one campaign on one redis-server"), rate(rates[0]), ratioText(rates[2], rates[0])},
                       {QStringLiteral("check-ins/s on a 3-master cluster, %1 clients").arg(clients), rate(rates[4]),
                        QStringLiteral("the same on one redis-server"), rate(rates[3]), ratioText(rates[4], rates[3])}});
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-cluster"), run);
}
