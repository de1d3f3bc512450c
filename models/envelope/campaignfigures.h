#pragma once

#include "envelope/ledgertally.h"

#include <QByteArrayList>
#include <QHash>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace lantern {

class KeySchema;
class RedisClient;
class SqlConnection;

/** What Redis says of one campaign, summed over its pools (CampaignVerifier's Redis side). */
struct RedisFigures {
    bool launched = false;
    QString status;
    qint64 grabbedCount = 0;
    qint64 grabbedCents = 0;
    qint64 holders = 0;
    qint64 inFlight = 0;  // payout tasks queued or held in a worker's backup list
    qint64 deadLetters = 0;
    qint64 inPools = 0;
    qint64 lent = 0;
    /** Whether the payout side can be judged: nothing is on its way to SQL. */
    bool drained() const { return inFlight == 0 && lent == 0; }
};

/** A campaign's split as last read, or as its launch recorded it (envelope_split), with what
    shows it unchanged since (CampaignFigures::keepSplits). */
struct SplitMemo {
    qint64 changes = 0;  // envelope rows ever updated or deleted (ledger_watch, kept by triggers), as it was then
    qint64 firstSeq = 0;
    qint64 lastSeq = 0;
    qint64 envelopes = 0;
    qint64 envelopeCents = 0;
    qint64 smallestEnvelope = 0;
    /** Its seqs run from the first to the last without a gap (then any envelope inserted
        later moves one of them). */
    bool withoutGap() const { return envelopes > 0 && lastSeq - firstSeq + 1 == envelopes; }
};
/** What the SQL ledger holds for one campaign (CampaignVerifier's SQL side). */
struct LedgerFigures {
    qint64 envelopes = 0;
    qint64 envelopeCents = 0;
    qint64 smallestEnvelope = 0;  // cents of the smallest envelope (0: none)
    qint64 grabRows = 0;
    qint64 grabUsers = 0;  // distinct users among the grab rows
    qint64 grabCents = 0;
    qint64 mismatched = 0;  // grab rows with no envelope or another amount than their envelope's
    qint64 paid = 0;
    qint64 paidCents = 0;
    qint64 notAtProvider = 0;  // paid payouts the provider's ledger lacks (or holds another amount for)
    qint64 forged = 0;         // grabs refused as 'not_launched'
    bool fromTally = false;    // the grab and payout figures come from the running tally (a view), not from the rows
    TallyFigures offTally;     // the rows minus the running tally: changes made outside Lantern (as last found)
    /** The split the launch recorded (envelope_split), when a view would trust it and it differs
        from the rows: changed outside Lantern (the full check only). */
    std::optional<SplitMemo> recordedSplitOff;
};

/** Splits kept between reads, by database and campaign. */
using SplitMemos = QHash<QString, SplitMemo>;

/** What a view last found of a campaign's rows against the running tally (CampaignFigures::judgeFromTally). */
struct TallyMemo {
    qint64 grabChanges = 0;    // grab rows ever updated or deleted (ledger_watch), when the rows were last counted
    qint64 payoutChanges = 0;  // payout rows ever deleted
    TallyFigures offTally;     // the rows minus the tally then
    qint64 sharedUsers = 0;    // grab rows then beyond one per user
    qint64 mismatched = 0;     // grab rows then without their envelope's amount
};
/** By database and campaign. */
using TallyMemos = QHash<QString, TallyMemo>;

/** Reads CampaignVerifier's figures for one campaign or for many at once: Redis in a few
    pipelines per chunk of campaigns, SQL in one statement per table grouped by campaign, so
    `lanternd verify` of every campaign costs one pass over each table instead of six statements
    per campaign (issue 26). */
class CampaignFigures final {
public:
    using ProviderBatchLookup = std::function<QList<std::optional<qint64>>(const QStringList &idempotencyKeys)>;
    /** Keys asked of a ProviderBatchLookup at once. */
    static constexpr int ProviderBatch = 500;
    /** Campaigns whose Redis figures are read in one set of pipelines. */
    static constexpr int RedisChunk = 200;

    CampaignFigures(RedisClient &redis, SqlConnection &sql, const KeySchema &keys);

    /** Redis's figures of each campaign, in the order of ids. inFlight counts the workers'
        backup lists only when nothing else is in flight (then it decides drained(), exactly);
        otherwise it is the queued tasks alone, a lower bound. */
    QList<RedisFigures> redis(const QList<qint64> &ids);
    /** The ledger's figures, of one campaign (or of every campaign: nullopt). The payout figures
        are read for the campaigns in `drained` only (empty: for none); the provider is asked of
        their paid payouts when given. */
    QHash<qint64, LedgerFigures> ledger(std::optional<qint64> campaignId, const QSet<qint64> &drained, const ProviderBatchLookup &provider);
    /** Keeps each campaign's split between reads of one campaign (a view refreshing it): read
        again only when an envelope row was updated or deleted since (ledger_watch, counted by
        triggers) or its first or last seq moved; its seqs without a gap, any inserted row moves
        one of them. Three index look-ups instead of a pass over a million envelopes (issue 26).
        A view's first read takes the split its launch recorded (envelope_split) on the same
        terms, so even a console's first open of a campaign makes no pass over its envelopes. */
    void keepSplits(SplitMemos *memos) { m_splits = memos; }
    /** A view's reads of one campaign: the grab and payout figures from the running tally
        (LedgerTally, a few rows) instead of a pass over the rows; the rows are counted again
        only after a grab or payout row was changed by hand (ledger_watch, kept by triggers), and
        what they then differ from the tally is kept in `memos` until the next such change. Rows
        inserted by hand, payouts updated by hand and the provider's ledger are left to the full
        check (`lanternd verify`). */
    void judgeFromTally(TallyMemos *memos) { m_tallies = memos; }
    /** Envelopes of a campaign below a minimum (read only when its smallest envelope is). */
    qint64 belowMinimum(qint64 campaignId, qint64 minCents);

private:
    /** The campaign's split from the memo when nothing can have changed it, else nullopt (and
        `probe` holds what the memo is to be kept with). */
    std::optional<SplitMemo> keptSplit(qint64 campaignId, SplitMemo &probe);
    void readSplits(std::optional<qint64> campaignId, QHash<qint64, LedgerFigures> &figures);
    /** The full check: finds the recorded splits a view would trust that differ from the rows
        (`rows`: what readSplits read, with their first and last seqs). */
    void compareRecordedSplits(std::optional<qint64> campaignId, const QHash<qint64, SplitMemo> &rows, QHash<qint64, LedgerFigures> &figures);
    QString memoKey(qint64 campaignId) const;
    void readGrabRows(std::optional<qint64> campaignId, QHash<qint64, LedgerFigures> &figures);
    /** The view's figures of one campaign, from the tally (judgeFromTally). */
    void readTallied(qint64 campaignId, LedgerFigures &figures);
    void readPayouts(std::optional<qint64> campaignId, const QSet<qint64> &drained, const ProviderBatchLookup &provider,
                     QHash<qint64, LedgerFigures> &figures);

    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
    std::optional<QByteArrayList> m_workers;  // the known workers, read once
    SplitMemos *m_splits = nullptr;
    TallyMemos *m_tallies = nullptr;
};

} // namespace lantern
