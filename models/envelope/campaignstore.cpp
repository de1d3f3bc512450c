#include "envelope/campaignstore.h"

#include "envelope/ledgertally.h"
#include "sql/sqlconnection.h"

#include <algorithm>
#include <numeric>

namespace lantern {

namespace {
constexpr size_t EnvelopeRowsPerInsert = 500;
} // namespace

qint64 CampaignStore::insert(const Campaign &campaign)
{
    QSqlQuery query = m_connection.exec(
            QStringLiteral("INSERT INTO campaign (name, total_cents, count, min_cents, algorithm, seed, max_attempts, pools, status, created_at_ms) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
            {campaign.name, campaign.totalCents, campaign.count, campaign.minCents, splitAlgorithmName(campaign.algorithm),
             QString::number(campaign.seed), campaign.maxAttempts, campaign.pools, campaignStatusName(CampaignStatus::Draft), campaign.createdAtMs});
    return query.lastInsertId().toLongLong();
}

namespace {
const QString CampaignColumns = QStringLiteral(
        "id, name, total_cents, count, min_cents, algorithm, seed, max_attempts, status, refunded_cents, created_at_ms, pools, pool_names, "
        "created_by, needs_approval, approved_by, approved_at_ms");

Campaign campaignOf(const QSqlQuery &query)
{
    Campaign campaign;
    campaign.id = query.value(0).toLongLong();
    campaign.name = query.value(1).toString();
    campaign.totalCents = query.value(2).toLongLong();
    campaign.count = query.value(3).toLongLong();
    campaign.minCents = query.value(4).toLongLong();
    campaign.algorithm = splitAlgorithmFromName(query.value(5).toString()).value_or(SplitAlgorithm::DoubleMean);
    campaign.seed = query.value(6).toString().toULongLong();
    campaign.maxAttempts = query.value(7).toInt();
    campaign.status = campaignStatusFromName(query.value(8).toString()).value_or(CampaignStatus::Draft);
    campaign.refundedCents = query.value(9).toLongLong();
    campaign.createdAtMs = query.value(10).toLongLong();
    campaign.pools = query.value(11).toInt();
    campaign.poolNames = query.value(12).toString().toLatin1();
    campaign.createdBy = query.value(13).toString();
    campaign.needsApproval = query.value(14).toInt() != 0;
    campaign.approvedBy = query.value(15).toString();
    campaign.approvedAtMs = query.value(16).toLongLong();
    return campaign;
}
} // namespace

bool CampaignStore::approve(qint64 campaignId, qint64 atMs)
{
    // approved_by's value is the trigger's to set (the approving account); any non-empty text asks.
    return m_connection.exec(QStringLiteral("UPDATE campaign SET approved_by = ?, approved_at_ms = ? WHERE id = ? AND status = ? "
                                            "AND approved_by IS NULL"),
                             {QStringLiteral("?"), atMs, campaignId, campaignStatusName(CampaignStatus::Draft)})
                   .numRowsAffected()
            > 0;
}

std::optional<Campaign> CampaignStore::find(qint64 id)
{
    QSqlQuery query = m_connection.exec(QStringLiteral("SELECT ") + CampaignColumns + QStringLiteral(" FROM campaign WHERE id = ?"), {id});
    if (!query.next())
        return std::nullopt;
    return campaignOf(query);
}

namespace {
QList<Campaign> campaignsOf(QSqlQuery query)
{
    QList<Campaign> campaigns;
    while (query.next())
        campaigns << campaignOf(query);
    return campaigns;
}
} // namespace

QList<Campaign> CampaignStore::all()
{
    return campaignsOf(m_connection.exec(QStringLiteral("SELECT ") + CampaignColumns + QStringLiteral(" FROM campaign ORDER BY id")));
}

QList<Campaign> CampaignStore::recent(int limit)
{
    return campaignsOf(m_connection.exec(QStringLiteral("SELECT ") + CampaignColumns + QStringLiteral(" FROM campaign ORDER BY id DESC LIMIT ?"), {limit}));
}

void CampaignStore::insertEnvelopes(qint64 campaignId, const std::vector<qint64> &amounts, const std::function<void()> &between)
{
    m_connection.transaction([&] {
        qint64 inserted = 0;
        for (size_t start = 0; start < amounts.size(); start += EnvelopeRowsPerInsert) {
            const size_t end = std::min(amounts.size(), start + EnvelopeRowsPerInsert);
            QVariantList values;
            values.reserve(qsizetype(end - start) * 3);
            for (size_t i = start; i < end; ++i)
                values << campaignId << qint64(i + 1) << amounts[i];
            inserted += m_connection
                                .exec(m_connection.insertIgnoreInto() + QStringLiteral("envelope (campaign_id, seq, amount_cents) VALUES ")
                                              + SqlConnection::placeholderRows(qsizetype(end - start), 3),
                                      values)
                                .numRowsAffected();
            if (between)
                between();
        }
        recordSplit(campaignId, amounts, inserted);
    });
}

void CampaignStore::recordSplit(qint64 campaignId, const std::vector<qint64> &amounts, qint64 inserted)
{
    const QString columns = QStringLiteral("envelope_split (campaign_id, envelopes, envelope_cents, smallest_cents, first_seq, last_seq, watch_changes) ");
    const QString watch = QStringLiteral("(SELECT changes FROM ledger_watch WHERE name = 'envelope')");
    const QString replace = m_connection.dialect() == DbUrl::Dialect::MySql
            ? QStringLiteral(" ON DUPLICATE KEY UPDATE envelopes = VALUES(envelopes), envelope_cents = VALUES(envelope_cents), "
                             "smallest_cents = VALUES(smallest_cents), first_seq = VALUES(first_seq), last_seq = VALUES(last_seq), "
                             "watch_changes = VALUES(watch_changes)")
            : QStringLiteral(" ON CONFLICT (campaign_id) DO UPDATE SET envelopes = excluded.envelopes, envelope_cents = excluded.envelope_cents, "
                             "smallest_cents = excluded.smallest_cents, first_seq = excluded.first_seq, last_seq = excluded.last_seq, "
                             "watch_changes = excluded.watch_changes");
    if (!amounts.empty() && inserted == qint64(amounts.size())) {
        // Every row is this transaction's: they are `amounts`, seqs 1..N.
        const qint64 cents = std::accumulate(amounts.cbegin(), amounts.cend(), qint64(0));
        const qint64 smallest = *std::min_element(amounts.cbegin(), amounts.cend());
        m_connection.exec(QStringLiteral("INSERT INTO ") + columns + QStringLiteral("VALUES (?, ?, ?, ?, 1, ?, ") + watch + QLatin1Char(')') + replace,
                          {campaignId, qint64(amounts.size()), cents, smallest, qint64(amounts.size())});
        return;
    }
    // A launch resumed after a crash, or rows written by hand before it: what the rows make.
    m_connection.exec(QStringLiteral("INSERT INTO ") + columns
                              + QStringLiteral("SELECT campaign_id, COUNT(*), SUM(amount_cents), MIN(amount_cents), MIN(seq), MAX(seq), ") + watch
                              + QStringLiteral(" FROM envelope WHERE campaign_id = ? GROUP BY campaign_id") + replace,
                      {campaignId});
}

void CampaignStore::setPoolNames(qint64 campaignId, const QByteArray &names)
{
    m_connection.exec(QStringLiteral("UPDATE campaign SET pool_names = ? WHERE id = ? AND pool_names = ''"), {QString::fromLatin1(names), campaignId});
}

bool CampaignStore::setStatus(qint64 campaignId, CampaignStatus status)
{
    // Only a row that differs is written, so the count says whether this call changed it (equal
    // to MySQL's matched rows and its changed rows alike, whether CLIENT_FOUND_ROWS is set or not).
    const QString name = campaignStatusName(status);
    return m_connection.exec(QStringLiteral("UPDATE campaign SET status = ? WHERE id = ? AND status <> ?"), {name, campaignId, name})
                   .numRowsAffected()
            > 0;
}

bool CampaignStore::setRefund(qint64 campaignId, qint64 refundedCents)
{
    return m_connection.exec(QStringLiteral("UPDATE campaign SET refunded_cents = ? WHERE id = ? AND refunded_cents <> ?"),
                             {refundedCents, campaignId, refundedCents})
                   .numRowsAffected()
            > 0;
}

CampaignLedger CampaignStore::ledger(qint64 campaignId)
{
    CampaignLedger ledger;
    // From the ledger's running tally (issue 26: a pass over a million rows took seconds), kept by
    // the drain in the transactions that write the rows; `lanternd verify` compares it with them.
    // A grab's payout row comes with the first outcome of its calls (PayoutLedger), so a grab
    // neither paid nor failed is in flight or waits for a retry.
    const TallyFigures tally = LedgerTally::read(m_connection, campaignId).value(campaignId);
    ledger.persistedCount = tally.grabRows;
    ledger.persistedCents = tally.grabCents;
    ledger.paidCount = tally.paid;
    ledger.paidCents = tally.paidCents;
    ledger.pendingCount = tally.grabRows - tally.paid - tally.failed;
    ledger.pendingCents = tally.grabCents - tally.paidCents - tally.failedCents;
    ledger.payoutCalls = tally.payoutCalls;
    QSqlQuery refused = m_connection.exec(QStringLiteral("SELECT COUNT(*), COALESCE(SUM(amount_cents), 0) FROM grab_refused WHERE campaign_id = ?"),
                                          {campaignId});
    if (refused.next()) {
        ledger.refusedCount = refused.value(0).toLongLong();
        ledger.refusedCents = refused.value(1).toLongLong();
    }
    return ledger;
}

} // namespace lantern
