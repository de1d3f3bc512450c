#pragma once

#include "console/audit/auditentry.h"

#include <QTimeZone>

namespace lantern {

class SqlConnection;

/** Reads audit_log a page at a time, newest first, with prepared statements only:
    `WHERE id < cursor [AND filters] ORDER BY id DESC LIMIT n+1`, so a page costs the same on
    page 1 and page 10,000 and the table is never loaded whole. Dates are business days in
    `zone`. */
class AuditQuery final {
public:
    static constexpr int DefaultPageSize = 200;
    static constexpr int MaxPageSize = 1000;

    AuditQuery(SqlConnection &connection, QTimeZone zone) : m_connection(connection), m_zone(std::move(zone)) {}

    /** Rows matching `filter` with id < `beforeId` (0: from the newest), at most `limit`. */
    AuditPage page(const AuditFilter &filter, qint64 beforeId = 0, int limit = DefaultPageSize);

    /** `text` as a LIKE pattern matched literally, with '!' as the escape character. */
    static QString likeLiteral(const QString &text);

private:
    SqlConnection &m_connection;
    QTimeZone m_zone;
};

} // namespace lantern
