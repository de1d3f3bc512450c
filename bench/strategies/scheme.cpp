#include "scheme.h"

#include "lockschemes.h"
#include "poolschemes.h"

#include "redis/keyschema.h"

#include <chrono>

namespace lantern::bench {

QString schemeName(Scheme scheme)
{
    switch (scheme) {
    case Scheme::DistributedLock: return QStringLiteral("distributed lock");
    case Scheme::OptimisticLock: return QStringLiteral("optimistic lock");
    case Scheme::PessimisticLock: return QStringLiteral("pessimistic lock");
    case Scheme::PreallocatedRows: return QStringLiteral("pre-allocated rows + optimistic lock");
    case Scheme::RedisQueue: return QStringLiteral("Redis queue, SQL row synchronously");
    case Scheme::LanternPath: return QStringLiteral("Lantern: Redis queue + async persistence, backup list");
    }
    return {};
}

QString schemeDescription(Scheme scheme)
{
    switch (scheme) {
    case Scheme::DistributedLock:
        return QStringLiteral("`SET lock token NX PX lease` per campaign (retried after a random 0.5-1.5 ms, up to the wait bound), "
                              "then in one transaction: read the campaign row, draw the amount, UPDATE its remaining count and "
                              "cents, INSERT the grab; release with a compare-and-delete script");
    case Scheme::OptimisticLock:
        return QStringLiteral("read the campaign row (remaining count, cents, version), draw the amount, then in one transaction "
                              "`UPDATE ... SET remaining=..., version=version+1 WHERE id=? AND version=?` and, if it changed the "
                              "row, INSERT the grab; a changed version is retried, up to the attempt bound");
    case Scheme::PessimisticLock:
        return QStringLiteral("one transaction: `SELECT ... FOR UPDATE` on the campaign row, draw the amount, UPDATE the row, "
                              "INSERT the grab");
    case Scheme::PreallocatedRows:
        return QStringLiteral("the envelopes written as rows at creation; a grab picks the first free row at or after a random "
                              "seq, then `UPDATE envelope SET uid=? WHERE campaign_id=? AND seq=? AND uid IS NULL`; a row "
                              "taken meanwhile is retried, up to the attempt bound");
    case Scheme::RedisQueue:
        return QStringLiteral("the pre-split envelopes in a Redis list; a grab LPOPs one and INSERTs the grab row at once "
                              "(autocommit); a duplicate user's envelope is pushed back");
    case Scheme::LanternPath:
        return QStringLiteral("GrabService (grab.lua: checks, LPOP, draw, payout task queued, all in one script), `lanternd work` "
                              "persisting and paying in batches through its backup list, `lanternd recover` for a dead worker");
    }
    return {};
}

void GrabTally::count(GrabAnswer answer, qint64 startNs, qint64 endNs)
{
    switch (answer) {
    case GrabAnswer::Ok: ++ok; break;
    case GrabAnswer::Already: ++already; break;
    case GrabAnswer::SoldOut: ++soldOut; break;
    case GrabAnswer::Busy: ++busy; break;
    }
    qint64 first = firstStartNs.load(std::memory_order_relaxed);
    while (startNs < first && !firstStartNs.compare_exchange_weak(first, startNs, std::memory_order_relaxed)) {
    }
    if (answer == GrabAnswer::Ok) {
        qint64 last = lastOkNs.load(std::memory_order_relaxed);
        while (endNs > last && !lastOkNs.compare_exchange_weak(last, endNs, std::memory_order_relaxed)) {
        }
    }
}

double GrabTally::secondsToSellOut() const
{
    const qint64 first = firstStartNs.load();
    const qint64 last = lastOkNs.load();
    return last > first ? static_cast<double>(last - first) / 1e9 : 0;
}

std::unique_ptr<SchemeClient> makeSchemeClient(Scheme scheme, RedisClient &redis, const DbUrl &db, const KeySchema &keys,
                                               qint64 campaignId, const SchemeOptions &options, GrabTally &tally)
{
    switch (scheme) {
    case Scheme::DistributedLock:
        return std::make_unique<DistributedLockClient>(redis, db, schemeLockKey(keys, campaignId), campaignId, options, tally);
    case Scheme::OptimisticLock: return std::make_unique<OptimisticLockClient>(db, campaignId, options, tally);
    case Scheme::PessimisticLock: return std::make_unique<PessimisticLockClient>(db, campaignId, tally);
    case Scheme::PreallocatedRows: return std::make_unique<PreallocatedRowsClient>(db, campaignId, options, tally);
    case Scheme::RedisQueue: return std::make_unique<RedisQueueClient>(redis, db, schemePoolKey(keys, campaignId), campaignId, tally);
    case Scheme::LanternPath: return std::make_unique<LanternPathClient>(redis, keys, campaignId);
    }
    return nullptr;
}

QByteArray schemeLockKey(const KeySchema &keys, qint64 campaignId)
{
    return keys.prefix() + "strategy:{s" + QByteArray::number(campaignId) + "}:lock";
}

QByteArray schemePoolKey(const KeySchema &keys, qint64 campaignId)
{
    return keys.prefix() + "strategy:{s" + QByteArray::number(campaignId) + "}:pool";
}

qint64 steadyNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace lantern::bench
