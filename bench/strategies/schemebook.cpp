#include "schemebook.h"

#include "benchcampaign.h"

#include "core/errors.h"
#include "envelope/campaignservice.h"
#include "envelope/envelopesplitter.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

namespace lantern::bench {

namespace {

// The tables of schemes 1-5. The grab rows are keyed by (campaign, uid), as Lantern's are unique
// on it: a user's second grab that a scheme's own check misses fails on the key.
const QStringList SchemeTables{
        QStringLiteral("CREATE TABLE strategy_campaign (id BIGINT NOT NULL AUTO_INCREMENT, scheme INT NOT NULL, "
                       "total_cents BIGINT NOT NULL, count BIGINT NOT NULL, min_cents BIGINT NOT NULL, remaining_count BIGINT NOT NULL, "
                       "remaining_cents BIGINT NOT NULL, version BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (id)) ENGINE=InnoDB"),
        QStringLiteral("CREATE TABLE strategy_grab (campaign_id BIGINT NOT NULL, uid BIGINT NOT NULL, seq BIGINT NULL, "
                       "amount_cents BIGINT NOT NULL, grabbed_at_ms BIGINT NOT NULL, PRIMARY KEY (campaign_id, uid)) ENGINE=InnoDB"),
        QStringLiteral("CREATE TABLE strategy_envelope (campaign_id BIGINT NOT NULL, seq BIGINT NOT NULL, amount_cents BIGINT NOT NULL, "
                       "uid BIGINT NULL, grabbed_at_ms BIGINT NULL, PRIMARY KEY (campaign_id, seq), "
                       "UNIQUE KEY uq_strategy_envelope_user (campaign_id, uid)) ENGINE=InnoDB"),
};

const QString DropSchemeTables = QStringLiteral("DROP TABLE IF EXISTS strategy_campaign, strategy_grab, strategy_envelope");

constexpr qint64 CentsPerEnvelope = 100;
constexpr int RowsPerInsert = 500;

} // namespace

SchemeBook::SchemeBook(RedisClient &redis, SqlConnection &sql, const KeySchema &keys) : m_redis(redis), m_sql(sql), m_keys(keys)
{
    m_sql.exec(DropSchemeTables);
    for (const QString &table : SchemeTables)
        m_sql.exec(table);
}

SchemeBook::~SchemeBook()
{
    try {
        m_sql.exec(DropSchemeTables);
        for (const qint64 id : std::as_const(m_lanternCampaigns)) {
            for (const QString &table : {QStringLiteral("grab"), QStringLiteral("payout"), QStringLiteral("envelope")})
                m_sql.exec(QStringLiteral("DELETE FROM ") + table + QStringLiteral(" WHERE campaign_id = ?"), {id});
            m_sql.exec(QStringLiteral("DELETE FROM campaign WHERE id = ?"), {id});
        }
    } catch (const LanternError &) {
        // Best effort: the error that ended the run is the one to report.
    }
}

qint64 SchemeBook::create(Scheme scheme, qint64 count, quint64 seed)
{
    if (scheme == Scheme::LanternPath) {
        CampaignService campaigns(m_redis, m_sql, m_keys);
        const qint64 id = launchBenchCampaign(campaigns, QStringLiteral("lantern-bench-strategies"), count, seed).id;
        m_lanternCampaigns << id;
        return id;
    }
    const qint64 total = count * CentsPerEnvelope;
    const QSqlQuery insert = m_sql.exec(QStringLiteral("INSERT INTO strategy_campaign (scheme, total_cents, count, min_cents, remaining_count, "
                                                       "remaining_cents) VALUES (?, ?, ?, 1, ?, ?)"),
                                        {static_cast<int>(scheme), total, count, count, total});
    const qint64 id = insert.lastInsertId().toLongLong();
    if (scheme != Scheme::PreallocatedRows && scheme != Scheme::RedisQueue)
        return id;

    const std::vector<qint64> amounts = splitEnvelopes({total, count, 1, SplitAlgorithm::DoubleMean, seed});
    for (qint64 start = 0; start < count; start += RowsPerInsert) {
        const qint64 end = std::min(count, start + RowsPerInsert);
        if (scheme == Scheme::PreallocatedRows) {
            QVariantList values;
            for (qint64 i = start; i < end; ++i)
                values << id << i + 1 << amounts[static_cast<size_t>(i)];
            m_sql.exec(QStringLiteral("INSERT INTO strategy_envelope (campaign_id, seq, amount_cents) VALUES ")
                               + SqlConnection::placeholderRows(end - start, 3),
                       values);
        } else {
            QByteArrayList push{QByteArrayLiteral("RPUSH"), schemePoolKey(m_keys, id)};
            for (qint64 i = start; i < end; ++i)
                push << QByteArray::number(i + 1) + ':' + QByteArray::number(amounts[static_cast<size_t>(i)]);
            m_redis.command(push);
        }
    }
    return id;
}

qint64 SchemeBook::scalar(const QString &statement, const QVariantList &values)
{
    QSqlQuery query = m_sql.exec(statement, values);
    return query.next() ? query.value(0).toLongLong() : 0;
}

qint64 SchemeBook::granted(Scheme scheme, qint64 campaignId)
{
    switch (scheme) {
    case Scheme::LanternPath:
        return m_redis.command({QByteArrayLiteral("HGET"), m_keys.campaignMeta(campaignId), QByteArrayLiteral("grabbed_count")}).toInteger();
    case Scheme::PreallocatedRows:
        return scalar(QStringLiteral("SELECT COUNT(*) FROM strategy_envelope WHERE campaign_id = ? AND uid IS NOT NULL"), {campaignId});
    default: return scalar(QStringLiteral("SELECT COUNT(*) FROM strategy_grab WHERE campaign_id = ?"), {campaignId});
    }
}

std::pair<qint64, qint64> SchemeBook::poolContents(const QByteArray &key)
{
    const RedisValue pool = m_redis.command({QByteArrayLiteral("LRANGE"), key, QByteArrayLiteral("0"), QByteArrayLiteral("-1")});
    qint64 cents = 0;
    for (const RedisValue &entry : pool.elements) {
        const QByteArray text = entry.toBytes();
        cents += text.mid(text.indexOf(':') + 1).toLongLong();
    }
    return {static_cast<qint64>(pool.elements.size()), cents};
}

LedgerState SchemeBook::read(Scheme scheme, qint64 campaignId)
{
    LedgerState state;
    const QVariantList id{campaignId};
    // Where the grabs are: Lantern's grab table, the pre-allocated rows, or the schemes' grab table.
    QString grabs = QStringLiteral("strategy_grab WHERE campaign_id = ?");
    if (scheme == Scheme::LanternPath)
        grabs = QStringLiteral("grab WHERE campaign_id = ?");
    else if (scheme == Scheme::PreallocatedRows)
        grabs = QStringLiteral("strategy_envelope WHERE campaign_id = ? AND uid IS NOT NULL");

    QSqlQuery sums = m_sql.exec(QStringLiteral("SELECT COUNT(*), COALESCE(SUM(amount_cents), 0) FROM ") + grabs, id);
    if (sums.next()) {
        state.granted = sums.value(0).toLongLong();
        state.grantedCents = sums.value(1).toLongLong();
    }
    state.usersTwice = scalar(QStringLiteral("SELECT COUNT(*) FROM (SELECT uid FROM ") + grabs
                                      + QStringLiteral(" GROUP BY uid HAVING COUNT(*) > 1) AS twice"),
                              id);
    if (scheme != Scheme::DistributedLock && scheme != Scheme::OptimisticLock && scheme != Scheme::PessimisticLock)
        state.envelopesTwice = scalar(QStringLiteral("SELECT COUNT(*) FROM (SELECT seq FROM ") + grabs
                                              + QStringLiteral(" GROUP BY seq HAVING COUNT(*) > 1) AS twice"),
                                      id);

    if (scheme == Scheme::LanternPath) {
        QSqlQuery campaign = m_sql.exec(QStringLiteral("SELECT count, total_cents FROM campaign WHERE id = ?"), id);
        if (campaign.next()) {
            state.count = campaign.value(0).toLongLong();
            state.totalCents = campaign.value(1).toLongLong();
        }
        std::tie(state.available, state.availableCents) = poolContents(m_keys.campaignPool(campaignId));
        const qint64 draws = m_redis.command({QByteArrayLiteral("HLEN"), m_keys.campaignDraws(campaignId)}).toInteger();
        state.pending = std::max<qint64>(0, draws - state.granted);
        return state;
    }

    QSqlQuery campaign =
            m_sql.exec(QStringLiteral("SELECT count, total_cents, remaining_count, remaining_cents FROM strategy_campaign WHERE id = ?"), id);
    if (!campaign.next())
        throw LanternError(QStringLiteral("campaign %1 of strategy_campaign is missing").arg(campaignId));
    state.count = campaign.value(0).toLongLong();
    state.totalCents = campaign.value(1).toLongLong();
    if (scheme == Scheme::PreallocatedRows) {
        QSqlQuery free = m_sql.exec(
                QStringLiteral("SELECT COUNT(*), COALESCE(SUM(amount_cents), 0) FROM strategy_envelope WHERE campaign_id = ? AND uid IS NULL"), id);
        if (free.next()) {
            state.available = free.value(0).toLongLong();
            state.availableCents = free.value(1).toLongLong();
        }
    } else if (scheme == Scheme::RedisQueue) {
        std::tie(state.available, state.availableCents) = poolContents(schemePoolKey(m_keys, campaignId));
    } else {
        state.available = campaign.value(2).toLongLong();
        state.availableCents = campaign.value(3).toLongLong();
    }
    return state;
}

} // namespace lantern::bench
