#pragma once

#include "checkin/checkinentry.h"

#include <QList>
#include <QSet>

namespace lantern {

class SqlConnection;

/** One persisted check-in as the console lists it. */
struct CheckinLogRow {
    QDate day;
    QString kind;  // normal or makeup
    qint64 points = 0;
    QString operatorName;  // make-ups and back-dated check-ins
    QString reason;
};

/** One points ledger movement. */
struct LedgerRow {
    QString ref;     // the business key, e.g. checkin:<uid>:<day>
    qint64 delta = 0;
    QString source;
    QString createdAt;  // as SQL stored it (UTC)
};

/** The SQL side of check-in: checkin_log and the points ledger, written idempotently on
    business keys ((uid, day) and the ledger ref), so replaying entries changes nothing. */
class CheckinStore final {
public:
    explicit CheckinStore(SqlConnection &connection) : m_connection(connection) {}

    /** Writes the entries in one transaction with multi-row inserts; returns how many log rows
        were new. Entries already stored are skipped, ledger grants included. */
    int persist(const QList<CheckinEntry> &entries);

    qint64 pointsBalance(qint64 uid);
    QSet<qint64> uidsOn(QDate day);
    /** checkin_log rows of the day. */
    qint64 countOn(QDate day);
    /** The uids in [first, end) with a row for the day (a reconcile round of dense users). */
    QSet<qint64> uidsOnBetween(QDate day, qint64 first, qint64 end);
    /** Those of `uids` with a row for the day. */
    QSet<qint64> uidsOnAmong(QDate day, const QList<qint64> &uids);
    bool hasLog(qint64 uid, QDate day);
    /** The newest `limit` check-ins of a user, newest first. */
    QList<CheckinLogRow> recentCheckins(qint64 uid, int limit);
    /** The newest `limit` ledger movements of a user, newest first. */
    QList<LedgerRow> recentLedger(qint64 uid, int limit);

private:
    int insertChunk(const QList<CheckinEntry> &chunk);

    SqlConnection &m_connection;
};

} // namespace lantern
