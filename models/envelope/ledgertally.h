#pragma once

#include "envelope/payouttask.h"

#include <QHash>
#include <QList>
#include <QMap>
#include <QString>

#include <optional>
#include <utility>

namespace lantern {

class SqlConnection;
struct GrabTally;
struct PayoutRecord;

/** What a campaign's grab and payout rows sum to: read from the tally (LedgerTally::read) or
    counted over the rows (the full check), and compared. */
struct TallyFigures {
    qint64 grabRows = 0;
    qint64 grabCents = 0;
    qint64 paid = 0;
    qint64 paidCents = 0;
    qint64 failed = 0;
    qint64 failedCents = 0;
    qint64 payoutCalls = 0;  // the payouts' attempts summed

    bool operator==(const TallyFigures &other) const = default;
    TallyFigures &operator+=(const TallyFigures &other);
    TallyFigures operator-(const TallyFigures &other) const;
};

/** The ledger's running tally (migration 0010, issue 26): the drain adds what one batch's
    transaction writes (its new grab rows, its payouts' changes of status and their calls) to the
    row of its campaign and writer, one upsert per campaign, in that same transaction. Exact for
    everything Lantern writes, a replay adding nothing; a row changed by hand is not counted
    (the watch triggers and `lanternd verify` find it). */
class LedgerTally final {
public:
    /** Writers per campaign: a worker's rows go to the shard of its id, so workers rarely
        share a tally row (and wait on its lock), and a campaign has at most this many rows. */
    static constexpr int Writers = 64;
    /** The shard of a worker's id (FNV-1a: the same in every process). */
    static int writerOf(const QString &workerId);
    /** The shard of a worker's second connection (EnvelopeDrain records finished payouts on it
        while the first persists new grabs): the next one, so the two never wait on one row. */
    static int secondWriterOf(int writer) { return (writer + 1) % Writers; }

    LedgerTally(SqlConnection &sql, int writer) : m_sql(sql), m_writer(writer) {}

    /** Before the payouts' upsert, in its transaction: reads the status each record replaces
        (SQLite: after taking the write lock, so nothing changes it in between). */
    void notePayouts(const QList<PayoutRecord> &records);
    /** Payouts' first outcomes the transaction inserted as new rows (payoutInsertStatement,
        every row counted in): their figures come from the records, nothing is read. */
    void noteNewPayouts(const QList<PayoutRecord> &records);
    /** The grab rows the transaction inserted (PayoutLedger counts them exactly: a replay is
        not among them), per campaign. */
    void noteGrabs(const QMap<qint64, GrabTally> &inserted);
    /** Adds what was noted to the tally: one upsert per campaign. */
    void write();

    /** The tally of one campaign, or of every campaign (nullopt): its writers' rows summed. */
    static QHash<qint64, TallyFigures> read(SqlConnection &sql, std::optional<qint64> campaignId);
    enum class Count { GrabsAndPayouts, Payouts };
    /** The same figures counted over the grab and payout rows (a pass over each). */
    static QHash<qint64, TallyFigures> count(SqlConnection &sql, std::optional<qint64> campaignId, Count what = Count::GrabsAndPayouts);

private:
    /** Adds `record` over the row it replaces (`before`: status and amount; null: no row). */
    void notePayout(const PayoutRecord &record, const std::pair<QString, qint64> *before);

    SqlConnection &m_sql;
    int m_writer = 0;
    QMap<qint64, TallyFigures> m_added;  // campaign -> what this transaction adds
};

} // namespace lantern
