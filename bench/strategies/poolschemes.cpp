#include "poolschemes.h"

#include "core/errors.h"
#include "envelope/grabservice.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

#include <QDateTime>

namespace lantern::bench {

PreallocatedRowsClient::PreallocatedRowsClient(const DbUrl &db, qint64 campaignId, const SchemeOptions &options, GrabTally &tally)
    : m_sql(std::make_unique<SqlConnection>(db)),
      m_campaignId(campaignId),
      m_options(options),
      m_tally(tally),
      m_rng(std::random_device{}()),
      m_userHolds(*m_sql, QStringLiteral("SELECT 1 FROM strategy_envelope WHERE campaign_id = ? AND uid = ?")),
      m_firstFree(*m_sql, QStringLiteral("SELECT seq FROM strategy_envelope WHERE campaign_id = ? AND uid IS NULL AND seq >= ? "
                                         "ORDER BY seq LIMIT 1")),
      m_take(*m_sql, QStringLiteral("UPDATE strategy_envelope SET uid = ?, grabbed_at_ms = ? WHERE campaign_id = ? AND seq = ? "
                                    "AND uid IS NULL"))
{
    m_count = PreparedStatement(*m_sql, QStringLiteral("SELECT count FROM strategy_campaign WHERE id = ?")).scalar({campaignId}).toLongLong();
    if (m_count < 1)
        throw LanternError(QStringLiteral("campaign %1 of strategy_campaign is missing").arg(campaignId));
}

PreallocatedRowsClient::~PreallocatedRowsClient() = default;

qint64 PreallocatedRowsClient::firstFreeFrom(qint64 from)
{
    return m_firstFree.scalar({m_campaignId, from}).toLongLong();
}

GrabAnswer PreallocatedRowsClient::grab(qint64 uid)
{
    if (m_userHolds.scalar({m_campaignId, uid}).isValid())
        return GrabAnswer::Already;
    for (int attempt = 1; attempt <= m_options.optimisticAttempts; ++attempt) {
        qint64 seq = firstFreeFrom(1 + static_cast<qint64>(m_rng() % static_cast<quint64>(m_count)));
        if (seq == 0)
            seq = firstFreeFrom(1);  // none after the random point: wrap around
        if (seq == 0)
            return GrabAnswer::SoldOut;
        try {
            if (!m_take.runUnlessDuplicate({uid, QDateTime::currentMSecsSinceEpoch(), m_campaignId, seq})) {
                ++m_tally.duplicates;  // the user took another row meanwhile: the unique key said no
                return GrabAnswer::Already;
            }
            if (m_take.rowsAffected() == 1)
                return GrabAnswer::Ok;
        } catch (const SqlError &error) {
            if (!isLockConflict(error))
                throw;
        }
        ++m_tally.retries;  // taken meanwhile
    }
    return GrabAnswer::Busy;
}

// ---------------------------------------------------------------------------------------------

RedisQueueClient::RedisQueueClient(RedisClient &redis, const DbUrl &db, QByteArray poolKey, qint64 campaignId, GrabTally &tally)
    : m_redis(redis),
      m_sql(std::make_unique<SqlConnection>(db)),
      m_poolKey(std::move(poolKey)),
      m_campaignId(campaignId),
      m_tally(tally),
      m_userHolds(*m_sql, QStringLiteral("SELECT 1 FROM strategy_grab WHERE campaign_id = ? AND uid = ?")),
      m_insert(*m_sql,
               QStringLiteral("INSERT INTO strategy_grab (campaign_id, uid, seq, amount_cents, grabbed_at_ms) VALUES (?, ?, ?, ?, ?)"))
{
}

RedisQueueClient::~RedisQueueClient() = default;

GrabAnswer RedisQueueClient::grab(qint64 uid)
{
    if (m_userHolds.scalar({m_campaignId, uid}).isValid())
        return GrabAnswer::Already;
    const QByteArray envelope = m_redis.command({QByteArrayLiteral("LPOP"), m_poolKey}).toBytes();
    if (envelope.isEmpty())
        return GrabAnswer::SoldOut;
    const qsizetype colon = envelope.indexOf(':');
    const qint64 seq = envelope.left(colon).toLongLong();
    const qint64 amount = envelope.mid(colon + 1).toLongLong();
    if (!m_insert.runUnlessDuplicate({m_campaignId, uid, seq, amount, QDateTime::currentMSecsSinceEpoch()})) {
        ++m_tally.duplicates;
        m_redis.command({QByteArrayLiteral("LPUSH"), m_poolKey, envelope});  // not this user's: back to the pool
        return GrabAnswer::Already;
    }
    return GrabAnswer::Ok;
}

// ---------------------------------------------------------------------------------------------

LanternPathClient::LanternPathClient(RedisClient &redis, const KeySchema &keys, qint64 campaignId)
    : m_service(std::make_unique<GrabService>(redis, keys)), m_campaignId(campaignId)
{
}

LanternPathClient::~LanternPathClient() = default;

GrabAnswer LanternPathClient::grab(qint64 uid)
{
    const GrabOutcome outcome = m_service->grab(m_campaignId, uid, QDateTime::currentMSecsSinceEpoch());
    if (outcome.status == QLatin1String("ok"))
        return GrabAnswer::Ok;
    if (outcome.status == QLatin1String("already"))
        return GrabAnswer::Already;
    if (outcome.status == QLatin1String("sold_out"))
        return GrabAnswer::SoldOut;
    if (outcome.status == QLatin1String("too_many_attempts"))
        return GrabAnswer::Busy;
    throw LanternError(QStringLiteral("grab.lua answered '%1' for campaign %2").arg(outcome.status).arg(m_campaignId));
}

} // namespace lantern::bench
