#pragma once

#include "console/sandbox/sandboxcampaigns.h"
#include "checkin/checkinrules.h"

#include <QDate>
#include <QList>
#include <QMetaType>
#include <QTimeZone>

namespace lantern {

class KeySchema;
class RedisClient;

/** What the sandbox seeded. */
struct SeedSummary {
    QList<qint64> uids;  // the demo users, the most interesting first
    qint64 checkins = 0;
    qint64 makeups = 0;
    qint64 persisted = 0;  // checkin_log rows written by the first drain
    CampaignDemo campaigns;  // set by the sandbox worker after the check-in history
};

/** Demo data for the sandbox: a handful of users with about three months of check-in history
    ending on `today`, signed day by day through CheckinService as if each day were today, with
    make-ups granted a day after the missed day. Deterministic for a given `today`. */
class SandboxSeeder final {
public:
    SandboxSeeder(RedisClient &redis, const KeySchema &keys, const CheckinRules &rules, QTimeZone timeZone);

    /** Signs the history into Redis (the log queue fills; draining it is the caller's job). */
    SeedSummary seed(QDate today);

    static QList<qint64> demoUids();

private:
    RedisClient &m_redis;
    const KeySchema &m_keys;
    CheckinRules m_rules;
    QTimeZone m_timeZone;
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::SeedSummary)
