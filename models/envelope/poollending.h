#pragma once

#include "envelope/campaignpools.h"

#include <QByteArrayList>
#include <QCoreApplication>

#include <optional>

namespace lantern {

class KeySchema;
class RedisClient;

/** The three steps of a grab whose home pool is dry while another pool still holds envelopes
    (docs/cluster.md "Sub-pools"): lend (the donor pool hands out its next envelope and records it
    as lent), receive (the user's home pool gives it to the user, or answers that the user already
    holds another), settle (the donor removes the record and, if the user did not take it, puts
    the envelope back). Each step is one script in one slot; a process killed between them leaves
    a lent record that settleLent() finishes. */
namespace poollending {

QByteArrayList lendCommand(const KeySchema &keys, const QByteArray &donor, const QByteArray &home, qint64 uid, qint64 nowMs);
QByteArrayList receiveCommand(const KeySchema &keys, qint64 campaignId, const QByteArray &home, qint64 uid, const QByteArray &envelope, qint64 nowMs);
QByteArrayList settleCommand(const KeySchema &keys, const QByteArray &donor, const QByteArray &envelope, bool kept);

} // namespace poollending

/** A lent envelope as its donor pool records it. */
struct LentEnvelope {
    QByteArray donor;     // pool name
    QByteArray envelope;  // "seq:amount"
    QByteArray home;      // the user's pool
    qint64 uid = 0;
    qint64 atMs = 0;

    /** From a lent hash's field and value ("home|uid|ms"); nullopt for anything else. */
    static std::optional<LentEnvelope> parse(const QByteArray &donor, const QByteArray &envelope, const QByteArray &value);
};

/** What settleLent() did. */
struct LentSettlement {
    LentSettlement &operator+=(const LentSettlement &other);

    qint64 found = 0;     // lent records old enough
    qint64 kept = 0;      // given to their user (now, or by the step the crash interrupted)
    qint64 returned = 0;  // back to their pool (their user holds another envelope)
    qint64 refunded = 0;  // returned after close: part of the refund
    qint64 malformed = 0; // records that do not parse (left in place, reported)
};

/** Finishes lent envelopes whose grab was interrupted: runs receive then settle for every record
    at least `minAgeMs` old. Safe beside live grabs: both steps decide once. */
/** A grab finishes its lend within a request's time; a record older than this was interrupted. */
inline constexpr qint64 LentGraceMs = 10'000;

class PoolLending final {
    Q_DECLARE_TR_FUNCTIONS(lantern::PoolLending)

public:
    PoolLending(RedisClient &redis, const KeySchema &keys) : m_redis(redis), m_keys(keys) {}

    LentSettlement settleLent(const CampaignPools &pools, qint64 minAgeMs, qint64 nowMs);
    /** settleLent() for every launched campaign with sub-pools (the workers, `lanternd recover`). */
    LentSettlement settleEveryCampaign(qint64 minAgeMs, qint64 nowMs);
    /** Lent records of the campaign's pools now, however old. */
    qint64 lentCount(const CampaignPools &pools);

private:
    RedisClient &m_redis;
    const KeySchema &m_keys;
};

} // namespace lantern
