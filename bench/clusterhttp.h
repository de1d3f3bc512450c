#pragma once

#include "httpsettings.h"

#include <QList>
#include <QString>

#include <functional>
#include <vector>

class QTextStream;

namespace lantern {
class KeySchema;
class RedisClient;
}

namespace lantern::bench {

/** One Redis setup `lanternd serve` is pointed at: its URL for serve's --redis, the bench's own
    client to it (set-up and per-node CPU), and the campaign its grab storms use. */
struct HttpTarget {
    QString name;
    QString url;
    RedisClient *redis = nullptr;
    qint64 campaign = 0;
    qint64 campaignCents = 0;
    std::function<void()> relaunch;  // the campaign's Redis keys removed, the pool pushed again
};

/** What the HTTP storm against a live reshard saw (lanternd's /metrics before and after). */
struct HttpReshardFigures {
    double perSecond = 0;
    qint64 answered = 0;
    qint64 non2xx = 0;
    qint64 socketErrors = 0;
    qint64 ok = 0;
    qint64 commands = 0;  // lantern_redis_commands_total during the storm
    qint64 moved = 0;
    qint64 asked = 0;
    qint64 retried = 0;
    bool checksPassed = false;
};

/** The HTTP storms of `lanternd serve` (wrk, bench/wrk/bearers.lua, a bearer per request, fresh
    users each phase) against each target, grabs and check-ins, alternating rounds, each node's
    CPU per phase; then a grab storm against `targets[reshardOn]` while its campaign's slot moves
    to another master, with exact counts and sums read back. Prints its tables to `out`; returns
    the medians: grabs per target, then check-ins per target. */
class ClusterHttpBench final {
public:
    ClusterHttpBench(const HttpSettings &settings, const KeySchema &keys, QString db, QString workDir, qint64 requests, QTextStream &out);

    std::vector<double> run(QList<HttpTarget> &targets);
    /** Rounds of the reshard storm on `target` (a cluster): its figures, one per round. */
    QList<HttpReshardFigures> runReshard(HttpTarget &target, int slot);

private:
    QString bearerFile(const QString &name, qint64 firstUid);
    QStringList serveArguments(const QString &redisUrl) const;

    const HttpSettings &m_settings;
    const KeySchema &m_keys;
    QString m_db;
    QString m_workDir;
    qint64 m_requests;
    QTextStream &m_out;
    qint64 m_nextUid = 2'000'000'000'000;
};

} // namespace lantern::bench
