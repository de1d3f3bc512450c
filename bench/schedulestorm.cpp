#include "schedulestorm.h"

#include "serveprocess.h"
#include "wrkrun.h"

#include "core/errors.h"
#include "envelope/campaignschedule.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"

#include <QThread>

#include <exception>
#include <optional>
#include <thread>

namespace lantern::bench {

StormAtT runStormAtT(const StormAtTSetup &setup, RedisClient &redis, const std::function<void()> &duringStorm)
{
    ServeProcess serve(setup.http.lanternd, serveArguments(setup.http, setup.http.serveThreads, setup.db), setup.workDir,
                       setup.http.serverCpus);
    WrkOptions wrk;
    wrk.program = setup.http.wrk;
    wrk.script = setup.http.wrkScript;
    wrk.url = QStringLiteral("http://127.0.0.1:%1/v1/campaigns/%2/grab").arg(serve.port()).arg(setup.campaign);
    wrk.bearerFile = setup.bearerFile;
    wrk.threads = setup.http.wrkThreads;
    wrk.connections = setup.http.bench.clients;

    std::optional<WrkFigures> figures;
    std::exception_ptr failure;
    std::atomic<bool> finished = false;
    std::thread storm([&] {
        try {
            // From T on Redis's clock (the bench's own pace, as the prober's; not a synchronisation).
            RedisClient clock(setup.http.bench.redis);
            while (redisTimeMs(clock) < setup.launchAtMs)
                QThread::msleep(1);
            figures = runWrk(wrk, setup.lines);
        } catch (...) {
            failure = std::current_exception();
        }
        finished = true;
    });
    StormAtT result;
    try {
        duringStorm();
        const QByteArray meta = KeySchema(setup.http.bench.prefix).campaignMeta(setup.campaign);
        while (!finished) {
            const RedisValue grabbed = redis.command({"HGET", meta, "grabbed_count"});
            if (result.poolEmptyMs < 0 && !grabbed.isNil() && grabbed.toInteger() >= setup.envelopes)
                result.poolEmptyMs = redisTimeMs(redis) - setup.launchAtMs;
            QThread::msleep(2);
        }
    } catch (...) {
        storm.join();
        throw;
    }
    storm.join();
    if (failure)
        std::rethrow_exception(failure);
    serve.stop();
    result.ok = figures->outcomes.value(QStringLiteral("ok"));
    result.notLive = figures->outcomes.value(QStringLiteral("not_live"));
    result.soldOut = figures->outcomes.value(QStringLiteral("sold_out"));
    result.other = figures->answered - result.ok - result.notLive - result.soldOut;
    result.non2xx = figures->non2xx;
    result.perSecond = figures->perSecond;
    result.p99Ms = figures->p99Ms;
    return result;
}

} // namespace lantern::bench
