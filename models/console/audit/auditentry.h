#pragma once

#include <QDate>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QVariant>
#include <QtGlobal>

namespace lantern {

/** What the Audit log view asks for. Empty fields do not filter. */
struct AuditFilter {
    QString actor;   // the actor's name contains this
    QString action;  // the action starts with this ("campaign" matches campaign.create, ...)
    QString target;  // the target contains this ("uid:10001", "campaign:3", ...)
    QDate from;      // first business day shown (in the configured time zone)
    QDate to;        // last business day shown, inclusive

    bool isEmpty() const { return actor.isEmpty() && action.isEmpty() && target.isEmpty() && !from.isValid() && !to.isValid(); }
    bool operator==(const AuditFilter &other) const = default;
};

/** One audit_log row: who did what to which target, when, and why (detail, a JSON object). */
struct AuditEntry {
    qint64 id = 0;
    qint64 atMs = 0;
    QString actor;
    QString action;
    QString target;
    QString detail;  // JSON text as stored
};

/** The order the Audit log view asks for: one column, then the id in the same direction, so
    rows with equal values keep one order from page to page. */
struct AuditOrder {
    enum class Key { Time, Actor, Action, Target };
    Key key = Key::Time;
    Qt::SortOrder direction = Qt::DescendingOrder;  // the default: newest first

    bool isNewestFirst() const { return key == Key::Time && direction == Qt::DescendingOrder; }
    bool operator==(const AuditOrder &other) const = default;
};

/** Where a page starts (keyset pagination): after the row holding `value` in the order's column
    and `id`. A null cursor (id 0) is the first page. */
struct AuditCursor {
    qint64 id = 0;
    QVariant value;  // at_ms (qint64) or the column's text

    bool isFirst() const { return id == 0; }
    /** The cursor of the page that follows `last` in `order`. */
    static AuditCursor after(const AuditEntry &last, AuditOrder::Key key);
};

/** One page of audit rows in the order asked for. The next page starts after the last entry of
    this one (AuditCursor::after), so a page costs the same at the start and far down the log and
    rows written meanwhile never shift later pages. */
struct AuditPage {
    QList<AuditEntry> entries;
    AuditOrder order;
    AuditCursor after;     // the cursor this page was read with
    bool hasMore = false;  // rows past the last entry match the filter too
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::AuditFilter)
Q_DECLARE_METATYPE(lantern::AuditOrder)
Q_DECLARE_METATYPE(lantern::AuditCursor)
Q_DECLARE_METATYPE(lantern::AuditPage)
