#include "rounds.h"

#include "summaryrows.h"

#include <QTextStream>

#include <algorithm>

namespace lantern::bench {

std::vector<double> runAlternatingRounds(int rounds, const std::vector<RoundPhase> &phases)
{
    std::vector<std::vector<double>> rates(phases.size());
    for (int round = 1; round <= rounds; ++round) {
        for (size_t turn = 0; turn < phases.size(); ++turn) {
            const size_t phase = round % 2 == 1 ? turn : phases.size() - 1 - turn;
            rates[phase].push_back(phases[phase](round));
        }
    }
    std::vector<double> medians;
    for (std::vector<double> &phaseRates : rates)
        medians.push_back(median(std::move(phaseRates)));
    return medians;
}

double median(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

QString rate(double perSecond)
{
    return QString::number(perSecond, 'f', 0);
}

void printSummary(QTextStream &out, int rounds, const QString &unit, const std::vector<std::pair<QString, double>> &rates,
                  const std::vector<Ratio> &ratios)
{
    out << "\n| " << (rounds > 1 ? QStringLiteral("median of %1 rounds").arg(rounds) : QStringLiteral("result")) << " | " << unit
        << " |\n|---|---:|\n";
    for (const auto &[label, perSecond] : rates)
        out << "| " << label << " | " << rate(perSecond) << " |\n";
    for (const Ratio &ratio : ratios)
        out << "| **" << ratio.label << "** | **" << ratioText(ratio.numerator, ratio.denominator) << "** |\n";
    out.flush();
}

} // namespace lantern::bench
