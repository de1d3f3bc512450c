#include "core/datetext.h"

#include "core/textwriter.h"

namespace lantern {

namespace {
/** Writes yyyy, MM and dd (each optional after the year) with `separator` between them into
    `text` (10 bytes); returns how many. The date is decoded once (QDate::year(), month() and
    day() each convert its Julian day). */
int writeDigits(char *text, QDate date, bool withDay, char separator)
{
    int year = 0;
    int month = 0;
    int day = 0;
    date.getDate(&year, &month, &day);
    int n = 0;
    for (int i = 3; i >= 0; --i, year /= 10)
        text[i] = static_cast<char>('0' + year % 10);
    n = 4;
    if (separator)
        text[n++] = separator;
    text[n++] = static_cast<char>('0' + month / 10);
    text[n++] = static_cast<char>('0' + month % 10);
    if (withDay) {
        if (separator)
            text[n++] = separator;
        text[n++] = static_cast<char>('0' + day / 10);
        text[n++] = static_cast<char>('0' + day % 10);
    }
    return n;
}

QByteArray digits(QDate date, bool withDay, char separator)
{
    char text[10];
    return QByteArray(text, writeDigits(text, date, withDay, separator));
}
} // namespace

void writeCompactMonth(TextWriter &out, QDate date)
{
    char text[10];
    out << QByteArrayView(text, writeDigits(text, date, false, 0));
}

void writeIsoDay(TextWriter &out, QDate date)
{
    char text[10];
    out << QByteArrayView(text, writeDigits(text, date, true, '-'));
}

QByteArray compactMonth(QDate date)
{
    return digits(date, false, 0);
}

QByteArray compactDay(QDate date)
{
    return digits(date, true, 0);
}

QByteArray isoDay(QDate date)
{
    return digits(date, true, '-');
}

QDate firstOfMonth(QDate date)
{
    return date.isValid() ? QDate(date.year(), date.month(), 1) : QDate();
}

} // namespace lantern
