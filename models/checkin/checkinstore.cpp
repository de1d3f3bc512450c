#include "checkin/checkinstore.h"

#include "sql/sqlconnection.h"

#include <QStringList>

#include <algorithm>

namespace lantern {

namespace {
// 1000 rows of 7 values: within SQLite's 32766 and MySQL's 65535 placeholders.
constexpr qsizetype CheckinRowsPerInsert = 1000;
} // namespace

int CheckinStore::persist(const QList<CheckinEntry> &entries)
{
    if (entries.isEmpty())
        return 0;
    // In the primary key's order (uid, day): rows of one B-tree page written together, and
    // workers lock rows in one order.
    QList<CheckinEntry> sorted = entries;
    std::sort(sorted.begin(), sorted.end(), [](const CheckinEntry &a, const CheckinEntry &b) {
        return a.uid != b.uid ? a.uid < b.uid : a.date < b.date;
    });
    return m_connection.transaction([&] {
        int inserted = 0;
        for (qsizetype start = 0; start < sorted.size(); start += CheckinRowsPerInsert)
            inserted += insertChunk(sorted.mid(start, CheckinRowsPerInsert));
        return inserted;
    });
}

int CheckinStore::insertChunk(const QList<CheckinEntry> &chunk)
{
    const QString prefix = m_connection.insertIgnoreInto();
    QVariantList logValues;
    QVariantList ledgerValues;
    logValues.reserve(chunk.size() * 7);
    ledgerValues.reserve(chunk.size() * 4);
    qsizetype grants = 0;
    const QString checkinSource = QStringLiteral("checkin");
    for (const CheckinEntry &entry : chunk) {
        const bool makeup = entry.kind == QLatin1String("makeup");
        logValues << entry.uid << entry.date.toString(Qt::ISODate) << entry.kind << entry.points
                  << (makeup ? QVariant(entry.operatorName) : QVariant()) << (makeup ? QVariant(entry.reason) : QVariant())
                  << entry.atMs;
        if (entry.points > 0) {
            ledgerValues << entry.ledgerRef() << entry.uid << entry.points << checkinSource;
            ++grants;
        }
    }
    // Statements of a full batch repeat: prepared once and kept by the connection.
    const int inserted = m_connection.write(prefix + QStringLiteral("checkin_log (uid, day, kind, points, operator, reason, signed_at) VALUES ")
                                                    + SqlConnection::placeholderRows(chunk.size(), 7),
                                            logValues);
    if (grants > 0)
        m_connection.write(prefix + QStringLiteral("points_ledger (ref, uid, delta, source) VALUES ") + SqlConnection::placeholderRows(grants, 4),
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

qint64 CheckinStore::countOn(QDate day)
{
    QSqlQuery query = m_connection.exec(QStringLiteral("SELECT COUNT(*) FROM checkin_log WHERE day = ?"), {day.toString(Qt::ISODate)});
    return query.next() ? query.value(0).toLongLong() : 0;
}

QSet<qint64> CheckinStore::uidsOnBetween(QDate day, qint64 first, qint64 end)
{
    QSet<qint64> uids;
    QSqlQuery query = m_connection.exec(QStringLiteral("SELECT uid FROM checkin_log WHERE day = ? AND uid >= ? AND uid < ?"),
                                        {day.toString(Qt::ISODate), first, end});
    while (query.next())
        uids.insert(query.value(0).toLongLong());
    return uids;
}

QSet<qint64> CheckinStore::uidsOnAmong(QDate day, const QList<qint64> &uids)
{
    constexpr qsizetype PerQuery = 500;
    QSet<qint64> found;
    for (qsizetype start = 0; start < uids.size(); start += PerQuery) {
        const QList<qint64> part = uids.mid(start, PerQuery);
        QVariantList values{day.toString(Qt::ISODate)};
        QStringList marks;
        for (const qint64 uid : part) {
            values << uid;
            marks << QStringLiteral("?");
        }
        QSqlQuery query = m_connection.exec(
                QStringLiteral("SELECT uid FROM checkin_log WHERE day = ? AND uid IN (%1)").arg(marks.join(QLatin1Char(','))), values);
        while (query.next())
            found.insert(query.value(0).toLongLong());
    }
    return found;
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
