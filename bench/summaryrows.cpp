#include "summaryrows.h"

#include "core/errors.h"

#include <QFile>

namespace lantern::bench {

QString ratioText(double numerator, double denominator)
{
    const double value = denominator > 0 ? numerator / denominator : 0;
    return QString::number(value, 'f', value < 0.1 ? 3 : 2);
}

void appendSummaryRows(const QString &path, const std::vector<SummaryRow> &rows)
{
    if (path.isEmpty())
        return;
    QFile file(path);
    if (!file.open(QIODevice::Append | QIODevice::Text))
        throw LanternError(QStringLiteral("cannot write the summary to %1: %2").arg(path, file.errorString()));
    for (const SummaryRow &row : rows) {
        const QStringList fields{row.figure, row.value, row.baseline, row.baselineValue, row.ratio};
        file.write(fields.join(QLatin1Char('\t')).toUtf8() + '\n');
    }
}

} // namespace lantern::bench
