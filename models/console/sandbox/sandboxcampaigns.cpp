#include "console/sandbox/sandboxcampaigns.h"

#include "envelope/campaignschedule.h"

#include "audit/auditlog.h"
#include "envelope/campaignpools.h"
#include "envelope/campaignservice.h"
#include "envelope/envelopedrain.h"
#include "envelope/grabservice.h"
#include "payout/simulatedpayoutgateway.h"
#include "queue/reliablequeue.h"
#include "operations/workerheartbeat.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

#include <QJsonObject>

#include <algorithm>

namespace lantern {

namespace {

const QString Operator = QStringLiteral("sandbox");

} // namespace

SandboxCampaigns::SandboxCampaigns(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, QString workerId)
    : m_redis(redis), m_sql(sql), m_keys(keys), m_workerId(std::move(workerId))
{
}

CampaignDemo SandboxCampaigns::seed(qint64 nowMs)
{
    CampaignService campaigns(m_redis, m_sql, m_keys);
    AuditLog audit(m_sql);
    const auto create = [&](const QString &name, qint64 totalCents, qint64 count, SplitAlgorithm algorithm, quint64 seed) {
        CampaignDraft draft;
        draft.name = name;
        draft.totalCents = totalCents;
        draft.count = count;
        draft.algorithm = algorithm;
        draft.seed = seed;
        const Campaign campaign = campaigns.create(draft, nowMs);
        audit.record(Operator, QStringLiteral("campaign.create"), QStringLiteral("campaign:%1").arg(campaign.id),
                     {{QStringLiteral("total_cents"), totalCents}, {QStringLiteral("count"), count}}, nowMs);
        return campaign.id;
    };
    const auto launch = [&](qint64 id) {
        campaigns.launch(id);
        audit.record(Operator, QStringLiteral("campaign.launch"), QStringLiteral("campaign:%1").arg(id), {}, nowMs);
    };

    CampaignDemo demo;
    // 1. Last week's campaign: grabbed out, paid, closed.
    demo.finishedId = create(QStringLiteral("Weekend lucky draw"), 20'000, 40, SplitAlgorithm::DoubleMean, 7);
    launch(demo.finishedId);
    while (crowdPass(demo.finishedId, nowMs) != SoldOut) {
    }
    SimulatedPayoutGateway gateway(m_redis, m_keys.prefix(), SimulationKnobs{}, 1);
    EnvelopeDrain(m_redis, m_sql, m_keys, m_workerId, gateway).drainAll();
    campaigns.close(demo.finishedId);
    audit.record(Operator, QStringLiteral("campaign.close"), QStringLiteral("campaign:%1").arg(demo.finishedId), {}, nowMs);

    // 2. Tonight's campaign: live, a crowd grabbing (crowdPass, from the worker's timer).
    demo.liveId = create(QStringLiteral("Spring Festival red envelopes"), 888'888, 600, SplitAlgorithm::Smoothed, 2026);
    launch(demo.liveId);
    for (int i = 0; i < 10; ++i)
        crowdPass(demo.liveId, nowMs);

    // 3. A worker that crashed holding twelve payout tasks of the live campaign.
    demo.crashedWorker = QStringLiteral("sandbox-crashed-1");
    const QByteArray tasks = m_keys.campaignTasks(demo.liveId);
    const QByteArray backup = m_keys.campaignBackup(demo.liveId, demo.crashedWorker);
    for (int i = 0; i < 12; ++i) {
        if (m_redis.command({QByteArrayLiteral("LMOVE"), tasks, backup, QByteArrayLiteral("RIGHT"), QByteArrayLiteral("LEFT")}).isNil())
            break;
        ++demo.crashedTasks;
    }
    m_redis.command({QByteArrayLiteral("SADD"), m_keys.workerSet(), demo.crashedWorker.toUtf8()});

    // 4. Dead letters to retry, edit or discard: three tasks the provider kept refusing, set
    //    aside with their notes, and an entry cut short that no worker can read.
    const ReliableQueue queue(tasks, m_keys.campaignBackup(demo.liveId, m_workerId), m_keys.campaignDeadLetter(demo.liveId));
    const QStringList refusals{QStringLiteral("provider: HTTP 503 Service Unavailable"), QStringLiteral("provider: account frozen (code 4031)"),
                               QStringLiteral("provider: timed out after 5000 ms")};
    const QByteArrayList claimed = queue.claim(m_redis, int(refusals.size()));
    for (qsizetype i = 0; i < claimed.size(); ++i) {
        DeadLetterNote note;
        note.reason = refusals.at(i);
        note.attempts = 5;
        note.failedAtMs = nowMs;  // set aside when they were queued, never before
        queue.deadLetter(m_redis, claimed.at(i), note);
        ++demo.deadLetters;
    }
    const QByteArray cutShort = QByteArrayLiteral("{\"campaign\":\"") + QByteArray::number(demo.liveId) + QByteArrayLiteral("\",\"seq\":\"4");
    m_redis.command({QByteArrayLiteral("LPUSH"), queue.backupKey(), cutShort});
    queue.deadLetter(m_redis, cutShort, DeadLetterNote{QStringLiteral("not a payout task: the JSON ends early"), 1, nowMs});
    ++demo.deadLetters;

    // 5. Next week's campaign: a draft on the timetable, to launch at a whole hour a week from
    //    now and close three hours later (the sandbox's worker keeps it).
    demo.draftId = create(QStringLiteral("Lantern Festival riddles"), 500'000, 1'000, SplitAlgorithm::UniformCuts, 15);
    constexpr qint64 HourMs = 3'600'000;
    const qint64 serverNowMs = redisTimeMs(m_redis);
    ScheduleRequest timetable;
    timetable.launchAtMs = (serverNowMs + 7 * 24 * HourMs) / HourMs * HourMs;
    timetable.closeAtMs = *timetable.launchAtMs + 3 * HourMs;
    CampaignSchedule(m_sql).apply(demo.draftId, timetable, Operator, serverNowMs);
    return demo;
}

QList<qint64> SandboxCampaigns::campaignIds()
{
    return CampaignPools::launchedCampaigns(m_redis, m_keys);  // a campaign of sub-pools once
}

int SandboxCampaigns::crowdPass(qint64 campaignId, qint64 nowMs, int crowd)
{
    GrabService grabs(m_redis, m_keys);
    if (crowd <= 0)
        crowd = std::uniform_int_distribution<int>(2, 9)(m_random);
    int won = 0;
    for (int i = 0; i < crowd; ++i) {
        const GrabOutcome outcome = grabs.grab(campaignId, m_nextUid++, nowMs);
        if (outcome.status == QLatin1String("ok"))
            ++won;
        else if (outcome.status == QLatin1String("sold_out"))
            return won > 0 ? won : SoldOut;
        else if (outcome.status == QLatin1String("not_live"))
            return won;  // paused (or closed) from the console: the crowd waits
    }
    return won;
}

} // namespace lantern
