#pragma once

#include "checkin/checkinstore.h"

#include <QDate>
#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>

namespace lantern {

/** One month of a user's history, for the streak chart. */
struct MonthFigure {
    QDate month;       // first day
    int signedDays = 0;
    int makeupDays = 0;
    int longest = 0;   // longest run inside the month
};

/** One user's month as the console shows it: the Redis calendar plus the SQL points balance.
    Travels by value from the lookup thread to the GUI thread through queued signals. */
struct UserMonth {
    qint64 uid = 0;
    QString token;          // the user's public token
    QDate month;            // first day of the month shown
    QDate today;            // the business day the answer was computed for
    QList<int> signedDays;  // make-ups included
    QList<int> makeupDays;
    int monthCount = 0;
    int streak = 0;         // current streak as of today
    int longest = 0;        // longest run inside the month
    qint64 pointsBalance = 0;
    QList<MonthFigure> history;            // the months up to the one shown, oldest first
    QList<CheckinLogRow> recentCheckins;   // persisted check-ins, newest first
    QList<LedgerRow> recentLedger;         // points movements, newest first
    QDateTime loadedAt;     // when the answer was read
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::UserMonth)
