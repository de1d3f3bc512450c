#pragma once

#include "envelope/grabwait.h"
#include "envelope/campaignpools.h"
#include "redis/redisconversation.h"

#include <QCoreApplication>
#include <QString>

namespace lantern {

class KeySchema;
class RedisClient;

/** What `grab` reports (DESIGN §6). `seq`/`amountCents` are set for "ok" and "already". */
struct GrabOutcome {
    QString status;  // ok, already, sold_out, not_live, too_many_attempts (a repair in progress throws UnavailableError)
    qint64 seq = 0;
    qint64 amountCents = 0;
    int replicas = -1;  // with grab-wait on: the fewest replicas that acknowledged one of its writes in time
};

/** One grab as a Redis conversation. Usually one round: grab.lua on the user's home pool (the
    campaign's pools are remembered per process; the first grab of a campaign reads them first).
    When the home pool is dry and the campaign has sub-pools, three more: lend from another pool,
    receive on the home pool, settle on the lender (poollending.h); a pool after another is asked
    until one lends or all are dry (sold out). */
class GrabRun final : public RedisConversation {
public:
    /** With `wait` enabled, each round that writes ends with WAIT (sent to the node of the
        script before it: RedisCluster and RedisPipe route it so). */
    GrabRun(const KeySchema &keys, qint64 campaignId, qint64 uid, qint64 nowMs, GrabWait wait = {});

    QList<QByteArrayList> nextRound() override;
    void takeReplies(std::vector<RedisValue> replies) override;
    const GrabOutcome &outcome() const { return m_outcome; }

private:
    enum class Step { ReadPools, Grab, Lend, Receive, Settle, Done };

    void takePools(const RedisValue &reply);
    void takeGrab(const RedisValue &reply);
    void takeLend(const RedisValue &reply);
    void takeReceive(const RedisValue &reply);
    /** The pool asked to lend on try `tries` (0-based): every other pool once, starting at one
        the uid picks so the users of a dry pool spread over the others. */
    int donor(int tries) const;
    /** The step's script, followed by WAIT when grab-wait is on. */
    QList<QByteArrayList> writeRound(QByteArrayList script) const;

    const KeySchema &m_keys;
    qint64 m_campaignId = 0;
    qint64 m_uid = 0;
    qint64 m_nowMs = 0;
    GrabWait m_wait;
    std::optional<CampaignPools> m_pools;
    Step m_step = Step::ReadPools;
    bool m_readAgain = false;  // the pools were read after a 'stale': a second one means not live
    int m_home = 0;
    int m_lendTries = 0;
    QByteArray m_lent;         // the envelope lent, "seq:amount"
    bool m_kept = false;
    GrabOutcome m_outcome;
};

/** The grab hot path: one grab.lua run, Redis only (DESIGN §4). */
class GrabService final {
    Q_DECLARE_TR_FUNCTIONS(GrabService)

public:
    GrabService(RedisClient &redis, const KeySchema &keys, GrabWait wait = {}) : m_redis(redis), m_keys(keys), m_wait(wait) {}

    GrabOutcome grab(qint64 campaignId, qint64 uid, qint64 nowMs);

private:
    RedisClient &m_redis;
    const KeySchema &m_keys;
    GrabWait m_wait;
};

} // namespace lantern
