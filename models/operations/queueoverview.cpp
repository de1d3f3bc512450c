#include "operations/queueoverview.h"

#include "checkin/checkinentry.h"
#include "envelope/campaignpools.h"
#include "envelope/payouttask.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "redis/setscan.h"

#include <QMap>

#include <algorithm>

namespace lantern {

namespace {

QByteArrayList llen(const QByteArray &key) { return {QByteArrayLiteral("LLEN"), key}; }
QByteArrayList oldest(const QByteArray &key) { return {QByteArrayLiteral("LINDEX"), key, QByteArrayLiteral("-1")}; }

double ageSeconds(qint64 nowMs, std::optional<qint64> oldestMs)
{
    return oldestMs ? double(std::max<qint64>(0, nowMs - *oldestMs)) / 1000.0 : 0.0;
}

std::optional<qint64> earlier(std::optional<qint64> a, std::optional<qint64> b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    return std::min(*a, *b);
}

QStringList sortedWorkers(RedisClient &redis, const KeySchema &keys)
{
    QStringList members;
    for (const QByteArray &member : scanSet(redis, keys.workerSet()))
        members << QString::fromUtf8(member);
    members.sort();
    return members;
}

} // namespace

qint64 QueueOverview::aliveWorkers(RedisClient &redis, const KeySchema &keys)
{
    QList<QByteArrayList> commands;
    for (const QString &worker : sortedWorkers(redis, keys))
        commands << QByteArrayList{QByteArrayLiteral("EXISTS"), keys.workerHeartbeat(worker)};
    if (commands.isEmpty())
        return 0;
    qint64 alive = 0;
    for (const RedisValue &reply : redis.pipeline(commands))
        alive += reply.toInteger();
    return alive;
}

QueueOverview QueueOverview::read(RedisClient &redis, const KeySchema &keys, qint64 nowMs, LiveWorkers live)
{
    // Launched campaigns and their pools ("42", or "42", "42.7", ... with sub-pools): one queue
    // line per campaign, its pools' figures summed.
    const QByteArrayList pools = CampaignPools::launched(redis, keys);
    QMap<qint64, QByteArrayList> campaigns;
    for (const QByteArray &pool : pools)
        campaigns[*CampaignPools::campaignOf(pool)] << pool;
    const QStringList workerIds = sortedWorkers(redis, keys);

    // Round trip 1: per queue its length, its oldest entry and its dead-letter length; then per
    // worker its heartbeat and what it said with it (its backup depth among that).
    QList<QByteArrayList> commands;
    for (int shard = 0; shard < keys.shards(); ++shard)
        commands << llen(keys.checkinQueue(shard)) << oldest(keys.checkinQueue(shard)) << llen(keys.checkinDeadLetter(shard));
    for (const QByteArray &pool : std::as_const(pools))
        commands << llen(keys.campaignTasks(pool)) << oldest(keys.campaignTasks(pool)) << llen(keys.campaignDeadLetter(pool))
                 << QByteArrayList{QByteArrayLiteral("SCARD"), keys.campaignRefused(pool)} << llen(keys.campaignPool(pool))
                 << QByteArrayList{QByteArrayLiteral("HGET"), keys.campaignMeta(pool), QByteArrayLiteral("status")};
    const bool figures = live == LiveWorkers::Figures;
    for (const QString &worker : std::as_const(workerIds)) {
        commands << QByteArrayList{QByteArrayLiteral("GET"), keys.workerHeartbeat(worker)};
        if (figures)
            commands << QByteArrayList{QByteArrayLiteral("HMGET"), keys.workerPayouts(worker), QByteArrayLiteral("paid"), QByteArrayLiteral("calls"),
                                       QByteArrayLiteral("errors"), QByteArrayLiteral("in_flight"), QByteArrayLiteral("paid_per_s"),
                                       QByteArrayLiteral("checkins"), QByteArrayLiteral("grabs"), QByteArrayLiteral("held")};
    }
    const std::vector<RedisValue> replies = redis.pipeline(commands);
    size_t at = 0;

    QueueOverview overview;
    QueueStatus checkin{QStringLiteral("checkin"), std::nullopt, 0, 0, 0};
    std::optional<qint64> checkinOldest;
    for (int shard = 0; shard < keys.shards(); ++shard) {
        checkin.depth += replies[at++].toInteger();
        if (const auto entry = CheckinEntry::fromJson(replies[at++].toBytes()))
            checkinOldest = earlier(checkinOldest, entry->atMs);
        checkin.deadLetter += replies[at++].toInteger();
    }
    checkin.oldestAgeS = ageSeconds(nowMs, checkinOldest);
    overview.queues << checkin;
    for (auto campaign = campaigns.cbegin(); campaign != campaigns.cend(); ++campaign) {
        QueueStatus payout{QStringLiteral("payout:%1").arg(campaign.key()), campaign.key(), 0, 0, 0};
        std::optional<qint64> payoutOldest;
        for (qsizetype pool = 0; pool < campaign.value().size(); ++pool) {
            payout.depth += replies[at++].toInteger();
            if (const auto task = PayoutTask::fromJson(replies[at++].toBytes()))
                payoutOldest = earlier(payoutOldest, task->atMs);
            payout.deadLetter += replies[at++].toInteger();
            payout.refused += replies[at++].toInteger();
            payout.remainingEnvelopes += replies[at++].toInteger();
            const RedisValue &status = replies[at++];
            if (pool == 0 && !status.isNil())
                payout.campaignStatus = QString::fromUtf8(status.toBytes());
        }
        payout.oldestAgeS = ageSeconds(nowMs, payoutOldest);
        overview.queues << payout;
    }
    for (const QueueStatus &queue : std::as_const(overview.queues)) {
        overview.deadLetter += queue.deadLetter;
        overview.refused += queue.refused;
    }

    for (const QString &id : std::as_const(workerIds)) {
        WorkerStatus worker;
        worker.id = id;
        const RedisValue &beat = replies[at++];
        worker.alive = !beat.isNil();
        if (worker.alive)
            worker.lastBeatS = ageSeconds(nowMs, beat.toInteger());
        if (!figures) {
            worker.depthCounted = !worker.alive;  // the dead's lists are counted below
            overview.workers << worker;
            continue;
        }
        const std::vector<RedisValue> &said = replies[at++].elements;
        if (worker.alive && said.size() == 8 && !said[7].isNil())
            worker.backupDepth = said[7].toInteger();
        else
            worker.depthCounted = true;
        if (worker.alive && said.size() == 8 && !said[0].isNil()) {
            WorkerPayoutFigures payouts;
            payouts.paid = said[0].toInteger();
            payouts.calls = said[1].isNil() ? 0 : said[1].toInteger();
            payouts.providerErrors = said[2].isNil() ? 0 : said[2].toInteger();
            payouts.inFlight = said[3].isNil() ? 0 : said[3].toInteger();
            payouts.paidPerSecond = said[4].toBytes().toDouble();
            payouts.checkinsPersisted = said[5].isNil() ? 0 : said[5].toInteger();
            payouts.grabsPersisted = said[6].isNil() ? 0 : said[6].toInteger();
            if (!said[7].isNil())
                payouts.held = said[7].toInteger();
            worker.payouts = payouts;
            overview.payouts.paid += payouts.paid;
            overview.payouts.calls += payouts.calls;
            overview.payouts.providerErrors += payouts.providerErrors;
            overview.payouts.inFlight += payouts.inFlight;
            overview.payouts.paidPerSecond += payouts.paidPerSecond;
            overview.payouts.checkinsPersisted += payouts.checkinsPersisted;
            overview.payouts.grabsPersisted += payouts.grabsPersisted;
        }
        overview.workers << worker;
    }

    // Round trip 2: the lists of the workers whose depth is not said, one LLEN each. A dead
    // worker's lists change only by recovery, so this is the figure recovery will act on.
    commands.clear();
    QList<QList<BackupList>> counted;
    for (const WorkerStatus &worker : std::as_const(overview.workers)) {
        if (!worker.depthCounted)
            continue;
        counted << backupLists(keys, worker.id, pools);
        for (const BackupList &list : std::as_const(counted.last()))
            commands << llen(list.key);
    }
    if (commands.isEmpty())
        return overview;
    const std::vector<RedisValue> lengths = redis.pipeline(commands);
    at = 0;
    qsizetype next = 0;
    for (WorkerStatus &worker : overview.workers) {
        if (!worker.depthCounted)
            continue;
        for (BackupList &list : counted[next++]) {
            list.length = lengths[at++].toInteger();
            worker.backupDepth += list.length;
            if (list.length > 0)
                worker.held << list;
        }
    }
    return overview;
}

QList<BackupList> QueueOverview::backupLists(const KeySchema &keys, const QString &worker, const QByteArrayList &pools)
{
    QList<BackupList> lists;
    for (int shard = 0; shard < keys.shards(); ++shard)
        lists << BackupList{keys.checkinBackup(shard, worker), QStringLiteral("checkin"), 0};
    // Every pool of a campaign of sub-pools holds its own backup lists.
    for (const QByteArray &pool : pools)
        lists << BackupList{keys.campaignBackup(pool, worker), QStringLiteral("payout:%1").arg(*CampaignPools::campaignOf(pool)), 0};
    return lists;
}

} // namespace lantern
