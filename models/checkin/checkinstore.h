#pragma once

#include "checkin/checkinentry.h"

#include <QList>
#include <QSet>

namespace lantern {

class SqlConnection;

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
    bool hasLog(qint64 uid, QDate day);

private:
    int insertChunk(const QList<CheckinEntry> &chunk);

    SqlConnection &m_connection;
};

} // namespace lantern
