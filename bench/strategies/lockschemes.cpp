#include "lockschemes.h"

#include "core/errors.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

#include <QDateTime>

#include <chrono>
#include <thread>

namespace lantern::bench {

namespace {

const QString SelectCampaignRow =
        QStringLiteral("SELECT remaining_count, remaining_cents, min_cents, version FROM strategy_campaign WHERE id = ?");
const QString SetRemaining =
        QStringLiteral("UPDATE strategy_campaign SET remaining_count = ?, remaining_cents = ?, version = version + 1 WHERE id = ?");

// KEYS[1] the lock, ARGV[1] the holder's token. Deletes the lock only if this holder still has it.
const QByteArray ReleaseLockScript = QByteArrayLiteral(
        "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end");

/** Tries of a transaction that met a deadlock or lock wait timeout, then "busy". */
constexpr int LockConflictTries = 5;

} // namespace

ComputedSplitClient::ComputedSplitClient(const DbUrl &db, qint64 campaignId, GrabTally &tally)
    : m_sql(std::make_unique<SqlConnection>(db)),
      m_campaignId(campaignId),
      m_tally(tally),
      m_rng(std::random_device{}()),
      m_userHolds(*m_sql, QStringLiteral("SELECT 1 FROM strategy_grab WHERE campaign_id = ? AND uid = ?")),
      m_read(*m_sql, SelectCampaignRow),
      m_insert(*m_sql, QStringLiteral("INSERT INTO strategy_grab (campaign_id, uid, amount_cents, grabbed_at_ms) VALUES (?, ?, ?, ?)")),
      m_setRemaining(*m_sql, SetRemaining)
{
}

ComputedSplitClient::~ComputedSplitClient() = default;

ComputedSplitClient::CampaignRow ComputedSplitClient::readRow(PreparedStatement &statement)
{
    QSqlQuery &query = statement.run({m_campaignId});
    if (!query.next())
        throw LanternError(QStringLiteral("campaign %1 of strategy_campaign is missing").arg(m_campaignId));
    const CampaignRow row{query.value(0).toLongLong(), query.value(1).toLongLong(), query.value(2).toLongLong(), query.value(3).toLongLong()};
    query.finish();
    return row;
}

bool ComputedSplitClient::userHolds(qint64 uid)
{
    return m_userHolds.scalar({m_campaignId, uid}).isValid();
}

qint64 ComputedSplitClient::draw(const CampaignRow &row)
{
    if (row.remainingCount <= 1)
        return row.remainingCents;
    const qint64 ceiling = std::min(2 * row.remainingCents / row.remainingCount, row.remainingCents - (row.remainingCount - 1) * row.minCents);
    if (ceiling <= row.minCents)
        return row.minCents;
    return std::uniform_int_distribution<qint64>(row.minCents, ceiling)(m_rng);
}

bool ComputedSplitClient::insertGrab(qint64 uid, qint64 amountCents)
{
    if (m_insert.runUnlessDuplicate({m_campaignId, uid, amountCents, QDateTime::currentMSecsSinceEpoch()}))
        return true;
    ++m_tally.duplicates;
    return false;
}

std::optional<GrabAnswer> ComputedSplitClient::answerBeforeLocking(qint64 uid)
{
    if (userHolds(uid))
        return GrabAnswer::Already;
    if (readRow(m_read).remainingCount <= 0)
        return GrabAnswer::SoldOut;
    return std::nullopt;
}

GrabAnswer ComputedSplitClient::grantUnderLock(const CampaignRow &row, qint64 uid)
{
    if (row.remainingCount <= 0) {
        m_sql->commit();
        return GrabAnswer::SoldOut;
    }
    const qint64 amount = draw(row);
    m_setRemaining.run({row.remainingCount - 1, row.remainingCents - amount, m_campaignId});
    if (!insertGrab(uid, amount)) {
        m_sql->rollback();
        return GrabAnswer::Already;
    }
    m_sql->commit();
    return GrabAnswer::Ok;
}

// ---------------------------------------------------------------------------------------------

DistributedLockClient::DistributedLockClient(RedisClient &redis, const DbUrl &db, QByteArray lockKey, qint64 campaignId,
                                             const SchemeOptions &options, GrabTally &tally)
    : ComputedSplitClient(db, campaignId, tally),
      m_redis(redis),
      m_lockKey(std::move(lockKey)),
      m_options(options)
{
}

GrabAnswer DistributedLockClient::grab(qint64 uid)
{
    if (const std::optional<GrabAnswer> answer = answerBeforeLocking(uid))
        return *answer;
    const QByteArray token = QByteArray::number(static_cast<quint64>(m_rng()), 16);
    if (!acquire(token))
        return GrabAnswer::Busy;
    GrabAnswer answer = GrabAnswer::Busy;
    try {
        m_sql->begin();
        // The snapshot starts after the lock: the last holder's commit is in it.
        answer = grantUnderLock(readRow(m_read), uid);
    } catch (...) {
        m_sql->rollback();
        release(token);
        throw;
    }
    release(token);
    return answer;
}

bool DistributedLockClient::acquire(const QByteArray &token)
{
    // The usual SET NX client: on a lock held, try again after a short random delay (Redis's
    // distributed-lock page), until the wait bound.
    const qint64 deadline = steadyNs() + qint64{m_options.lockWaitMs} * 1'000'000;
    const QByteArray lease = QByteArray::number(m_options.lockLeaseMs);
    for (;;) {
        if (!m_redis.command({QByteArrayLiteral("SET"), m_lockKey, token, QByteArrayLiteral("NX"), QByteArrayLiteral("PX"), lease}).isNil())
            return true;
        ++m_tally.retries;
        if (steadyNs() >= deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::microseconds(500 + static_cast<qint64>(m_rng() % 1000)));
    }
}

void DistributedLockClient::release(const QByteArray &token)
{
    m_redis.command({QByteArrayLiteral("EVAL"), ReleaseLockScript, QByteArrayLiteral("1"), m_lockKey, token});
}

// ---------------------------------------------------------------------------------------------

OptimisticLockClient::OptimisticLockClient(const DbUrl &db, qint64 campaignId, const SchemeOptions &options, GrabTally &tally)
    : ComputedSplitClient(db, campaignId, tally),
      m_options(options),
      m_setIfVersion(*m_sql, QStringLiteral("UPDATE strategy_campaign SET remaining_count = ?, remaining_cents = ?, version = version + 1 "
                                            "WHERE id = ? AND version = ?"))
{
}

GrabAnswer OptimisticLockClient::grab(qint64 uid)
{
    if (userHolds(uid))
        return GrabAnswer::Already;
    for (int attempt = 1; attempt <= m_options.optimisticAttempts; ++attempt) {
        const CampaignRow row = readRow(m_read);  // autocommit: a fresh snapshot on every attempt
        if (row.remainingCount <= 0)
            return GrabAnswer::SoldOut;
        const qint64 amount = draw(row);
        m_sql->begin();
        try {
            m_setIfVersion.run({row.remainingCount - 1, row.remainingCents - amount, m_campaignId, row.version});
            if (m_setIfVersion.rowsAffected() == 1) {
                if (!insertGrab(uid, amount)) {
                    m_sql->rollback();
                    return GrabAnswer::Already;
                }
                m_sql->commit();
                return GrabAnswer::Ok;
            }
            m_sql->commit();  // the version moved on: nothing written
        } catch (const SqlError &error) {
            m_sql->rollback();
            if (!isLockConflict(error))
                throw;
        }
        ++m_tally.retries;
    }
    return GrabAnswer::Busy;
}

// ---------------------------------------------------------------------------------------------

PessimisticLockClient::PessimisticLockClient(const DbUrl &db, qint64 campaignId, GrabTally &tally)
    : ComputedSplitClient(db, campaignId, tally),
      m_readForUpdate(*m_sql, SelectCampaignRow + QStringLiteral(" FOR UPDATE"))
{
}

GrabAnswer PessimisticLockClient::grab(qint64 uid)
{
    if (const std::optional<GrabAnswer> answer = answerBeforeLocking(uid))
        return *answer;
    for (int attempt = 1; attempt <= LockConflictTries; ++attempt) {
        m_sql->begin();
        try {
            return grantUnderLock(readRow(m_readForUpdate), uid);
        } catch (const SqlError &error) {
            m_sql->rollback();
            if (!isLockConflict(error))
                throw;
        }
        ++m_tally.retries;
    }
    return GrabAnswer::Busy;
}

} // namespace lantern::bench
