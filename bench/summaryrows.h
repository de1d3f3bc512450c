#pragma once

#include <QString>

#include <vector>

namespace lantern::bench {

/** One line of the report's summary table (scripts/bench collects them from every scenario):
    a figure, the baseline it is measured against, and figure / baseline. */
struct SummaryRow {
    QString figure;         // "check-ins/s through lanternd serve (HTTP, wrk -c 50)"
    QString value;          // as printed: "6120"
    QString baseline;       // "redis-benchmark -c 50, the same EVALSHA"
    QString baselineValue;  // "15012"
    QString ratio;          // ratioText(value, baseline)
};

/** A ratio as the tables print it: three decimals below 0.1, two otherwise. */
QString ratioText(double numerator, double denominator);

/** Appends the rows to `path`, one tab-separated line each (figure, value, baseline, baseline
    value, ratio); does nothing when `path` is empty (no --summary). Throws LanternError when the
    file cannot be written. */
void appendSummaryRows(const QString &path, const std::vector<SummaryRow> &rows);

} // namespace lantern::bench
