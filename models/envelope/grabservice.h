#pragma once

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
};

/** One run of grab.lua as a Redis conversation (one round). */
class GrabRun final : public RedisConversation {
public:
    GrabRun(const KeySchema &keys, qint64 campaignId, qint64 uid, qint64 nowMs);

    QList<QByteArrayList> nextRound() override;
    void takeReplies(std::vector<RedisValue> replies) override;
    const GrabOutcome &outcome() const { return m_outcome; }

private:
    qint64 m_campaignId = 0;
    QByteArrayList m_command;  // empty once sent
    GrabOutcome m_outcome;
};

/** The grab hot path: one grab.lua run, Redis only (DESIGN §4). */
class GrabService final {
    Q_DECLARE_TR_FUNCTIONS(GrabService)

public:
    GrabService(RedisClient &redis, const KeySchema &keys) : m_redis(redis), m_keys(keys) {}

    GrabOutcome grab(qint64 campaignId, qint64 uid, qint64 nowMs);

private:
    RedisClient &m_redis;
    const KeySchema &m_keys;
};

} // namespace lantern
