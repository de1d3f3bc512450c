#include "campaigncommands.h"

#include "api/resultjson.h"
#include "audit/auditlog.h"
#include "commandcontext.h"
#include "core/errors.h"
#include "envelope/campaignrepair.h"
#include "envelope/campaignservice.h"
#include "envelope/campaignstore.h"
#include "envelope/campaignverifier.h"
#include "envelope/grabservice.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/redisclient.h"
#include "schedulecommands.h"
#include "sql/sqlconnection.h"

#include <QJsonArray>

#include <QCoreApplication>

#include <algorithm>
#include <limits>

namespace lantern::cli {

namespace {
constexpr qint64 MaxId = std::numeric_limits<qint64>::max();

/** launch/pause/resume/close: one transition, audited, printed. Repeating one the campaign
    already made prints it and writes nothing, not even an audit row, however many processes
    repeat it at once: CampaignService writes the row with the change, once (docs/cli.md). */
template<typename Transition>
int runTransition(CommandContext &context, Transition transition)
{
    const qint64 id = context.line().integer(QStringLiteral("id"), 1, MaxId);
    const TransitionAudit audit{context.actor(), context.nowMs(), QString(), {}};
    CampaignService service(context.redis(), context.sql(), context.keys());
    printJson(campaignJson(transition(service, id, audit)));
    return 0;
}
} // namespace

int runCampaignCreate(CommandContext &context)
{
    const CommandLine &line = context.line();
    CampaignDraft draft;
    draft.name = line.required(QStringLiteral("name"));
    draft.totalCents = line.integer(QStringLiteral("total-cents"), 1, MaxId);
    draft.count = line.integer(QStringLiteral("count"), 1, 10'000'000);
    draft.minCents = line.integer(QStringLiteral("min-cents"), 1, MaxId, 1);
    draft.maxAttempts = int(line.integer(QStringLiteral("max-attempts"), 1, 1000, 9));
    draft.pools = int(line.integer(QStringLiteral("pools"), 1, CampaignPools::MaxPools, 1));
    const QString algorithm = line.value(QStringLiteral("algorithm"), QStringLiteral("double-mean"));
    const auto parsed = splitAlgorithmFromName(algorithm);
    if (!parsed)
        throw InvalidInputError(QCoreApplication::translate("lantern::cli::Campaign", "unknown --algorithm '%1': expected double-mean, smoothed or uniform-cuts")
                                        .arg(algorithm));
    draft.algorithm = *parsed;
    if (line.has(QStringLiteral("seed")))
        draft.seed = quint64(line.integer(QStringLiteral("seed"), 0, MaxId));
    CampaignService::validate(draft);  // before any server is reached: bad input is exit 2 even when they are down
    CampaignCreation creation{context.actor(), context.nowMs(), {}, scheduleRequest(context), 0};
    // A timetable is checked against the servers' clock before anything is written.
    if (!creation.schedule.isEmpty())
        creation.serverNowMs = redisTimeMs(context.redis());
    QList<ScheduledTransition> transitions;
    const Campaign campaign = CampaignService(context.redis(), context.sql(), context.keys()).create(draft, creation, &transitions);
    QJsonObject json = campaignJson(campaign);
    if (!creation.schedule.isEmpty())
        json.insert(QStringLiteral("transitions"), transitionsJson(transitions, creation.serverNowMs));
    printJson(json);
    return 0;
}

int runCampaignLaunch(CommandContext &context)
{
    return runTransition(context, [](CampaignService &service, qint64 id, const TransitionAudit &audit) { return service.launch(id, audit); });
}

int runCampaignPause(CommandContext &context)
{
    return runTransition(context, [](CampaignService &service, qint64 id, const TransitionAudit &audit) { return service.pause(id, audit); });
}

int runCampaignResume(CommandContext &context)
{
    return runTransition(context, [](CampaignService &service, qint64 id, const TransitionAudit &audit) { return service.resume(id, audit); });
}

int runCampaignClose(CommandContext &context)
{
    return runTransition(context, [](CampaignService &service, qint64 id, const TransitionAudit &audit) { return service.close(id, audit); });
}

int runCampaignRepair(CommandContext &context)
{
    const qint64 id = context.line().integer(QStringLiteral("id"), 1, MaxId);
    const QString actor = context.actor();
    const CampaignRepairReport report = CampaignRepair(context.redis(), context.sql(), context.keys()).repair(id);
    report.audit(context.sql(), actor, context.nowMs());
    printJson(report.toJson());
    return 0;
}

int runCampaignShow(CommandContext &context)
{
    const qint64 id = context.line().integer(QStringLiteral("id"), 1, MaxId);
    const CampaignSummary summary = CampaignService(context.redis(), context.sql(), context.keys()).show(id);
    QJsonObject json{{QStringLiteral("id"), id},
                     {QStringLiteral("name"), summary.campaign.name},
                     {QStringLiteral("status"), campaignStatusName(summary.campaign.status)},
                     {QStringLiteral("total_cents"), summary.campaign.totalCents},
                     {QStringLiteral("count"), summary.campaign.count},
                     {QStringLiteral("remaining_count"), summary.remainingCount},
                     {QStringLiteral("remaining_cents"), summary.remainingCents},
                     {QStringLiteral("grabbed_count"), summary.grabbedCount},
                     {QStringLiteral("grabbed_cents"), summary.grabbedCents},
                     {QStringLiteral("persisted_count"), summary.persistedCount},
                     {QStringLiteral("paid_count"), summary.paidCount},
                     {QStringLiteral("paid_cents"), summary.paidCents},
                     {QStringLiteral("refunded_cents"), summary.campaign.refundedCents}};
    // Only after Redis lost state (issue 15); the contract's fields stay as they were otherwise.
    if (summary.refusedCount > 0) {
        json.insert(QStringLiteral("refused_count"), summary.refusedCount);
        json.insert(QStringLiteral("refused_cents"), summary.refusedCents);
    }
    if (summary.pools.size() > 1) {
        QJsonArray pools;
        for (const PoolProgress &pool : summary.pools)
            pools.append(QJsonObject{{QStringLiteral("pool"), QString::fromLatin1(pool.name)},
                                     {QStringLiteral("count"), pool.count},
                                     {QStringLiteral("remaining_count"), pool.remainingCount},
                                     {QStringLiteral("grabbed_count"), pool.grabbedCount},
                                     {QStringLiteral("grabbed_cents"), pool.grabbedCents},
                                     {QStringLiteral("borrowed_count"), pool.borrowedCount},
                                     {QStringLiteral("lent_in_flight"), pool.lentInFlight}});
        json.insert(QStringLiteral("pools"), pools);
    }
    printJson(json);
    return 0;
}

int runGrab(CommandContext &context)
{
    const qint64 campaignId = context.line().integer(QStringLiteral("campaign"), 1, MaxId);
    const qint64 uid = context.user();
    const GrabOutcome outcome = GrabService(context.redis(), context.keys(), context.config().grabWait).grab(campaignId, uid, context.nowMs());
    // A campaign that never reached Redis is a draft or does not exist; only SQL can tell, and
    // only this cold path asks it (a launched campaign always has its meta hash).
    if (outcome.status == QLatin1String("not_live")
        && context.redis().command({QByteArrayLiteral("EXISTS"), context.keys().campaignMeta(campaignId)}).toInteger() == 0
        && !CampaignStore(context.sql()).find(campaignId))
        throw InvalidInputError(CampaignService::tr("no campaign with id %1").arg(campaignId));
    printJson(grabOutcomeJson(outcome));
    return 0;
}

int runVerify(CommandContext &context)
{
    std::optional<qint64> campaignId;
    if (context.line().has(QStringLiteral("campaign")))
        campaignId = context.line().integer(QStringLiteral("campaign"), 1, MaxId);
    // The simulated provider's ledger can be read back; an HTTP provider's cannot from here.
    CampaignVerifier verifier(context.redis(), context.sql(), context.keys());
    const std::unique_ptr<SimulatedPayoutGateway> ledger = verifier.readSimulatedLedger();
    const QList<Violation> violations = campaignId ? verifier.verify(*campaignId) : verifier.verifyAll();
    QJsonArray list;
    for (const Violation &violation : violations)
        list.append(QJsonObject{{QStringLiteral("campaign"), violation.campaignId},
                                {QStringLiteral("invariant"), violation.invariant},
                                {QStringLiteral("detail"), violation.detail}});
    QJsonObject json{{QStringLiteral("ok"), violations.isEmpty()}, {QStringLiteral("violations"), list}};
    if (const qint64 refused = verifier.refusedGrabs(campaignId); refused > 0)
        json.insert(QStringLiteral("refused_grabs"), refused);
    printJson(json);
    return 0;
}

} // namespace lantern::cli
