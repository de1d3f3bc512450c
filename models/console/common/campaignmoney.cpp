#include "console/common/campaignmoney.h"

#include <QLocale>

#include <limits>

namespace lantern {

QString formatYuan(qint64 cents, bool withSymbol)
{
    // |INT64_MIN| does not fit an int64: work on the unsigned magnitude.
    const bool negative = cents < 0;
    const quint64 magnitude = negative ? quint64(0) - quint64(cents) : quint64(cents);
    const QLocale locale;
    QString text = locale.toString(qulonglong(magnitude / 100)) + locale.decimalPoint()
            + QStringLiteral("%1").arg(qulonglong(magnitude % 100), 2, 10, QLatin1Char('0'));
    if (withSymbol)
        text.prepend(QStringLiteral("¥"));
    if (negative)
        text.prepend(QLatin1Char('-'));
    return text;
}

std::optional<qint64> parseYuan(const QString &input)
{
    QString text = input.trimmed();
    if (text.startsWith(QStringLiteral("¥")) || text.startsWith(QStringLiteral("￥")))
        text = text.mid(1).trimmed();
    text.remove(QLatin1Char(','));
    text.remove(QLocale().groupSeparator());
    if (text.isEmpty())
        return std::nullopt;
    const qsizetype point = text.indexOf(QLatin1Char('.'));
    const QString whole = point < 0 ? text : text.left(point);
    const QString fraction = point < 0 ? QString() : text.mid(point + 1);
    if ((whole.isEmpty() && fraction.isEmpty()) || fraction.size() > 2)
        return std::nullopt;
    constexpr qint64 Max = std::numeric_limits<qint64>::max();
    qint64 yuan = 0;
    for (const QChar c : whole) {
        if (c < QLatin1Char('0') || c > QLatin1Char('9'))
            return std::nullopt;
        const int digit = c.unicode() - '0';
        if (yuan > (Max - digit) / 10)
            return std::nullopt;
        yuan = yuan * 10 + digit;
    }
    qint64 cents = 0;
    for (qsizetype i = 0; i < 2; ++i) {
        const QChar c = i < fraction.size() ? fraction.at(i) : QLatin1Char('0');
        if (c < QLatin1Char('0') || c > QLatin1Char('9'))
            return std::nullopt;
        cents = cents * 10 + (c.unicode() - '0');
    }
    if (yuan > (Max - cents) / 100)
        return std::nullopt;
    return yuan * 100 + cents;
}

qint64 meanCents(qint64 totalCents, qint64 count)
{
    if (count <= 0)
        return 0;
    // total / count rounded half up, without total + count / 2 overflowing.
    const qint64 quotient = totalCents / count;
    const qint64 remainder = totalCents % count;
    return quotient + (remainder >= count - remainder ? 1 : 0);
}

} // namespace lantern
