#include "console/audit/auditquery.h"

#include "sql/sqlconnection.h"

#include <QDateTime>
#include <QStringList>

namespace lantern {

QString AuditQuery::likeLiteral(const QString &text)
{
    QString escaped;
    escaped.reserve(text.size() + 4);
    for (const QChar c : text) {
        if (c == QLatin1Char('!') || c == QLatin1Char('%') || c == QLatin1Char('_'))
            escaped += QLatin1Char('!');
        escaped += c;
    }
    return escaped;
}

AuditPage AuditQuery::page(const AuditFilter &filter, qint64 beforeId, int limit)
{
    limit = std::clamp(limit, 1, MaxPageSize);
    QStringList where;
    QVariantList values;
    if (beforeId > 0) {
        where << QStringLiteral("id < ?");
        values << beforeId;
    }
    // '!' escapes: the same spelling works in MySQL and SQLite (a backslash would not).
    if (!filter.actor.trimmed().isEmpty()) {
        where << QStringLiteral("actor LIKE ? ESCAPE '!'");
        values << QString(QLatin1Char('%') + likeLiteral(filter.actor.trimmed()) + QLatin1Char('%'));
    }
    if (!filter.action.trimmed().isEmpty()) {
        where << QStringLiteral("action LIKE ? ESCAPE '!'");
        values << QString(likeLiteral(filter.action.trimmed()) + QLatin1Char('%'));
    }
    if (!filter.target.trimmed().isEmpty()) {
        where << QStringLiteral("target LIKE ? ESCAPE '!'");
        values << QString(QLatin1Char('%') + likeLiteral(filter.target.trimmed()) + QLatin1Char('%'));
    }
    if (filter.from.isValid()) {
        where << QStringLiteral("at_ms >= ?");
        values << QDateTime(filter.from, QTime(0, 0), m_zone).toMSecsSinceEpoch();
    }
    if (filter.to.isValid()) {
        where << QStringLiteral("at_ms < ?");
        values << QDateTime(filter.to.addDays(1), QTime(0, 0), m_zone).toMSecsSinceEpoch();
    }
    QString sql = QStringLiteral("SELECT id, at_ms, actor, action, target, detail FROM audit_log");
    if (!where.isEmpty())
        sql += QStringLiteral(" WHERE ") + where.join(QStringLiteral(" AND "));
    sql += QStringLiteral(" ORDER BY id DESC LIMIT ?");
    values << limit + 1;  // one more tells whether an older page exists

    AuditPage result;
    result.beforeId = beforeId;
    QSqlQuery query = m_connection.exec(sql, values);
    while (query.next()) {
        if (result.entries.size() == limit) {
            result.hasOlder = true;
            break;
        }
        AuditEntry entry;
        entry.id = query.value(0).toLongLong();
        entry.atMs = query.value(1).toLongLong();
        entry.actor = query.value(2).toString();
        entry.action = query.value(3).toString();
        entry.target = query.value(4).toString();
        entry.detail = query.value(5).toString();
        result.entries << entry;
    }
    return result;
}

} // namespace lantern
