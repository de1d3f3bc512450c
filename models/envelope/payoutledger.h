#pragma once

#include "envelope/payouttask.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>

namespace lantern {

class SqlConnection;

/** What a payout call left to write in SQL: `status` paid, pending (retried later) or failed
    (given up), the provider's reference when paid, and the calls it took. */
struct PayoutRecord {
    PayoutTask task;
    QString status;
    QString providerRef;
    int calls = 0;
    /** The payout's first outcome, as far as the writer knows (no row when its grab was judged):
        inserted without reading a row first; a row there after all (another writer's) sends the
        batch down the path that reads first. */
    bool first = false;
};

/** A grab Redis handed out that the ledger refused, and what the ledger holds instead. */
struct GrabRefusal {
    PayoutTask task;
    qint64 holder = 0;  // the user holding task.seq in SQL, 0: nobody
    QByteArray held;    // "seq:amount" the task's user holds in SQL, empty: none
    bool notLaunched = false;  // the ledger holds no launch of this envelope (issue 25): forged in Redis
};

/** A grab the ledger holds, and where its payout stands. */
struct AcceptedGrab {
    PayoutTask task;
    bool paid = false;      // an earlier pass already recorded its payout as paid
    int attemptsSoFar = 0;  // calls recorded by earlier passes
    bool recorded = false;  // the ledger holds a payout row for it (an earlier pass's outcome)
};

/** New grab rows of one campaign in one PayoutLedger::write(). */
struct GrabTally {
    qint64 rows = 0;
    qint64 cents = 0;
};

/** What one PayoutLedger::write() did. */
struct LedgerWrite {
    QList<AcceptedGrab> accepted;
    QList<GrabRefusal> refusals;
    qint64 refusedRows = 0;   // new grab_refused rows
    QMap<qint64, GrabTally> persistedByCampaign;  // campaign -> its new grab rows (exact: replays not counted)

    /** New grab rows, every campaign together. */
    qint64 persisted() const
    {
        qint64 rows = 0;
        for (const GrabTally &campaign : persistedByCampaign)
            rows += campaign.rows;
        return rows;
    }
};

/** The drain's SQL side (DESIGN §3, issue 15): one transaction per batch that records the results
    of the payouts that finished since the last one and persists the next batch of grabs. A grab
    row comes before any money moves for it; its payout row is written once, with the first
    outcome of its calls (paid, pending: to be retried, failed: given up), and only for a grab
    whose (campaign, seq, uid) row the ledger holds; the others become grab_refused rows. Every
    statement is multi-row and keyed on business keys, so a replay writes nothing twice.

    A batch is written optimistically first: one statement inserts every grab of a launched
    envelope (ledgerrows.h). When every row goes in, nothing was there before: no read is
    needed. When one does not (a replay, a refusal), the transaction is rolled back and written
    again reading first: which envelopes are launched, which grabs the ledger already holds, where
    their payouts stand. Either way `persistedByCampaign` counts exactly the rows this write added,
    and the same transaction adds them, and the payouts' changes of status, to the ledger's running
    tally (LedgerTally, issue 26). */
class PayoutLedger final {
public:
    /** writer: the worker's shard in the ledger's running tally (LedgerTally::writerOf). */
    explicit PayoutLedger(SqlConnection &sql, int writer = 0) : m_sql(sql), m_writer(writer) {}

    /** Upserts `records` (a new row, or status and reference replaced and attempts added), then
        persists the grabs of `tasks` and judges the ones that are not new: one transaction
        (retried as a whole after a deadlock). */
    LedgerWrite write(const QList<PayoutRecord> &records, const QList<PayoutTask> &tasks);

    /** Rows per multi-row statement. */
    static constexpr qsizetype RowsPerStatement = 1000;

private:
    /** Writes `records` with `statement` (payoutUpsertStatement or payoutInsertStatement), in
        the primary key's order; the rows affected. */
    qint64 record(const QList<PayoutRecord> &records, const QString &statement, qint64 nowMs);
    /** Inserts `chunk` in one statement; false when a row did not go in (nothing is known then of
        which did: the caller rolls back). */
    bool persistNew(const QList<PayoutTask> &chunk, LedgerWrite &write);
    /** Reads first, then inserts only the new grabs: the path of a batch that is not all new. */
    void persistReadingFirst(const QList<PayoutTask> &chunk, qint64 nowMs, LedgerWrite &write);
    /** Splits launched tasks into new grabs, replays of grabs the ledger holds, and refusals,
        by the grab rows there are (a locking read in the transaction) and in the order given
        (of two tasks for one envelope or user in a chunk, the first wins). */
    void judge(const QList<PayoutTask> &tasks, QList<PayoutTask> &fresh, QList<PayoutTask> &replays, QList<GrabRefusal> &refused);
    /** Splits off the grabs of envelopes the ledger does not hold as launched: a campaign still a
        draft in SQL (set live in Redis by hand), or an envelope SQL has not, or has with another
        amount (pushed into a pool by hand). Those are refused ('not_launched'), never paid. */
    void splitUnlaunched(const QList<PayoutTask> &tasks, QList<PayoutTask> &launched, QList<GrabRefusal> &unlaunched);
    void recordRefusals(const QList<GrabRefusal> &refused, qint64 nowMs, LedgerWrite &write);
    /** Where the payouts of `tasks` stand, for replayed tasks (no payout row: nothing recorded yet). */
    QList<AcceptedGrab> states(const QList<PayoutTask> &tasks);
    /** Accepts `tasks` as new rows of this write. */
    static void acceptNew(const QList<PayoutTask> &tasks, LedgerWrite &write);

    SqlConnection &m_sql;
    int m_writer = 0;
};

} // namespace lantern
