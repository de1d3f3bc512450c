#include "operations/queueoverview.h"

#include "checkin/checkinentry.h"
#include "envelope/campaignpools.h"
#include "envelope/payouttask.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"

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

QStringList sortedMembers(RedisClient &redis, const QByteArray &set)
{
    QStringList members;
    for (const RedisValue &member : redis.command({QByteArrayLiteral("SMEMBERS"), set}).elements)
        members << QString::fromUtf8(member.toBytes());
    return members;
}

} // namespace

qint64 QueueOverview::aliveWorkers(RedisClient &redis, const KeySchema &keys)
{
    QList<QByteArrayList> commands;
    for (const QString &worker : sortedMembers(redis, keys.workerSet()))
        commands << QByteArrayList{QByteArrayLiteral("EXISTS"), keys.workerHeartbeat(worker)};
    if (commands.isEmpty())
        return 0;
    qint64 alive = 0;
    for (const RedisValue &reply : redis.pipeline(commands))
        alive += reply.toInteger();
    return alive;
}

QueueOverview QueueOverview::read(RedisClient &redis, const KeySchema &keys, qint64 nowMs)
{
    // Launched campaigns and their pools ("42", or "42", "42.7", ... with sub-pools): one queue
    // line per campaign, its pools' figures summed.
    const QByteArrayList pools = CampaignPools::launched(redis, keys);
    QMap<qint64, QByteArrayList> campaigns;
    for (const QByteArray &pool : pools)
        campaigns[*CampaignPools::campaignOf(pool)] << pool;
    QStringList workerIds = sortedMembers(redis, keys.workerSet());
    workerIds.sort();

    // Round trip 1: per queue its length, its oldest entry and its dead-letter length; then per
    // worker its heartbeat and every backup list it may hold.
    QList<QByteArrayList> commands;
    for (int shard = 0; shard < keys.shards(); ++shard)
        commands << llen(keys.checkinQueue(shard)) << oldest(keys.checkinQueue(shard)) << llen(keys.checkinDeadLetter(shard));
    for (const QByteArray &pool : std::as_const(pools))
        commands << llen(keys.campaignTasks(pool)) << oldest(keys.campaignTasks(pool)) << llen(keys.campaignDeadLetter(pool))
                 << QByteArrayList{QByteArrayLiteral("SCARD"), keys.campaignRefused(pool)} << llen(keys.campaignPool(pool))
                 << QByteArrayList{QByteArrayLiteral("HGET"), keys.campaignMeta(pool), QByteArrayLiteral("status")};
    for (const QString &worker : std::as_const(workerIds)) {
        commands << QByteArrayList{QByteArrayLiteral("GET"), keys.workerHeartbeat(worker)}
                 << QByteArrayList{QByteArrayLiteral("HMGET"), keys.workerPayouts(worker), QByteArrayLiteral("paid"), QByteArrayLiteral("calls"),
                                   QByteArrayLiteral("errors"), QByteArrayLiteral("in_flight"), QByteArrayLiteral("paid_per_s"),
                                   QByteArrayLiteral("checkins"), QByteArrayLiteral("grabs")};
        for (int shard = 0; shard < keys.shards(); ++shard)
            commands << llen(keys.checkinBackup(shard, worker));
        for (const QByteArray &pool : std::as_const(pools))
            commands << llen(keys.campaignBackup(pool, worker));
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
        const std::vector<RedisValue> &figures = replies[at++].elements;
        if (worker.alive && figures.size() == 7 && !figures[0].isNil()) {
            WorkerPayoutFigures payouts;
            payouts.paid = figures[0].toInteger();
            payouts.calls = figures[1].isNil() ? 0 : figures[1].toInteger();
            payouts.providerErrors = figures[2].isNil() ? 0 : figures[2].toInteger();
            payouts.inFlight = figures[3].isNil() ? 0 : figures[3].toInteger();
            payouts.paidPerSecond = figures[4].toBytes().toDouble();
            payouts.checkinsPersisted = figures[5].isNil() ? 0 : figures[5].toInteger();
            payouts.grabsPersisted = figures[6].isNil() ? 0 : figures[6].toInteger();
            worker.payouts = payouts;
            overview.payouts.paid += payouts.paid;
            overview.payouts.calls += payouts.calls;
            overview.payouts.providerErrors += payouts.providerErrors;
            overview.payouts.inFlight += payouts.inFlight;
            overview.payouts.paidPerSecond += payouts.paidPerSecond;
            overview.payouts.checkinsPersisted += payouts.checkinsPersisted;
            overview.payouts.grabsPersisted += payouts.grabsPersisted;
        }
        for (qsizetype list = 0; list < keys.shards() + pools.size(); ++list)
            worker.backupDepth += replies[at++].toInteger();
        overview.workers << worker;
    }
    return overview;
}

} // namespace lantern
