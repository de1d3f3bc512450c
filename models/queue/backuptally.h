#pragma once

#include <QByteArray>
#include <QHash>

namespace lantern {

/** What a worker's backup lists hold, as the worker itself moved entries in and out (issue 26):
    published with its heartbeat, so a console reads one figure per live worker instead of an
    LLEN per worker and list. A read of a list sets its count exactly; claims add what they took,
    removals subtract what Redis says they removed. Anything another process takes out of a live
    worker's list (a recovery an operator named it for) is not seen until the list is read again. */
class BackupTally final {
public:
    /** The list was read whole: it holds `entries`. */
    void held(const QByteArray &backupKey, qint64 entries) { m_lists[backupKey] = entries; }
    /** Entries moved in (positive) or removed (negative). */
    void change(const QByteArray &backupKey, qint64 delta);
    /** Every list together. */
    qint64 total() const;

private:
    QHash<QByteArray, qint64> m_lists;
};

} // namespace lantern
