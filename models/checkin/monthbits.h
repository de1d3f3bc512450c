#pragma once

#include <QByteArrayList>
#include <QDate>
#include <QList>

namespace lantern {

/** One user's check-in bits for one month: bit d-1 set means day d is signed. */
struct MonthBits {
    QDate month;     // the month's first day
    quint32 bits = 0;

    /** From `BITFIELD key GET u<days> 0`, which reads day 1 as the most significant bit. */
    static MonthBits fromBitfield(QDate month, qint64 value);
    static MonthBits fromDays(QDate month, const QList<int> &days);
    /** From a 32-bit month word of the block layout: bit 31 is day 1, bit 1 day 31. */
    static MonthBits fromWord(QDate month, quint32 word);
    /** The month word of these bits (fromWord's inverse). */
    quint32 word() const;

    int days() const { return month.daysInMonth(); }
    bool isSigned(int day) const { return day >= 1 && day <= 31 && (bits >> (day - 1)) & 1u; }
    bool isFull() const;
    int count() const;
    /** Consecutive signed days ending at `day` (0 when `day` is not signed). */
    int runEndingAt(int day) const;
    int longestRun() const;
    QList<int> signedDays() const;
};

} // namespace lantern
