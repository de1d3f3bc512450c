#include "checkin/checkinstore.h"

#include "sql/sqlconnection.h"

namespace lantern {

namespace {
constexpr qsizetype CheckinRowsPerInsert = 250;
} // namespace

int CheckinStore::persist(const QList<CheckinEntry> &entries)
{
    if (entries.isEmpty())
        return 0;
    return m_connection.transaction([&] {
        int inserted = 0;
        for (qsizetype start = 0; start < entries.size(); start += CheckinRowsPerInsert)
            inserted += insertChunk(entries.mid(start, CheckinRowsPerInsert));
        return inserted;
    });
}

int CheckinStore::insertChunk(const QList<CheckinEntry> &chunk)
{
    const QString prefix = m_connection.insertIgnoreInto();
    QVariantList logValues;
    QVariantList ledgerValues;
    qsizetype grants = 0;
    for (const CheckinEntry &entry : chunk) {
        const bool makeup = entry.kind == QLatin1String("makeup");
        logValues << entry.uid << entry.date.toString(Qt::ISODate) << entry.kind << entry.points
                  << (makeup ? QVariant(entry.operatorName) : QVariant()) << (makeup ? QVariant(entry.reason) : QVariant())
                  << entry.atMs;
        if (entry.points > 0) {
            ledgerValues << entry.ledgerRef() << entry.uid << entry.points << QStringLiteral("checkin");
            ++grants;
        }
    }
    QSqlQuery log = m_connection.exec(prefix + QStringLiteral("checkin_log (uid, day, kind, points, operator, reason, signed_at) VALUES ")
                                              + SqlConnection::placeholderRows(chunk.size(), 7),
                                      logValues);
    // Read now: SQLite reports the connection's last statement, not this query's.
    const int inserted = log.numRowsAffected();
    if (grants > 0)
        m_connection.exec(prefix + QStringLiteral("points_ledger (ref, uid, delta, source) VALUES ") + SqlConnection::placeholderRows(grants, 4),
                          ledgerValues);
    return inserted;
}

qint64 CheckinStore::pointsBalance(qint64 uid)
{
    QSqlQuery query = m_connection.exec(QStringLiteral("SELECT COALESCE(SUM(delta), 0) FROM points_ledger WHERE uid = ?"), {uid});
    return query.next() ? query.value(0).toLongLong() : 0;
}

QSet<qint64> CheckinStore::uidsOn(QDate day)
{
    QSet<qint64> uids;
    QSqlQuery query = m_connection.exec(QStringLiteral("SELECT uid FROM checkin_log WHERE day = ?"), {day.toString(Qt::ISODate)});
    while (query.next())
        uids.insert(query.value(0).toLongLong());
    return uids;
}

bool CheckinStore::hasLog(qint64 uid, QDate day)
{
    QSqlQuery query = m_connection.exec(QStringLiteral("SELECT 1 FROM checkin_log WHERE uid = ? AND day = ?"),
                                        {uid, day.toString(Qt::ISODate)});
    return query.next();
}

QList<CheckinLogRow> CheckinStore::recentCheckins(qint64 uid, int limit)
{
    QList<CheckinLogRow> rows;
    QSqlQuery query = m_connection.exec(QStringLiteral("SELECT day, kind, points, operator, reason FROM checkin_log WHERE uid = ? "
                                                       "ORDER BY day DESC LIMIT ?"),
                                        {uid, limit});
    while (query.next())
        rows.append({QDate::fromString(query.value(0).toString(), Qt::ISODate), query.value(1).toString(), query.value(2).toLongLong(),
                     query.value(3).toString(), query.value(4).toString()});
    return rows;
}

QList<LedgerRow> CheckinStore::recentLedger(qint64 uid, int limit)
{
    QList<LedgerRow> rows;
    QSqlQuery query = m_connection.exec(QStringLiteral("SELECT ref, delta, source, created_at FROM points_ledger WHERE uid = ? "
                                                       "ORDER BY created_at DESC, ref DESC LIMIT ?"),
                                        {uid, limit});
    while (query.next())
        rows.append({query.value(0).toString(), query.value(1).toLongLong(), query.value(2).toString(), query.value(3).toString()});
    return rows;
}

} // namespace lantern
