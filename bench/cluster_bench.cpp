// lantern-bench-cluster: grabs and check-ins per second through the library (GrabService and
// CheckinService over the blocking RedisClient, one thread per client) on a single redis-server,
// on a 1-master cluster without a replica (which the bench starts: what routing alone costs) and
// on the 3+3 Redis Cluster, the same clients in the same run; a grab storm while the campaign's
// slot moves between masters (the share of grabs that took a redirect, client-visible errors,
// exact counts and sums); then the same through `lanternd serve` and wrk (--lanternd). Each
// master's CPU per phase. It measures; it asserts nothing but the counts.
#include "benchcampaign.h"
#include "benchserver.h"
#include "campaignstate.h"
#include "clientload.h"
#include "clusterhttp.h"
#include "httpsettings.h"
#include "livereshard.h"
#include "privateclusternode.h"
#include "reshardstorm.h"
#include "rounds.h"
#include "servercpu.h"
#include "summaryrows.h"

#include "checkin/checkinservice.h"
#include "core/errors.h"
#include "envelope/campaignpools.h"
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
#include <QDir>
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

struct Target {
    QString name;
    QString urlText;
    RedisUrl url;
    std::unique_ptr<RedisClient> redis;  // for set-up and server figures
    std::unique_ptr<CampaignService> campaigns;
    qint64 campaign = 0;  // its one-campaign phases' campaign
};

/** The master serving `campaign`'s slot now. */
QString masterOf(RedisClient &redis, const RedisUrl &url, const KeySchema &keys, qint64 campaign)
{
    const ClusterSlotMap map = ClusterSlotMap::fromSlotsReply(redis.command({"CLUSTER", "SLOTS"}), url.seeds().first());
    return map.masterOf(keyslot::of(keys.campaignMeta(campaign)))->text();
}

int run(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "Grabs and check-ins per second through the library on a single redis-server (--redis), on a 1-master cluster the "
            "bench starts, and on a Redis Cluster (--cluster), the same clients in the same run; a grab storm during a live "
            "reshard; then the same through lanternd serve (--lanternd) and wrk."));
    addHttpOptions(parser);
    parser.addOption({QStringLiteral("cluster"), QStringLiteral("The Redis Cluster: a seed list or one node's URL."), QStringLiteral("url")});
    parser.addOption({QStringLiteral("requests"), QStringLiteral("Requests per phase."), QStringLiteral("n"), QStringLiteral("60000")});
    parser.addOption({QStringLiteral("no-http"), QStringLiteral("Skip the phases through lanternd serve.")});
    processArguments(parser, app);
    const HttpSettings http = httpSettings(parser);
    const BenchSettings &settings = http.bench;
    const qint64 requests = integerOption(parser, QStringLiteral("requests"), 3, 10'000'000);
    if (!parser.isSet(QStringLiteral("cluster")))
        throw InvalidInputError(QStringLiteral("--cluster is required"));
    const KeySchema keys(settings.prefix, ClusterBenchShards);

    const QTemporaryDir work;
    if (!work.isValid())
        throw LanternError(QStringLiteral("cannot create a temporary directory: %1").arg(work.errorString()));
    const QString db = QStringLiteral("sqlite://") + work.filePath(QStringLiteral("bench.db"));
    const std::unique_ptr<SqlConnection> sql = openMigrated(DbUrl::parse(db));
    const PrivateClusterNode oneNode(work.filePath(QStringLiteral("one-master")));

    const QString clusterText = parser.value(QStringLiteral("cluster"));
    Target single{QStringLiteral("single redis-server"), http.redisUrl, settings.redis, nullptr, nullptr};
    Target one{QStringLiteral("1-master cluster"), oneNode.url().redacted(), oneNode.url(), nullptr, nullptr};
    Target cluster{QStringLiteral("3+3 cluster"), clusterText, RedisUrl::parse(clusterText), nullptr, nullptr};
    std::vector<Target *> targets{&single, &one, &cluster};
    // Every key under the prefix goes before the run and after it, however it ends (the test
    // cluster is shared with the test suites: a replica's full sync of leftovers takes time).
    std::vector<std::unique_ptr<BenchServer>> servers;
    std::vector<std::unique_ptr<KeysRemovedOnExit>> cleanups;
    for (Target *target : targets) {
        target->redis = std::make_unique<RedisClient>(target->url);
        target->redis->ensureConnected();
        target->campaigns = std::make_unique<CampaignService>(*target->redis, *sql, keys);
        servers.push_back(std::make_unique<BenchServer>(*target->redis));
        servers.back()->removeKeys(settings.prefix.toUtf8());
        cleanups.push_back(std::make_unique<KeysRemovedOnExit>(*servers.back(), settings.prefix.toUtf8()));
    }
    if (!one.redis->isCluster() || !cluster.redis->isCluster())
        throw InvalidInputError(QStringLiteral("--cluster %1 is not a Redis Cluster").arg(cluster.url.redacted()));
    const qint64 pool = requests;
    single.campaign = launchBenchCampaign(*single.campaigns, QStringLiteral("bench-single"), pool, settings.seed).id;
    one.campaign = launchBenchCampaign(*one.campaigns, QStringLiteral("bench-one-master"), pool, settings.seed).id;
    // On the 3+3 cluster, one campaign per master (created until every master serves one: a
    // campaign's keys are one {cp:ID} slot).
    const int masters = int(cluster.redis->clusterMasters().size());
    QMap<QString, qint64> campaignOf;  // master -> campaign
    for (int n = 0; campaignOf.size() < masters; ++n) {
        if (n == 64)
            throw LanternError(QStringLiteral("64 campaigns did not cover every master"));
        const qint64 id = launchBenchCampaign(*cluster.campaigns, QStringLiteral("bench-cluster-%1").arg(n), pool, settings.seed).id;
        const QString master = masterOf(*cluster.redis, cluster.url, keys, id);
        if (!campaignOf.contains(master))
            campaignOf.insert(master, id);
    }
    const std::vector<qint64> spread(campaignOf.cbegin(), campaignOf.cend());
    cluster.campaign = spread.front();
    // One hot campaign dealt into a sub-pool per master (campaign create --pools).
    CampaignDraft pooledDraft;
    pooledDraft.name = QStringLiteral("bench-cluster-pools");
    pooledDraft.count = pool;
    pooledDraft.totalCents = pool * 100;
    pooledDraft.seed = settings.seed;
    pooledDraft.pools = masters;
    const qint64 pooled = cluster.campaigns->launch(cluster.campaigns->create(pooledDraft, QDateTime::currentMSecsSinceEpoch()).id).id;
    const CampaignPools pooledPools = CampaignPools::read(*cluster.redis, keys, pooled);
    const qint64 campaignCents = pool * 100;
    // A grab phase starts from a full pool: the campaign's Redis keys removed, launched again.
    const auto relaunch = [&keys](Target &target, qint64 id) {
        const CampaignPools pools = CampaignPools::read(*target.redis, keys, id);
        for (const QByteArray &name : pools.names())
            BenchServer(*target.redis).removeKeys(keys.prefix() + "{cp:" + name + "}:");
        CampaignPools::forget(keys, id);
        target.campaigns->launch(id);
    };

    QTextStream out(stdout);
    out << "### Through the library (GrabService, CheckinService)\n\n"
        << "- " << settings.clients << " client threads, " << requests << " requests per phase, " << settings.rounds
        << " rounds (alternating order), medians compared.\n"
        << "- Campaigns of " << pool << " envelopes; before each grab phase the campaign's keys are removed and it is launched "
        << "again, so every grab takes the `ok` path. Check-ins of fresh users on a new day each phase, " << ClusterBenchShards
        << " shards.\n"
        << "- The 1-master cluster: `" << oneNode.commandLine() << "`, every slot on it (CLUSTER ADDSLOTSRANGE 0 16383), no replica, "
        << "started by the bench.\n"
        << "- The 3+3 cluster: " << cluster.url.redacted() << ", masters " << QStringList(campaignOf.keys()).join(QStringLiteral(", "))
        << "; one campaign is served by " << campaignOf.key(cluster.campaign) << ".\n\n"
        << "| round | phase | ops/s | p50 ms | p99 ms | client CPU us | server CPU (each master) |\n|---|---|---:|---:|---:|---:|---|\n";
    out.flush();

    qint64 nextUid = 1;
    int checkinDay = 0;
    QMap<QString, std::vector<double>> clientCpu;  // phase -> client CPU us per op, each round
    const auto freshUids = [&] {
        std::vector<qint64> uids(static_cast<size_t>(requests));
        std::iota(uids.begin(), uids.end(), nextUid);
        nextUid += requests;
        return uids;
    };
    const auto phase = [&](const QString &label, Target &target, const std::function<ClientFactory()> &prepare) -> RoundPhase {
        return [&, label, prepare, on = &target](int round) {
            Target &target = *on;
            const ClientFactory factory = prepare();
            const std::vector<qint64> uids = freshUids();
            const QMap<QString, double> before = serverCpu(*target.redis);
            const PhaseFigures figures = runClientLoad(target.url, settings.clients, uids, factory);
            const QMap<QString, double> after = serverCpu(*target.redis);
            clientCpu[label].push_back(figures.clientMicros);
            out << "| " << round << " | " << label << " | " << rate(figures.perSecond) << " | " << QString::number(figures.p50Ms, 'f', 2)
                << " | " << QString::number(figures.p99Ms, 'f', 2) << " | " << QString::number(figures.clientMicros, 'f', 1) << " | "
                << cpuSpent(before, after) << " |\n";
            out.flush();
            return figures.perSecond;
        };
    };
    const auto grabsOn = [&keys, &relaunch](Target &target, std::vector<qint64> ids, GrabWait wait = {}) {
        return [&keys, &relaunch, on = &target, ids, wait] {
            for (const qint64 id : ids)
                relaunch(*on, id);
            return ClientFactory([&keys, ids, wait](RedisClient &redis) -> ClientRequest {
                auto service = std::make_shared<GrabService>(redis, keys, wait);
                return [service, ids](qint64 uid) { service->grab(ids[size_t(uid) % ids.size()], uid, QDateTime::currentMSecsSinceEpoch()); };
            });
        };
    };
    const auto checkinsOn = [&keys, &checkinDay] {
        const QDate day = QDate(2024, 1, 1).addDays(checkinDay++);
        return ClientFactory([&keys, day](RedisClient &redis) -> ClientRequest {
            auto service = std::make_shared<CheckinService>(redis, keys, CheckinRules{});
            return [service, day](qint64 uid) { service->checkin(uid, day, day, QDateTime::currentMSecsSinceEpoch()); };
        });
    };

    const QStringList labels{QStringLiteral("grabs, single server"),
                             QStringLiteral("grabs, 1-master cluster"),
                             QStringLiteral("grabs, 3+3 cluster, one campaign"),
                             QStringLiteral("grabs, 3+3 cluster, a campaign per master"),
                             QStringLiteral("check-ins, single server"),
                             QStringLiteral("check-ins, 1-master cluster"),
                             QStringLiteral("check-ins, 3+3 cluster"),
                             QStringLiteral("grabs, 3+3 cluster, one campaign of a sub-pool per master"),
                             QStringLiteral("grabs, 3+3 cluster, one campaign, grab-wait 1/100")};
    const std::vector<double> rates = runAlternatingRounds(
            settings.rounds, {phase(labels[0], single, grabsOn(single, {single.campaign})), phase(labels[1], one, grabsOn(one, {one.campaign})),
                              phase(labels[2], cluster, grabsOn(cluster, {cluster.campaign})), phase(labels[3], cluster, grabsOn(cluster, spread)),
                              phase(labels[4], single, checkinsOn), phase(labels[5], one, checkinsOn), phase(labels[6], cluster, checkinsOn),
                              phase(labels[7], cluster, grabsOn(cluster, {pooled})),
                              phase(labels[8], cluster, grabsOn(cluster, {cluster.campaign}, GrabWait{1, 100}))});
    out << "\n";
    std::vector<std::pair<QString, double>> medians;
    for (qsizetype i = 0; i < labels.size(); ++i)
        medians.emplace_back(labels[i], rates[size_t(i)]);
    printSummary(out, settings.rounds, QStringLiteral("ops/s"), medians,
                 {{QStringLiteral("grabs: 1-master cluster / single (routing)"), rates[1], rates[0]},
                  {QStringLiteral("grabs, one campaign: 3+3 / 1-master (replication, 6 servers on the cores)"), rates[2], rates[1]},
                  {QStringLiteral("grabs, one campaign: 3+3 / single"), rates[2], rates[0]},
                  {QStringLiteral("grabs, a campaign per master: 3+3 / single"), rates[3], rates[0]},
                  {QStringLiteral("check-ins: 1-master cluster / single (routing)"), rates[5], rates[4]},
                  {QStringLiteral("check-ins: 3+3 / single"), rates[6], rates[4]},
                  {QStringLiteral("one hot campaign on the 3+3: a sub-pool per master / one pool"), rates[7], rates[2]},
                  {QStringLiteral("one campaign on the 3+3: grab-wait 1/100 / no wait"), rates[8], rates[2]}});
    // How the last sub-pool round went: the pools ran dry about together, the tail borrowed.
    const CampaignSummary pooledSummary = cluster.campaigns->show(pooled);
    out << "\nThe sub-pooled campaign after its last round (" << pooledPools.count() << " pools: "
        << QString::fromLatin1(pooledPools.field()) << "):";
    for (const PoolProgress &progress : pooledSummary.pools)
        out << " " << QString::fromLatin1(progress.name) << " grabbed " << progress.grabbedCount << ", borrowed " << progress.borrowedCount
            << ", lent in flight " << progress.lentInFlight << ";";
    out << " " << pooledSummary.grabbedCount << " of " << pool << " grabbed, " << pooledSummary.grabbedCents << " of " << campaignCents
        << " cents.\n";
    // On a busy machine the rates move with the neighbours; CPU per op is the steadier comparison.
    out << "\n| median of " << settings.rounds << " rounds | client CPU us per op | / single server |\n|---|---:|---:|\n";
    for (qsizetype i = 0; i < labels.size(); ++i) {
        const double cpu = median(clientCpu.value(labels[i]));
        const double base = median(clientCpu.value(labels[(i < 4 || i >= 7) ? 0 : 4]));
        out << "| " << labels[i] << " | " << QString::number(cpu, 'f', 1) << " | " << ratioText(cpu, base) << " |\n";
    }

    // The live reshard: the campaign's slot moves to the next master during each round's storm,
    // then back to where it was.
    const int slot = keyslot::of(keys.campaignMeta(cluster.campaign));
    const QString home = masterOf(*cluster.redis, cluster.url, keys, cluster.campaign);
    out << "\n### Grabs during a live reshard (library, 3+3 cluster)\n\n"
        << "- The campaign's slot " << slot << " moves to the next master once a third of the " << requests
        << " grabs are answered: SETSLOT IMPORTING/MIGRATING, MIGRATE of its keys one at a time, SETSLOT NODE on every master "
           "(bench/livereshard.cpp); each grab's redirects are read from its client's routingStats(), errors are counted, not thrown.\n\n"
        << "| round | grabs/s | p99 ms | errors | took a redirect | MOVED | ASK | waited out | move | answered when moved | counts and sums |\n"
        << "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|\n";
    out.flush();
    qint64 reshardGrabs = 0, reshardRedirected = 0, reshardErrors = 0;
    bool reshardExact = true;
    for (int round = 1; round <= settings.rounds; ++round) {
        relaunch(cluster, cluster.campaign);
        const ReshardStormFigures f = runGrabsDuringReshard(cluster.url, settings.clients, freshUids(), keys, cluster.campaign, slot);
        const CampaignState s = readCampaignState(*cluster.redis, keys, cluster.campaign);
        const bool exact = f.errors == 0 && f.ok == requests && f.okCents == campaignCents && s.grabbedCount == requests && s.draws == requests
                           && s.envelopes == requests && s.drawnCents == campaignCents && s.grabbedCents == campaignCents && s.pool == 0
                           && s.tasks == requests;
        reshardExact = reshardExact && exact;
        reshardGrabs += f.grabs;
        reshardRedirected += f.tookRedirect;
        reshardErrors += f.errors;
        out << "| " << round << " | " << rate(f.load.perSecond) << " | " << QString::number(f.load.p99Ms, 'f', 2) << " | " << f.errors << " | "
            << f.tookRedirect << " of " << f.grabs << " (" << QString::number(100.0 * double(f.tookRedirect) / double(f.grabs), 'f', 3) << " %) | "
            << f.moved << " | " << f.asked << " | " << f.retried << " | " << f.move.from << " -> " << f.move.to << ", " << f.move.keys << " keys, "
            << QString::number(f.move.milliseconds, 'f', 1) << " ms | " << f.answeredWhenMoved << " | " << (exact ? "exact" : "**FAILED**")
            << ": " << f.ok << " ok, " << s.envelopes << " distinct envelopes, " << s.drawnCents << " of " << campaignCents << " cents, pool "
            << s.pool << " |\n";
        out.flush();
    }

    // The HTTP storm: lanternd serve pointed at each setup, then during a live reshard.
    std::vector<double> httpRates;
    QList<HttpReshardFigures> httpReshard;
    if (!parser.isSet(QStringLiteral("no-http"))) {
        ClusterHttpBench httpBench(http, keys, db, work.filePath(QStringLiteral("http")), requests, out);
        QList<HttpTarget> httpTargets;
        for (Target *target : targets) {
            httpTargets << HttpTarget{target->name, target->urlText, target->redis.get(), target->campaign, campaignCents,
                                      [&relaunch, target] { relaunch(*target, target->campaign); }};
        }
        httpRates = httpBench.run(httpTargets);
        httpReshard = httpBench.runReshard(httpTargets[2], slot);
    }
    // The slot goes home.
    LiveReshard(cluster.url).moveTo(slot, home);

    const QString clients = QString::number(settings.clients);
    std::vector<SummaryRow> rows{
            {QStringLiteral("grabs/s on a 1-master cluster, no replica (routing alone), %1 clients").arg(clients), rate(rates[1]),
             QStringLiteral("the same on one redis-server"), rate(rates[0]), ratioText(rates[1], rates[0])},
            {QStringLiteral("check-ins/s on a 1-master cluster, no replica (routing alone), %1 clients").arg(clients), rate(rates[5]),
             QStringLiteral("the same on one redis-server"), rate(rates[4]), ratioText(rates[5], rates[4])},
            {QStringLiteral("grabs/s on a 3+3 cluster, one campaign (one master), %1 clients").arg(clients), rate(rates[2]),
             QStringLiteral("the same on one redis-server"), rate(rates[0]), ratioText(rates[2], rates[0])},
            {QStringLiteral("grabs/s on a 3+3 cluster, a campaign per master, %1 clients").arg(clients), rate(rates[3]),
             QStringLiteral("one campaign on one redis-server"), rate(rates[0]), ratioText(rates[3], rates[0])},
            {QStringLiteral("check-ins/s on a 3+3 cluster, %1 clients").arg(clients), rate(rates[6]), QStringLiteral("the same on one redis-server"),
             rate(rates[4]), ratioText(rates[6], rates[4])},
            {QStringLiteral("grabs/s of one campaign with a sub-pool per master (3+3 cluster, %1 clients)").arg(clients), rate(rates[7]),
             QStringLiteral("the same campaign in one pool"), rate(rates[2]), ratioText(rates[7], rates[2])},
            {QStringLiteral("grabs/s with grab-wait 1/100 (WAIT for the replica after each grab; 3+3 cluster, %1 clients)").arg(clients),
             rate(rates[8]), QStringLiteral("the same without waiting"), rate(rates[2]), ratioText(rates[8], rates[2])},
            {QStringLiteral("grabs that took a redirect during a live reshard (library, %1; %2 client errors)")
                     .arg(reshardExact ? QStringLiteral("counts and sums exact") : QStringLiteral("**a check FAILED**"))
                     .arg(reshardErrors),
             QString::number(reshardRedirected), QStringLiteral("grabs"), QString::number(reshardGrabs),
             ratioText(double(reshardRedirected), double(reshardGrabs))}};
    if (!httpRates.empty()) {
        out << "\n";
        printSummary(out, settings.rounds, QStringLiteral("requests/s"),
                     {{QStringLiteral("HTTP grabs, single server"), httpRates[0]},
                      {QStringLiteral("HTTP grabs, 1-master cluster"), httpRates[1]},
                      {QStringLiteral("HTTP grabs, 3+3 cluster"), httpRates[2]},
                      {QStringLiteral("HTTP check-ins, single server"), httpRates[3]},
                      {QStringLiteral("HTTP check-ins, 1-master cluster"), httpRates[4]},
                      {QStringLiteral("HTTP check-ins, 3+3 cluster"), httpRates[5]}},
                     {{QStringLiteral("HTTP grabs: 1-master / single"), httpRates[1], httpRates[0]},
                      {QStringLiteral("HTTP grabs: 3+3 / single"), httpRates[2], httpRates[0]},
                      {QStringLiteral("HTTP check-ins: 1-master / single"), httpRates[4], httpRates[3]},
                      {QStringLiteral("HTTP check-ins: 3+3 / single"), httpRates[5], httpRates[3]}});
        rows.push_back({QStringLiteral("grabs/s through lanternd serve on the 3+3 cluster (HTTP, wrk -c %1)").arg(clients), rate(httpRates[2]),
                        QStringLiteral("lanternd serve on one redis-server"), rate(httpRates[0]), ratioText(httpRates[2], httpRates[0])});
        rows.push_back({QStringLiteral("check-ins/s through lanternd serve on the 3+3 cluster (HTTP, wrk -c %1)").arg(clients), rate(httpRates[5]),
                        QStringLiteral("lanternd serve on one redis-server"), rate(httpRates[3]), ratioText(httpRates[5], httpRates[3])});
        qint64 commands = 0, redirects = 0, non2xx = 0;
        bool exact = true;
        for (const HttpReshardFigures &r : std::as_const(httpReshard)) {
            commands += r.commands;
            redirects += r.moved + r.asked + r.retried;
            non2xx += r.non2xx + r.socketErrors;
            exact = exact && r.checksPassed;
        }
        rows.push_back({QStringLiteral("Redis replies redirected or waited out in lanternd serve during a live reshard (HTTP; %1 non-2xx or socket errors; %2)")
                                .arg(non2xx)
                                .arg(exact ? QStringLiteral("counts and sums exact") : QStringLiteral("**a check FAILED**")),
                        QString::number(redirects), QStringLiteral("Redis commands lanternd sent"), QString::number(commands),
                        ratioText(double(redirects), double(commands))});
        if (!exact || non2xx)
            reshardExact = false;
    }
    appendSummaryRows(settings.summaryFile, rows);
    out.flush();
    if (!reshardExact || reshardErrors)
        throw LanternError(QStringLiteral("a live reshard check failed (see the tables)"));
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-cluster"), run);
}
