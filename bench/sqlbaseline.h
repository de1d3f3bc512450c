#pragma once

#include <QList>
#include <QString>
#include <QtGlobal>

class QSqlQuery;

namespace lantern {
class SqlConnection;
struct PayoutTask;
}

namespace lantern::bench {

/** Runs one statement as plain text (no prepare): the bench's own set-up and the raw baseline.
    Throws like SqlConnection::exec. */
QSqlQuery execText(SqlConnection &sql, const QString &statement);

/** Writes the tasks' grab rows (with `payouts`, also their pending payout rows) into the `grab`
    (and `payout`) tables as plain multi-row INSERT statements of `rowsPerStatement` rows, the
    values spelled out in the SQL text, each statement committed on its own (autocommit): the
    plain way to put the same rows into the same tables, with nothing else around it. */
void insertRawRows(SqlConnection &sql, const QList<PayoutTask> &tasks, int rowsPerStatement, bool payouts);

/** What the drain's launched check reads for the same rows (PayoutLedger::splitUnlaunched, issue
    25): per `rowsPerStatement` tasks, one SELECT of their envelopes joined to the campaign's
    status, LOCK IN SHARE MODE, on primary keys, the seqs spelled out; autocommit. Measured alone,
    its time against insertRawRows' is what the check adds to a batch. Returns the rows read. */
qint64 selectLaunchedRows(SqlConnection &sql, const QList<PayoutTask> &tasks, int rowsPerStatement);

/** Counters of a MySQL / MariaDB server (SHOW GLOBAL STATUS); subtract two readings to get what
    one phase made the server do. */
struct ServerCounters {
    qint64 statements = 0;  // Questions + Com_stmt_prepare: requests that wait for an answer
    qint64 prepares = 0;    // Com_stmt_prepare
    qint64 inserts = 0;     // Com_insert
    qint64 updates = 0;     // Com_update
    qint64 selects = 0;     // Com_select
    qint64 commits = 0;     // Handler_commit: transactions committed, explicit or autocommit
    double cpuSeconds = 0;  // the server process's CPU (user + system), when it runs on this host; else -1

    static ServerCounters read(SqlConnection &sql);
    ServerCounters operator-(const ServerCounters &before) const;
};

} // namespace lantern::bench
