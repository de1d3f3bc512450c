#include "rounds.h"

#include "summaryrows.h"

#include <QStringList>
#include <QTextStream>

#include <algorithm>

namespace lantern::bench {

std::vector<double> runAlternatingRounds(int rounds, const std::vector<RoundPhase> &phases)
{
    return runAlternatingRoundsKeepingRates(rounds, phases).medians;
}

RoundRates runAlternatingRoundsKeepingRates(int rounds, const std::vector<RoundPhase> &phases)
{
    RoundRates result;
    result.perRound.resize(phases.size());
    for (int round = 1; round <= rounds; ++round) {
        for (size_t turn = 0; turn < phases.size(); ++turn) {
            const size_t phase = round % 2 == 1 ? turn : phases.size() - 1 - turn;
            result.perRound[phase].push_back(phases[phase](round));
        }
    }
    for (const std::vector<double> &phaseRates : result.perRound)
        result.medians.push_back(median(phaseRates));
    return result;
}

QString roundByRoundRatios(const QString &label, const std::vector<double> &numerators, const std::vector<double> &denominators)
{
    std::vector<double> ratios;
    QStringList texts;
    for (size_t i = 0; i < numerators.size() && i < denominators.size(); ++i) {
        ratios.push_back(denominators[i] > 0 ? numerators[i] / denominators[i] : 0);
        texts << QString::number(ratios.back(), 'f', 2);
    }
    return QStringLiteral("%1, round by round (each against its own round's baseline): %2; their median %3.\n")
            .arg(label, texts.join(QStringLiteral(", ")), QString::number(median(ratios), 'f', 2));
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
