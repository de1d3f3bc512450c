#include "reshardstorm.h"

#include "clientload.h"

#include "core/errors.h"
#include "envelope/grabservice.h"
#include "redis/redisclient.h"
#include "redis/rediscluster.h"

#include <QDateTime>

#include <atomic>
#include <exception>
#include <memory>
#include <thread>

namespace lantern::bench {

namespace {

/** Shared by the client threads and the thread that moves the slot. */
struct StormCounters {
    std::atomic<qint64> answered{0};
    std::atomic<qint64> tookRedirect{0};
    std::atomic<qint64> moved{0};
    std::atomic<qint64> asked{0};
    std::atomic<qint64> retried{0};
    std::atomic<qint64> errors{0};
    std::atomic<qint64> ok{0};
    std::atomic<qint64> okCents{0};
    std::atomic<bool> startMove{false};
};

} // namespace

ReshardStormFigures runGrabsDuringReshard(const RedisUrl &cluster, int clients, const std::vector<qint64> &uids, const KeySchema &keys,
                                          qint64 campaignId, int slot)
{
    StormCounters counters;
    const auto third = static_cast<qint64>(uids.size() / 3);
    ReshardStormFigures figures;
    std::exception_ptr moveError;
    std::thread mover([&] {
        counters.startMove.wait(false);
        try {
            figures.move = LiveReshard(cluster).moveToNextMaster(slot);
        } catch (...) {
            moveError = std::current_exception();
        }
        figures.answeredWhenMoved = counters.answered.load();
    });

    const ClientFactory factory = [&](RedisClient &redis) -> ClientRequest {
        auto service = std::make_shared<GrabService>(redis, keys);
        return [&, service, client = &redis](qint64 uid) {
            const RedisRoutingStats before = client->routingStats();
            try {
                const GrabOutcome outcome = service->grab(campaignId, uid, QDateTime::currentMSecsSinceEpoch());
                if (outcome.status == QLatin1String("ok")) {
                    counters.ok.fetch_add(1, std::memory_order_relaxed);
                    counters.okCents.fetch_add(outcome.amountCents, std::memory_order_relaxed);
                }
            } catch (const LanternError &) {
                counters.errors.fetch_add(1, std::memory_order_relaxed);
            }
            const RedisRoutingStats after = client->routingStats();
            const quint64 moved = after.moved - before.moved, asked = after.asked - before.asked, retried = after.retried - before.retried;
            if (moved + asked + retried > 0) {
                counters.tookRedirect.fetch_add(1, std::memory_order_relaxed);
                counters.moved.fetch_add(qint64(moved), std::memory_order_relaxed);
                counters.asked.fetch_add(qint64(asked), std::memory_order_relaxed);
                counters.retried.fetch_add(qint64(retried), std::memory_order_relaxed);
            }
            if (counters.answered.fetch_add(1, std::memory_order_relaxed) + 1 == third) {
                counters.startMove.store(true);
                counters.startMove.notify_all();
            }
        };
    };
    try {
        figures.load = runClientLoad(cluster, clients, uids, factory);
    } catch (...) {
        counters.startMove.store(true);  // the mover must not wait for a storm that ended
        counters.startMove.notify_all();
        mover.join();
        throw;
    }
    counters.startMove.store(true);
    counters.startMove.notify_all();
    mover.join();
    if (moveError)
        std::rethrow_exception(moveError);
    figures.grabs = counters.answered.load();
    figures.tookRedirect = counters.tookRedirect.load();
    figures.moved = counters.moved.load();
    figures.asked = counters.asked.load();
    figures.retried = counters.retried.load();
    figures.errors = counters.errors.load();
    figures.ok = counters.ok.load();
    figures.okCents = counters.okCents.load();
    return figures;
}

} // namespace lantern::bench
