#pragma once

#include <QDate>
#include <QList>
#include <QMetaType>
#include <QString>

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

/** One page of audit rows, newest first. Pages are cut by id (keyset pagination): the next
    older page starts below the last id of this one. */
struct AuditPage {
    QList<AuditEntry> entries;
    qint64 beforeId = 0;   // the cursor this page was read with; 0: the newest page
    bool hasOlder = false; // rows older than the last entry match the filter too
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::AuditFilter)
Q_DECLARE_METATYPE(lantern::AuditPage)
