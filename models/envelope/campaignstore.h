#pragma once

#include "envelope/campaign.h"

#include <optional>
#include <vector>

namespace lantern {

class SqlConnection;

/** Counts SQL holds for one campaign (what `campaign show` reports from the ledger side). */
struct CampaignLedger {
    qint64 persistedCount = 0;  // grab rows
    qint64 persistedCents = 0;
    qint64 paidCount = 0;       // payouts that succeeded
    qint64 paidCents = 0;
    qint64 refusedCount = 0;    // grabs the ledger refused after Redis lost state (grab_refused)
    qint64 refusedCents = 0;
};

/** The SQL side of campaigns: campaign rows, their envelopes, grabs and payouts. */
class CampaignStore final {
public:
    explicit CampaignStore(SqlConnection &connection) : m_connection(connection) {}

    /** Inserts a draft and returns its id. */
    qint64 insert(const Campaign &campaign);
    std::optional<Campaign> find(qint64 id);
    /** Writes envelopes 1..N idempotently on (campaign, seq), in one transaction. */
    void insertEnvelopes(qint64 campaignId, const std::vector<qint64> &amounts);
    void setStatus(qint64 campaignId, CampaignStatus status, std::optional<qint64> refundedCents = std::nullopt);
    CampaignLedger ledger(qint64 campaignId);

private:
    SqlConnection &m_connection;
};

} // namespace lantern
