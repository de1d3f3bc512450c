#pragma once

#include <QString>
#include <QtGlobal>

#include <optional>

namespace lantern {

/** Yuan text for int64 cents, for display only: "¥1,234.56" with the locale's group separator
    (QLocale()), computed with integer arithmetic (no floating point touches an amount). */
QString formatYuan(qint64 cents, bool withSymbol = true);

/** Cents for what an operator typed as yuan: "12", "12.5", "12.50", "1,234.56", "¥8". At most
    two decimals, no sign, nothing else; std::nullopt for anything malformed or beyond int64. */
std::optional<qint64> parseYuan(const QString &text);

/** The rounded mean of `count` amounts summing to `totalCents` (count >= 1), in cents. */
qint64 meanCents(qint64 totalCents, qint64 count);

} // namespace lantern
