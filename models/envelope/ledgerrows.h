#pragma once

#include "sql/dburl.h"

#include <QList>
#include <QString>

namespace lantern {

struct PayoutRecord;
struct PayoutTask;

/* The drain's multi-row statements (PayoutLedger), each taking its rows as ONE bound value, a JSON
   array of arrays read by the server (MySQL / MariaDB JSON_TABLE, SQLite json_each). Qt binds a
   value at a cost of microseconds (a name made and looked up in a hash per value), so the 4,500
   values of a batch bound one by one cost more than the statements themselves; one value also
   keeps a single prepared text whatever the number of rows. */

/** INSERT IGNORE of grab rows for the envelopes the ledger holds as launched: the task's envelope
    with the task's amount, of a campaign that is not a draft. Others are left out (as are grabs
    whose keys are taken), so the rows affected say whether every task went in. MySQL reads the
    envelope and campaign rows LOCK IN SHARE MODE: a launch commits SQL after its Redis move, and
    a grab drained in between waits for that commit. Values: grabRows(tasks). */
QString grabInsertStatement(DbUrl::Dialect dialect);
/** [[campaign, seq, uid, amount, at], ...] */
QString grabRows(const QList<PayoutTask> &tasks);

/** Upsert of payout rows: a payout's first outcome inserts its row; a later one replaces status
    and provider reference (when it has one) and adds the attempts. Values: the time (ms), then
    payoutRows(records). */
QString payoutUpsertStatement(DbUrl::Dialect dialect);
/** Insert of payout rows for payouts that have none yet (their first outcome): a row whose key,
    envelope or user is there already is left as it is and not counted, so the rows affected say
    whether every record went in. Values: as payoutUpsertStatement(). */
QString payoutInsertStatement(DbUrl::Dialect dialect);
/** [[idempotency key, campaign, seq, uid, amount, status, provider ref or null, calls], ...], in
    the order given. */
QString payoutRows(const QList<const PayoutRecord *> &records);

} // namespace lantern
