#include "envelope/campaignverifier.h"

#include "core/errors.h"
#include "envelope/campaignpools.h"
#include "envelope/campaignstore.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

#include <QProcessEnvironment>

namespace lantern {

namespace {
qint64 integerOrZero(const RedisValue &value)
{
    return value.isNil() ? 0 : value.toInteger();
}
} // namespace

CampaignVerifier::CampaignVerifier(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, ProviderLookup providerAmount)
    : m_redis(redis), m_sql(sql), m_keys(keys), m_providerAmount(std::move(providerAmount))
{
}

std::unique_ptr<SimulatedPayoutGateway> CampaignVerifier::readSimulatedLedger()
{
    if (!QProcessEnvironment::systemEnvironment().value(QStringLiteral("LANTERN_PAYOUT_URL")).isEmpty())
        return nullptr;
    auto simulated = std::make_unique<SimulatedPayoutGateway>(m_redis, m_keys.prefix(), SimulationKnobs{}, 0);
    SimulatedPayoutGateway *gateway = simulated.get();
    m_providerAmount = [gateway](const QString &key) { return gateway->paidAmount(key); };
    m_providerBatch = [gateway](const QStringList &keys) { return gateway->paidAmounts(keys); };
    return simulated;
}

qint64 CampaignVerifier::refusedGrabs(std::optional<qint64> campaignId)
{
    QSqlQuery query = campaignId ? m_sql.exec(QStringLiteral("SELECT COUNT(*) FROM grab_refused WHERE campaign_id = ?"), {*campaignId})
                                 : m_sql.exec(QStringLiteral("SELECT COUNT(*) FROM grab_refused"));
    return query.next() ? query.value(0).toLongLong() : 0;
}

QList<Violation> CampaignVerifier::verifyAll()
{
    QList<qint64> ids;
    QSqlQuery query = m_sql.exec(QStringLiteral("SELECT id FROM campaign ORDER BY id"));
    while (query.next())
        ids << query.value(0).toLongLong();
    QList<Violation> violations;
    for (qint64 id : std::as_const(ids))
        violations << verify(id);
    // Grabs refused for a campaign SQL has no row of at all (invented in Redis).
    QSqlQuery invented = m_sql.exec(QStringLiteral("SELECT campaign_id, COUNT(*) FROM grab_refused WHERE reason = 'not_launched' "
                                                   "AND campaign_id NOT IN (SELECT id FROM campaign) GROUP BY campaign_id ORDER BY campaign_id"));
    while (invented.next())
        violations << Violation{invented.value(0).toLongLong(), 2,
                                tr("%1 grabs of a campaign the ledger has no row of (made up in Redis): refused, not paid").arg(invented.value(1).toLongLong())};
    return violations;
}

QList<Violation> CampaignVerifier::verify(qint64 campaignId)
{
    const auto campaign = CampaignStore(m_sql).find(campaignId);
    if (!campaign)
        throw InvalidInputError(tr("no campaign with id %1").arg(campaignId));
    QList<Violation> violations;
    const auto fail = [&](int invariant, const QString &detail) { violations << Violation{campaignId, invariant, detail}; };
    const auto scalar = [&](const QString &sql) {
        QSqlQuery query = m_sql.exec(sql, {campaignId});
        return query.next() ? query.value(0).toLongLong() : 0;
    };

    // Redis: what grabs did, and whether anything is still on its way to SQL, summed over the
    // campaign's pools (one, or its sub-pools).
    const CampaignPools pools = CampaignPools::read(m_redis, m_keys, campaignId);
    QList<QByteArrayList> commands;
    if (!m_workers)
        commands << QByteArrayList{"SMEMBERS", m_keys.workerSet()};
    for (const QByteArray &pool : pools.names())
        commands << QByteArrayList{"HMGET", m_keys.campaignMeta(pool), "status", "grabbed_count", "grabbed_cents", "count"}
                 << QByteArrayList{"HLEN", m_keys.campaignDraws(pool)} << QByteArrayList{"LLEN", m_keys.campaignTasks(pool)}
                 << QByteArrayList{"LLEN", m_keys.campaignDeadLetter(pool)} << QByteArrayList{"LLEN", m_keys.campaignPool(pool)}
                 << QByteArrayList{"HLEN", m_keys.campaignLent(pool)} << QByteArrayList{"SISMEMBER", m_keys.campaignSet(), pool};
    const std::vector<RedisValue> redis = m_redis.pipeline(commands);
    throwOnErrorReply(redis);
    const size_t first = m_workers ? 0 : 1;
    if (!m_workers) {
        m_workers.emplace();
        for (const RedisValue &worker : redis[0].elements)
            *m_workers << worker.toBytes();
    }
    const RedisValue &firstMeta = redis.at(first);
    const bool launched = !firstMeta.elements.at(0).isNil();
    const QString status = launched ? QString::fromLatin1(firstMeta.elements.at(0).toBytes()) : QStringLiteral("draft");
    qint64 grabbedCount = 0;
    qint64 grabbedCents = 0;
    qint64 holders = 0;
    qint64 inFlight = 0;
    qint64 deadLetters = 0;
    qint64 inPools = 0;
    qint64 lent = 0;
    QByteArrayList workedPools;  // in the launched set: workers may hold its tasks
    for (int index = 0; index < pools.count(); ++index) {
        const size_t at = first + size_t(index) * 7;
        grabbedCount += integerOrZero(redis[at].elements.at(1));
        grabbedCents += integerOrZero(redis[at].elements.at(2));
        holders += redis[at + 1].toInteger();
        inFlight += redis[at + 2].toInteger();
        deadLetters += redis[at + 3].toInteger();
        inPools += redis[at + 4].toInteger();
        lent += redis[at + 5].toInteger();
        if (redis[at + 6].toInteger() == 1)
            workedPools << pools.name(index);
    }
    // Every worker's backup list of every pool still launched, in one more round trip (a pool
    // retired by PoolRetirement, or never launched, is in no backup list).
    QList<QByteArrayList> backups;
    for (const QByteArray &pool : std::as_const(workedPools)) {
        for (const QByteArray &worker : std::as_const(*m_workers))
            backups << QByteArrayList{"LLEN", m_keys.campaignBackup(pool, QString::fromUtf8(worker))};
    }
    if (!backups.isEmpty()) {
        const std::vector<RedisValue> lengths = m_redis.pipeline(backups);
        throwOnErrorReply(lengths);
        for (const RedisValue &length : lengths)
            inFlight += length.toInteger();
    }

    // Each table's figures in one pass over the campaign's rows (issue 26: three passes over a
    // million envelopes were what every refresh of the campaign cost MariaDB).
    const auto figures = [&](const QString &sql, const QVariantList &values, int columns) {
        QSqlQuery query = m_sql.exec(sql, values);
        QList<qint64> row(columns, 0);
        if (query.next()) {
            for (int column = 0; column < columns; ++column)
                row[column] = query.value(column).toLongLong();
        }
        return row;
    };

    // 1. The split.
    if (launched) {
        const QList<qint64> split = figures(QStringLiteral("SELECT COUNT(*), COALESCE(SUM(amount_cents), 0), "
                                                           "COALESCE(SUM(CASE WHEN amount_cents < ? THEN 1 ELSE 0 END), 0) FROM envelope WHERE campaign_id = ?"),
                                            {campaign->minCents, campaignId}, 3);
        const qint64 envelopes = split[0];
        const qint64 sum = split[1];
        const qint64 belowMin = split[2];
        if (envelopes != campaign->count)
            fail(1, tr("%1 envelopes in SQL, the campaign has %2").arg(envelopes).arg(campaign->count));
        if (sum != campaign->totalCents)
            fail(1, tr("envelopes sum to %1 cents, the total is %2").arg(sum).arg(campaign->totalCents));
        if (belowMin > 0)
            fail(1, tr("%1 envelopes below the minimum of %2 cents").arg(belowMin).arg(campaign->minCents));
    }

    // 2. Never over-issued, one envelope per user, each grab the amount of its envelope.
    const QList<qint64> grabs = figures(QStringLiteral("SELECT COUNT(*), COUNT(DISTINCT uid), COALESCE(SUM(amount_cents), 0) FROM grab WHERE campaign_id = ?"),
                                        {campaignId}, 3);
    const qint64 grabRows = grabs[0];
    if (grabbedCount > campaign->count || grabRows > campaign->count)
        fail(2, tr("%1 grabbed (%2 in SQL) of %3 envelopes").arg(grabbedCount).arg(grabRows).arg(campaign->count));
    // An envelope lent between sub-pools has left its pool and may not be its user's yet.
    if (lent == 0 && holders != grabbedCount)
        fail(2, tr("%1 users hold an envelope but %2 were grabbed").arg(holders).arg(grabbedCount));
    if (launched && status != QLatin1String("closed") && inPools + grabbedCount != campaign->count)
        fail(2, tr("%1 envelopes left in the pools and %2 grabbed, of %3").arg(inPools).arg(grabbedCount).arg(campaign->count));
    if (grabs[1] != grabRows)
        fail(2, tr("a user holds more than one envelope in SQL"));
    const qint64 mismatched = scalar(QStringLiteral("SELECT COUNT(*) FROM grab g LEFT JOIN envelope e ON e.campaign_id = g.campaign_id "
                                                    "AND e.seq = g.seq WHERE g.campaign_id = ? AND (e.seq IS NULL OR e.amount_cents <> g.amount_cents)"));
    if (mismatched > 0)
        fail(2, tr("%1 grabs do not match their envelope").arg(mismatched));

    // 3. Once drained: one row and exactly one successful payout per grab.
    if (deadLetters > 0)
        violations << Violation{campaignId, 3, tr("%1 payout tasks are in the dead-letter list").arg(deadLetters), true};
    if (inFlight == 0 && lent == 0) {
        const QList<qint64> paidFigures =
                figures(QStringLiteral("SELECT COUNT(*), COALESCE(SUM(amount_cents), 0) FROM payout WHERE campaign_id = ? AND status = 'paid'"), {campaignId}, 2);
        const qint64 paid = paidFigures[0];
        const qint64 paidCents = paidFigures[1];
        const qint64 grabRowCents = grabs[2];
        // Each side's figures from that side: Redis's count and cents against SQL's, then the
        // payouts against the SQL grab rows they pay.
        if (grabRows != grabbedCount || grabRowCents != grabbedCents)
            fail(3, tr("%1 grabs (%2 cents) in Redis, %3 rows (%4 cents) in SQL").arg(grabbedCount).arg(grabbedCents).arg(grabRows).arg(grabRowCents));
        if (paid != grabRows || paidCents != grabRowCents)
            fail(3, tr("%1 payouts (%2 cents) for %3 grabs (%4 cents)").arg(paid).arg(paidCents).arg(grabRows).arg(grabRowCents));
        if (m_providerAmount || m_providerBatch) {
            QSqlQuery payouts = m_sql.exec(QStringLiteral("SELECT idempotency_key, amount_cents FROM payout WHERE campaign_id = ? AND status = 'paid'"),
                                           {campaignId});
            qint64 missing = 0;
            QStringList keys;
            QList<qint64> amounts;
            const auto check = [&] {
                const QList<std::optional<qint64>> paid = m_providerBatch(keys);
                for (qsizetype i = 0; i < keys.size(); ++i)
                    missing += i >= paid.size() || !paid[i] || *paid[i] != amounts[i];
                keys.clear();
                amounts.clear();
            };
            while (payouts.next()) {
                if (!m_providerBatch) {
                    const auto amount = m_providerAmount(payouts.value(0).toString());
                    if (!amount || *amount != payouts.value(1).toLongLong())
                        ++missing;
                    continue;
                }
                keys << payouts.value(0).toString();
                amounts << payouts.value(1).toLongLong();
                if (keys.size() == ProviderBatch)
                    check();
            }
            if (!keys.isEmpty())
                check();
            if (missing > 0)
                fail(3, tr("%1 payouts recorded as paid are not in the provider's ledger with their amount").arg(missing));
        }
    }

    // 4. After close the ledger balances.
    if (status == QLatin1String("closed") && grabbedCents + campaign->refundedCents != campaign->totalCents)
        fail(4, tr("grabbed %1 + refunded %2 cents differ from the total %3").arg(grabbedCents).arg(campaign->refundedCents).arg(campaign->totalCents));
    // The ledger decides money (issue 25): grabs of envelopes it holds no launch of, refused by
    // the drain, and a campaign Redis holds as live while SQL holds a draft: both made by hand.
    if (const qint64 forged = scalar(QStringLiteral("SELECT COUNT(*) FROM grab_refused WHERE campaign_id = ? AND reason = 'not_launched'"));
        forged > 0)
        fail(2, tr("%1 grabs of envelopes the ledger holds no launch of (set live or pushed into a pool in Redis by hand): refused, not paid")
                        .arg(forged));
    if (campaign->status == CampaignStatus::Draft && status != QLatin1String("draft"))
        fail(2, tr("Redis holds the campaign as %1 while the ledger holds a draft: it was not launched through SQL").arg(status));
    return violations;
}

} // namespace lantern
