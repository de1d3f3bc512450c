#pragma once

#include "console/audit/auditentry.h"

#include <QTimeZone>

namespace lantern {

class SqlConnection;

/** Reads audit_log a page at a time in the order asked for, with prepared statements only:
    `WHERE (col < v OR (col = v AND id < cursor)) [AND filters] ORDER BY col DESC, id DESC
    LIMIT n+1` (the comparisons reversed for an ascending order), so a page costs the same on
    page 1 and page 10,000 and the table is never loaded whole; each sortable column has an
    index (col, id) (migration 0005). The column comes from a fixed list, never from text.
    Dates are business days in `zone`. */
class AuditQuery final {
public:
    static constexpr int DefaultPageSize = 200;
    static constexpr int MaxPageSize = 1000;

    AuditQuery(SqlConnection &connection, QTimeZone zone) : m_connection(connection), m_zone(std::move(zone)) {}

    /** Rows matching `filter` in `order`, after `after` (a null cursor: from the first), at
        most `limit`. */
    AuditPage page(const AuditFilter &filter, const AuditOrder &order = {}, const AuditCursor &after = {},
                   int limit = DefaultPageSize);

    /** `text` as a LIKE pattern matched literally, with '!' as the escape character. */
    static QString likeLiteral(const QString &text);

private:
    SqlConnection &m_connection;
    QTimeZone m_zone;
};

} // namespace lantern
