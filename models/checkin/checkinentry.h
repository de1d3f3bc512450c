#pragma once

#include <QByteArray>
#include <QDate>
#include <QString>

#include <optional>

namespace lantern {

/** One check-in as it travels through the log queue (JSON written by checkin.lua). */
struct CheckinEntry {
    qint64 uid = 0;
    QDate date;
    QString kind;          // "normal" or "makeup"
    int points = 0;        // granted by this check-in
    QString operatorName;  // make-ups only
    QString reason;        // make-ups only
    qint64 atMs = 0;       // when it was signed

    /** std::nullopt for anything malformed: such entries go to the dead-letter list. */
    static std::optional<CheckinEntry> fromJson(const QByteArray &json);
    QByteArray toJson() const;
    /** The ledger's business key: one grant per user and day. */
    QString ledgerRef() const;
};

} // namespace lantern
