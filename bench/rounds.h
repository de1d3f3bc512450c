#pragma once

#include <QString>

#include <functional>
#include <utility>
#include <vector>

class QTextStream;

namespace lantern::bench {

/** One phase of a round: runs, prints its own table row, and returns its rate (per second). */
using RoundPhase = std::function<double(int round)>;

/** Runs `rounds` rounds of every phase: odd rounds in the given order, even rounds reversed, so no
    phase always meets a warmer (or busier) server. Returns each phase's median rate. */
std::vector<double> runAlternatingRounds(int rounds, const std::vector<RoundPhase> &phases);

/** Each phase's rates, round by round, and their medians. */
struct RoundRates {
    std::vector<std::vector<double>> perRound;  // [phase][round - 1]
    std::vector<double> medians;
};
/** runAlternatingRounds, keeping every round's rate. */
RoundRates runAlternatingRoundsKeepingRates(int rounds, const std::vector<RoundPhase> &phases);

/** A line for below the closing table: `numerators[i] / denominators[i]` round by round (each
    against the baseline of its own round, which met the same moment of a noisy machine) and
    their median, beside the ratio of the medians that the table gives. */
QString roundByRoundRatios(const QString &label, const std::vector<double> &numerators, const std::vector<double> &denominators);

double median(std::vector<double> values);

/** A rate as the tables print it: a whole number per second. */
QString rate(double perSecond);

/** A line of the closing table: label, then numerator / denominator in bold. */
struct Ratio {
    QString label;
    double numerator = 0;
    double denominator = 0;
};

/** The closing table: each phase's median rate, then the ratios in bold. `unit` heads the rate
    column ("grabs/s"). */
void printSummary(QTextStream &out, int rounds, const QString &unit, const std::vector<std::pair<QString, double>> &rates,
                  const std::vector<Ratio> &ratios);

} // namespace lantern::bench
