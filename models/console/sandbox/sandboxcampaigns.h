#pragma once

#include <QList>
#include <QString>

#include <random>

namespace lantern {

class KeySchema;
class RedisClient;
class SqlConnection;

/** What the sandbox's campaign demo set up. */
struct CampaignDemo {
    qint64 finishedId = 0;  // grabbed out, paid and closed: balances
    qint64 liveId = 0;      // live: a simulated crowd grabs while the worker pays
    qint64 draftId = 0;     // waiting for a launch
    QString crashedWorker;  // a dead worker whose backup list holds grabs never persisted
    qint64 crashedTasks = 0;
    qint64 deadLetters = 0;  // of the live campaign: three refused by the provider, one unreadable
};

/** Red-envelope demo data for the sandbox: campaigns in every state, a crowd that keeps grabbing
    from the live one (so the console shows it draining), a worker that "crashed" with payout
    tasks in its backup list, for the Recovery view to compensate, and dead letters with their
    notes (one unreadable) for the Queues view. Writes through the real
    services (CampaignService, GrabService) and the audit log, as an operator would. */
class SandboxCampaigns final {
public:
    SandboxCampaigns(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, QString workerId);

    CampaignDemo seed(qint64 nowMs);
    /** `crowd` more grabs (by default a few) from the campaign by users who have not grabbed
        yet; returns how many got an envelope, or SoldOut once the pool is empty. A campaign that
        is not live (a draft, paused, closed) gives 0. */
    int crowdPass(qint64 campaignId, qint64 nowMs, int crowd = 0);
    /** Every campaign grabs go to (the campaign set), whatever its state, by id. */
    QList<qint64> campaignIds();
    static constexpr int SoldOut = -1;

    static constexpr qint64 FirstCrowdUid = 200000;

private:
    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
    QString m_workerId;
    qint64 m_nextUid = FirstCrowdUid;
    std::mt19937_64 m_random{20260122};
};

} // namespace lantern
