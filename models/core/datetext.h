#pragma once

#include <QByteArray>
#include <QDate>

namespace lantern {

class TextWriter;

/** Date digits for keys and script arguments on the hot path, without QDate::toString (which
    parses its format through QLocale, ~3k instructions a call). Years are 4 digits (2000-2999
    are the only ones accepted at the edge). */
QByteArray compactMonth(QDate date);  // yyyyMM
QByteArray compactDay(QDate date);    // yyyyMMdd
QByteArray isoDay(QDate date);        // yyyy-MM-dd
/** compactMonth(date) and isoDay(date) written into a key or an answer being written. */
void writeCompactMonth(TextWriter &out, QDate date);
void writeIsoDay(TextWriter &out, QDate date);

/** The 1st of DATE's month; an invalid date for an invalid DATE. */
QDate firstOfMonth(QDate date);

} // namespace lantern
