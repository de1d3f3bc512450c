#pragma once

#include "envelope/campaignfigures.h"

#include <QCoreApplication>
#include <QByteArrayList>
#include <QList>
#include <QStringList>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace lantern {

struct Campaign;
class KeySchema;
class SimulatedPayoutGateway;
class RedisClient;
class SqlConnection;

/** One broken invariant of DESIGN §4, in plain words. */
struct Violation {
    qint64 campaignId = 0;
    int invariant = 0;  // 1..4 as numbered in DESIGN §4
    QString detail;
    bool deadLettered = false;  // payout tasks wait in the dead-letter list: retried from Queues, not by a recovery
};

/** Checks DESIGN §4's envelope invariants against Redis, SQL and (when given) the payout
    provider's own ledger: 1 the split sums and minimums, 2 no over-issue and one envelope per
    user, 3 after the queues drain one grab row and exactly one payout per grab, 4 after close
    grabbed + refunded = total. */
class CampaignVerifier final {
    Q_DECLARE_TR_FUNCTIONS(CampaignVerifier)

public:
    /** providerAmount: what the provider says it paid for an idempotency key (nullopt: nothing). */
    using ProviderLookup = std::function<std::optional<qint64>(const QString &idempotencyKey)>;

    /** What the provider says it paid for each of a batch of idempotency keys, in their order. */
    using ProviderBatchLookup = CampaignFigures::ProviderBatchLookup;
    /** Keys asked of a ProviderBatchLookup at once. */
    static constexpr int ProviderBatch = CampaignFigures::ProviderBatch;

    CampaignVerifier(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, ProviderLookup providerAmount = {});
    /** Asks the provider in batches instead of one key at a time (issue 26: one round trip per
        paid payout was 300,000 of them for a big campaign); takes precedence over providerAmount. */
    void setProviderBatch(ProviderBatchLookup lookup) { m_providerBatch = std::move(lookup); }
    /** As `lanternd verify`, the console and recovery check: unless LANTERN_PAYOUT_URL names an
        HTTP provider (whose ledger cannot be read back), the simulated provider's ledger is asked
        in batches. Keep the returned gateway (null for HTTP) as long as this verifier. */
    std::unique_ptr<SimulatedPayoutGateway> readSimulatedLedger();

    /** Keeps each campaign's split between calls of verify() (a view refreshing one campaign):
        see CampaignFigures::keepSplits. The memos outlive this verifier. */
    void keepSplits(SplitMemos *memos) { m_figures.keepSplits(memos); }
    /** A view's check (the console's campaign and Recovery): rules 2 and 3 judged from the
        ledger's running tally, not every row; see CampaignFigures::judgeFromTally. verify()
        without it reads every row and reports where the tally differs from them. */
    void judgeFromTally(TallyMemos *memos) { m_figures.judgeFromTally(memos); }

    QList<Violation> verify(qint64 campaignId);
    /** Every campaign in SQL, with the same findings as verify() of each, read in one pass per
        table (CampaignFigures). */
    QList<Violation> verifyAll();
    /** Grabs the ledger refused because Redis had lost state (issue 15): not a broken rule (no
        money moved for them), but the sign of a rollback an operator wants to know about. */
    qint64 refusedGrabs(std::optional<qint64> campaignId = std::nullopt);

private:
    /** DESIGN §4's rules applied to a campaign's figures, in the order verify() reports them. */
    QList<Violation> judge(const Campaign &campaign, const RedisFigures &redis, const LedgerFigures &ledger);
    /** The provider lookup in batches (a one-key lookup asked key by key); empty: none. */
    CampaignFigures::ProviderBatchLookup providerBatch() const;

    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
    ProviderLookup m_providerAmount;
    ProviderBatchLookup m_providerBatch;
    CampaignFigures m_figures;  // keeps the known workers, read once per verifier
};

} // namespace lantern
