#include "envelope/campaignverifier.h"

#include "core/errors.h"
#include "envelope/campaignstore.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

#include <QProcessEnvironment>
#include <QSet>

namespace lantern {

CampaignVerifier::CampaignVerifier(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, ProviderLookup providerAmount)
    : m_redis(redis), m_sql(sql), m_keys(keys), m_providerAmount(std::move(providerAmount)), m_figures(redis, sql, keys)
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
    // Every campaign's figures at once: a few Redis pipelines per chunk of campaigns, and one
    // statement per table grouped by campaign (issue 26: six statements per campaign were a
    // minute for 10,000 campaigns).
    const QList<Campaign> campaigns = CampaignStore(m_sql).all();
    QList<qint64> ids;
    for (const Campaign &campaign : campaigns)
        ids << campaign.id;
    const QList<RedisFigures> redis = m_figures.redis(ids);
    QSet<qint64> drained;
    for (qsizetype i = 0; i < campaigns.size(); ++i) {
        if (redis[i].drained())
            drained.insert(ids[i]);
    }
    const QHash<qint64, LedgerFigures> ledger = m_figures.ledger(std::nullopt, drained, providerBatch());
    QList<Violation> violations;
    for (qsizetype i = 0; i < campaigns.size(); ++i)
        violations << judge(campaigns[i], redis[i], ledger.value(ids[i]));
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
    const RedisFigures redis = m_figures.redis({campaignId}).constFirst();
    const QSet<qint64> drained = redis.drained() ? QSet<qint64>{campaignId} : QSet<qint64>{};
    return judge(*campaign, redis, m_figures.ledger(campaignId, drained, providerBatch()).value(campaignId));
}

CampaignFigures::ProviderBatchLookup CampaignVerifier::providerBatch() const
{
    if (m_providerBatch || !m_providerAmount)
        return m_providerBatch;
    return [lookup = m_providerAmount](const QStringList &keys) {
        QList<std::optional<qint64>> amounts;
        for (const QString &key : keys)
            amounts << lookup(key);
        return amounts;
    };
}

QList<Violation> CampaignVerifier::judge(const Campaign &campaign, const RedisFigures &redis, const LedgerFigures &ledger)
{
    const qint64 campaignId = campaign.id;
    QList<Violation> violations;
    const auto fail = [&](int invariant, const QString &detail) { violations << Violation{campaignId, invariant, detail}; };

    // 1. The split.
    if (redis.launched) {
        if (ledger.envelopes != campaign.count)
            fail(1, tr("%1 envelopes in SQL, the campaign has %2").arg(ledger.envelopes).arg(campaign.count));
        if (ledger.envelopeCents != campaign.totalCents)
            fail(1, tr("envelopes sum to %1 cents, the total is %2").arg(ledger.envelopeCents).arg(campaign.totalCents));
        // Counted only when the smallest envelope is below it (one more statement, for a broken split).
        if (ledger.envelopes > 0 && ledger.smallestEnvelope < campaign.minCents)
            fail(1, tr("%1 envelopes below the minimum of %2 cents").arg(m_figures.belowMinimum(campaignId, campaign.minCents)).arg(campaign.minCents));
    }
    // The split the launch recorded, which the views judge rule 1 from (issue 26).
    if (const std::optional<SplitMemo> &recorded = ledger.recordedSplitOff)
        fail(1, tr("the launch recorded %1 envelopes of %2 cents (the smallest %3) where the rows hold %4 of %5 cents (the smallest %6): "
                   "the recorded split was changed outside Lantern")
                        .arg(recorded->envelopes)
                        .arg(recorded->envelopeCents)
                        .arg(recorded->smallestEnvelope)
                        .arg(ledger.envelopes)
                        .arg(ledger.envelopeCents)
                        .arg(ledger.smallestEnvelope));

    // 2. Never over-issued, one envelope per user, each grab the amount of its envelope.
    const qint64 grabRows = ledger.grabRows;
    if (redis.grabbedCount > campaign.count || grabRows > campaign.count)
        fail(2, tr("%1 grabbed (%2 in SQL) of %3 envelopes").arg(redis.grabbedCount).arg(grabRows).arg(campaign.count));
    // An envelope lent between sub-pools has left its pool and may not be its user's yet.
    if (redis.lent == 0 && redis.holders != redis.grabbedCount)
        fail(2, tr("%1 users hold an envelope but %2 were grabbed").arg(redis.holders).arg(redis.grabbedCount));
    if (redis.launched && redis.status != QLatin1String("closed") && redis.inPools + redis.grabbedCount != campaign.count)
        fail(2, tr("%1 envelopes left in the pools and %2 grabbed, of %3").arg(redis.inPools).arg(redis.grabbedCount).arg(campaign.count));
    if (ledger.grabUsers != grabRows)
        fail(2, tr("a user holds more than one envelope in SQL"));
    if (ledger.mismatched > 0)
        fail(2, tr("%1 grabs do not match their envelope").arg(ledger.mismatched));

    // 3. Once drained: one row and exactly one successful payout per grab.
    if (redis.deadLetters > 0)
        violations << Violation{campaignId, 3, tr("%1 payout tasks are in the dead-letter list").arg(redis.deadLetters), true};
    if (redis.drained()) {
        // Each side's figures from that side: Redis's count and cents against SQL's, then the
        // payouts against the SQL grab rows they pay.
        if (grabRows != redis.grabbedCount || ledger.grabCents != redis.grabbedCents)
            fail(3, tr("%1 grabs (%2 cents) in Redis, %3 rows (%4 cents) in SQL").arg(redis.grabbedCount).arg(redis.grabbedCents).arg(grabRows).arg(ledger.grabCents));
        if (ledger.paid != grabRows || ledger.paidCents != ledger.grabCents)
            fail(3, tr("%1 payouts (%2 cents) for %3 grabs (%4 cents)").arg(ledger.paid).arg(ledger.paidCents).arg(grabRows).arg(ledger.grabCents));
        if (ledger.notAtProvider > 0)
            fail(3, tr("%1 payouts recorded as paid are not in the provider's ledger with their amount").arg(ledger.notAtProvider));
    }

    // The ledger's running tally against its rows (issue 26): the drain writes both in one
    // transaction, so they differ only after a change made outside Lantern.
    const TallyFigures &off = ledger.offTally;
    if (off.grabRows != 0 || off.grabCents != 0)
        fail(2, tr("%1 grab rows (%2 cents) in SQL, the workers wrote %3 (%4 cents): grab rows were changed outside Lantern")
                        .arg(grabRows)
                        .arg(ledger.grabCents)
                        .arg(grabRows - off.grabRows)
                        .arg(ledger.grabCents - off.grabCents));
    if (off.paid != 0 || off.paidCents != 0)
        fail(3, tr("%1 paid payouts (%2 cents) in SQL, the workers recorded %3 (%4 cents): payout rows were changed outside Lantern")
                        .arg(ledger.paid)
                        .arg(ledger.paidCents)
                        .arg(ledger.paid - off.paid)
                        .arg(ledger.paidCents - off.paidCents));

    // 4. After close the ledger balances.
    if (redis.status == QLatin1String("closed") && redis.grabbedCents + campaign.refundedCents != campaign.totalCents)
        fail(4, tr("grabbed %1 + refunded %2 cents differ from the total %3").arg(redis.grabbedCents).arg(campaign.refundedCents).arg(campaign.totalCents));
    // The ledger decides money (issue 25): grabs of envelopes it holds no launch of, refused by
    // the drain, and a campaign Redis holds as live while SQL holds a draft: both made by hand.
    if (ledger.forged > 0)
        fail(2, tr("%1 grabs of envelopes the ledger holds no launch of (set live or pushed into a pool in Redis by hand): refused, not paid")
                        .arg(ledger.forged));
    if (campaign.status == CampaignStatus::Draft && redis.status != QLatin1String("draft"))
        fail(2, tr("Redis holds the campaign as %1 while the ledger holds a draft: it was not launched through SQL").arg(redis.status));
    return violations;
}

} // namespace lantern
