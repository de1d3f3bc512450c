#include "console/audit/auditquery.h"

#include "sql/sqlconnection.h"

#include <QDateTime>
#include <QStringList>

namespace lantern {

namespace {

/** The audit_log column of a sort key: a fixed spelling, never text from a caller. */
QString columnOf(AuditOrder::Key key)
{
    switch (key) {
    case AuditOrder::Key::Actor:
        return QStringLiteral("actor");
    case AuditOrder::Key::Action:
        return QStringLiteral("action");
    case AuditOrder::Key::Target:
        return QStringLiteral("target");
    case AuditOrder::Key::Time:
        break;
    }
    return QStringLiteral("at_ms");
}

} // namespace

AuditCursor AuditCursor::after(const AuditEntry &last, AuditOrder::Key key)
{
    switch (key) {
    case AuditOrder::Key::Actor:
        return {last.id, last.actor};
    case AuditOrder::Key::Action:
        return {last.id, last.action};
    case AuditOrder::Key::Target:
        return {last.id, last.target};
    case AuditOrder::Key::Time:
        break;
    }
    return {last.id, last.atMs};
}

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

AuditPage AuditQuery::page(const AuditFilter &filter, const AuditOrder &order, const AuditCursor &after, int limit)
{
    limit = std::clamp(limit, 1, MaxPageSize);
    const QString column = columnOf(order.key);
    const bool descending = order.direction == Qt::DescendingOrder;
    const QString past = descending ? QStringLiteral(" < ?") : QStringLiteral(" > ?");
    QStringList where;
    QVariantList values;
    if (!after.isFirst()) {
        // Past the cursor's row in (column, id) order; spelled out rather than a row comparison,
        // which MariaDB does not resolve through the index.
        where << QStringLiteral("(") + column + past + QStringLiteral(" OR (") + column + QStringLiteral(" = ? AND id") + past
                        + QStringLiteral("))");
        values << after.value << after.value << after.id;
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
    // With a "contains" filter, a deferred join: such a filter walks the log until it has found a
    // page (issue 26), so the page's ids come first from an index that holds the order and the
    // filtered columns (idx_audit_at_who in time order: index entries only), then their rows.
    const bool contains = !filter.actor.trimmed().isEmpty() || !filter.target.trimmed().isEmpty();
    const QString direction = descending ? QStringLiteral(" DESC") : QStringLiteral(" ASC");
    QString sql = contains ? QStringLiteral("SELECT a.id, a.at_ms, a.actor, a.action, a.target, a.detail FROM (SELECT id FROM audit_log")
                           : QStringLiteral("SELECT id, at_ms, actor, action, target, detail FROM audit_log");
    if (!where.isEmpty())
        sql += QStringLiteral(" WHERE ") + where.join(QStringLiteral(" AND "));
    sql += QStringLiteral(" ORDER BY ") + column + direction + QStringLiteral(", id") + direction + QStringLiteral(" LIMIT ?");
    if (contains)
        sql += QStringLiteral(") picked JOIN audit_log a ON a.id = picked.id ORDER BY a.") + column + direction + QStringLiteral(", a.id") + direction;
    values << limit + 1;  // one more tells whether another page follows

    AuditPage result;
    result.order = order;
    result.after = after;
    QSqlQuery query = m_connection.exec(sql, values);
    while (query.next()) {
        if (result.entries.size() == limit) {
            result.hasMore = true;
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
