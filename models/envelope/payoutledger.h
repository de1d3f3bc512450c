#pragma once

#include "envelope/payouttask.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace lantern {

class LedgerTally;
class SqlConnection;

/** What a payout call left to write in SQL: `status` paid, pending (retried later) or failed
    (given up), the provider's reference when paid, and the calls it took. */
struct PayoutRecord {
    PayoutTask task;
    QString status;
    QString providerRef;
    int calls = 0;
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
};

/** What one PayoutLedger::write() did. */
struct LedgerWrite {
    QList<AcceptedGrab> accepted;
    QList<GrabRefusal> refusals;
    qint64 persisted = 0;     // new grab rows
    qint64 refusedRows = 0;   // new grab_refused rows
};

/** The drain's SQL side (DESIGN §3, issue 15): one transaction per batch that records the results
    of the payouts that finished since the last one and persists the next batch of grabs. A grab
    row comes before any money moves for it; its payout row is written once, with the first
    outcome of its calls (paid, pending: to be retried, failed: given up), and only for a grab
    whose (campaign, seq, uid) row the ledger holds; the others become grab_refused rows. Every
    statement is multi-row and keyed on business keys, so a replay writes nothing twice. */
class PayoutLedger final {
public:
    /** writer: the worker's shard in the ledger's tally (LedgerTally::writerOf). */
    explicit PayoutLedger(SqlConnection &sql, int writer = 0) : m_sql(sql), m_writer(writer) {}

    /** Upserts `records` (a new row, or status and reference replaced and attempts added), then
        inserts the grabs of `tasks` and judges the ones that did not go in, reading where their
        payouts stand: one transaction (retried as a whole after a deadlock). */
    LedgerWrite write(const QList<PayoutRecord> &records, const QList<PayoutTask> &tasks);

    /** Rows per multi-row statement (9000 values at most: within SQLite's 32766 and MySQL's 65535). */
    static constexpr qsizetype RowsPerStatement = 1000;

private:
    void record(const QList<PayoutRecord> &records, qint64 nowMs);
    void persist(const QList<PayoutTask> &chunk, qint64 nowMs, LedgerWrite &write, LedgerTally &tally);
    /** Splits tasks into those the ledger holds and refusals (a read in the transaction). */
    void judge(const QList<PayoutTask> &tasks, QList<PayoutTask> &accepted, QList<GrabRefusal> &refused);
    /** Splits off the grabs of envelopes the ledger does not hold as launched: a campaign still a
        draft in SQL (set live in Redis by hand), or an envelope SQL has not, or has with another
        amount (pushed into a pool by hand). Those are refused ('not_launched'), never paid. */
    void splitUnlaunched(const QList<PayoutTask> &tasks, QList<PayoutTask> &launched, QList<GrabRefusal> &unlaunched);
    void recordRefusals(const QList<GrabRefusal> &refused, qint64 nowMs, LedgerWrite &write);
    /** Where the payouts of `tasks` stand, for replayed tasks (no payout row: nothing recorded yet). */
    QList<AcceptedGrab> states(const QList<PayoutTask> &tasks);

    SqlConnection &m_sql;
    int m_writer = 0;
};

} // namespace lantern
