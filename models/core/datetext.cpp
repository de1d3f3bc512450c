#include "core/datetext.h"

namespace lantern {

namespace {
/** Writes yyyy, MM and dd (each optional after the year) with `separator` between them. */
QByteArray digits(QDate date, bool withDay, char separator)
{
    char text[10];
    int n = 0;
    int year = date.year();
    for (int i = 3; i >= 0; --i, year /= 10)
        text[i] = static_cast<char>('0' + year % 10);
    n = 4;
    if (separator)
        text[n++] = separator;
    text[n++] = static_cast<char>('0' + date.month() / 10);
    text[n++] = static_cast<char>('0' + date.month() % 10);
    if (withDay) {
        if (separator)
            text[n++] = separator;
        text[n++] = static_cast<char>('0' + date.day() / 10);
        text[n++] = static_cast<char>('0' + date.day() % 10);
    }
    return QByteArray(text, n);
}
} // namespace

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
