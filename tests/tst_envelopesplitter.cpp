// Envelope splits: the invariants for every algorithm and shape, reproducibility from the seed,
// the refusals of validateSplit, and the statistics behind docs/envelopes-split.md.
#include "core/errors.h"
#include "envelope/envelopesplitter.h"
#include "testsuite.h"

#include <QTest>

#include <QTextStream>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

namespace tst_envelopesplitter {

using namespace lantern;

namespace {

constexpr qint64 Int64Max = std::numeric_limits<qint64>::max();
constexpr SplitAlgorithm AllAlgorithms[] = {SplitAlgorithm::DoubleMean, SplitAlgorithm::Smoothed, SplitAlgorithm::UniformCuts};
/** Splits per statistic: seeds 1..Splits, so every statistical test is deterministic. */
constexpr int Splits = 10'000;

QByteArray rowName(SplitAlgorithm algorithm, const char *what)
{
    return splitAlgorithmName(algorithm).toUtf8() + ": " + what;
}

/** Per-position moments over seeds 1..Splits. Statistics only: the amounts stay integers. */
struct PositionStats {
    double mean = 0;
    double variance = 0;      // sample variance
    double meanError = 0;     // standard error of the mean: sqrt(variance / n)
    double varianceError = 0; // standard error of the sample variance: sqrt((m4 - variance^2) / n)
    double luckiest = 0;      // share of splits where this envelope is the largest (ties shared)
};

std::vector<PositionStats> positionStats(SplitAlgorithm algorithm, qint64 total, qint64 count, qint64 min = 1)
{
    const auto positions = static_cast<std::size_t>(count);
    std::vector<std::vector<qint64>> byPosition(positions);
    std::vector<PositionStats> result(positions);
    const double n = Splits;
    for (int seed = 1; seed <= Splits; ++seed) {
        const std::vector<qint64> amounts = splitEnvelopes({total, count, min, algorithm, quint64(seed)});
        const qint64 largest = *std::max_element(amounts.begin(), amounts.end());
        const auto ties = double(std::count(amounts.begin(), amounts.end(), largest));
        for (std::size_t p = 0; p < positions; ++p) {
            byPosition[p].push_back(amounts[p]);
            if (amounts[p] == largest)
                result[p].luckiest += 1 / (ties * n);
        }
    }
    for (std::size_t p = 0; p < positions; ++p) {
        double sum = 0;
        for (const qint64 x : byPosition[p])
            sum += double(x);
        const double mean = sum / n;
        double m2 = 0;
        double m4 = 0;
        for (const qint64 x : byPosition[p]) {
            const double d = double(x) - mean;
            m2 += d * d;
            m4 += d * d * d * d;
        }
        const double variance = m2 / (n - 1);
        m4 /= n;
        result[p].mean = mean;
        result[p].variance = variance;
        result[p].meanError = std::sqrt(variance / n);
        result[p].varianceError = std::sqrt(std::max(0.0, m4 - variance * variance) / n);
    }
    return result;
}

double binomial(qint64 n, qint64 k)
{
    double result = 1;
    for (qint64 i = 1; i <= k; ++i)
        result = result * double(n - k + i) / double(i);
    return result;
}

} // namespace

class TestEnvelopeSplitter : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void algorithmNames_data();
    void algorithmNames();
    void invariants_data();
    void invariants();
    void determinism_data();
    void determinism();
    void reproducesRecordedSplit_data();
    void reproducesRecordedSplit();
    void refusals_data();
    void refusals();
    void positionMeans_data();
    void positionMeans();
    void doubleMeanFirstDraw_data();
    void doubleMeanFirstDraw();
    void spareCentDestination_data();
    void spareCentDestination();
    void uniformCutsEveryOutcomeEquallyLikely_data();
    void uniformCutsEveryOutcomeEquallyLikely();
    void uniformCutsVariancesAgree();
    void doubleMeanLateVarianceLarger();
    void uniformCutsFairest();
};

void TestEnvelopeSplitter::algorithmNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("known");
    QTest::addColumn<SplitAlgorithm>("algorithm");
    QTest::newRow("double-mean is the WeChat rule") << QStringLiteral("double-mean") << true << SplitAlgorithm::DoubleMean;
    QTest::newRow("smoothed") << QStringLiteral("smoothed") << true << SplitAlgorithm::Smoothed;
    QTest::newRow("uniform-cuts") << QStringLiteral("uniform-cuts") << true << SplitAlgorithm::UniformCuts;
    QTest::newRow("names are exact: no capitals") << QStringLiteral("Double-Mean") << false << SplitAlgorithm::DoubleMean;
    QTest::newRow("names are exact: no spaces") << QStringLiteral(" smoothed") << false << SplitAlgorithm::DoubleMean;
    QTest::newRow("names are exact: no underscore") << QStringLiteral("uniform_cuts") << false << SplitAlgorithm::DoubleMean;
    QTest::newRow("empty name") << QString() << false << SplitAlgorithm::DoubleMean;
}

void TestEnvelopeSplitter::algorithmNames()
{
    QFETCH(QString, name);
    QFETCH(bool, known);
    QFETCH(SplitAlgorithm, algorithm);
    const std::optional<SplitAlgorithm> parsed = splitAlgorithmFromName(name);
    QCOMPARE(parsed.has_value(), known);
    if (known) {
        QCOMPARE(*parsed, algorithm);
        QCOMPARE(splitAlgorithmName(algorithm), name);
    }
}

void TestEnvelopeSplitter::invariants_data()
{
    QTest::addColumn<SplitAlgorithm>("algorithm");
    QTest::addColumn<qint64>("total");
    QTest::addColumn<qint64>("count");
    QTest::addColumn<qint64>("min");
    QTest::addColumn<quint64>("seed");
    for (const SplitAlgorithm a : AllAlgorithms) {
        QTest::newRow(rowName(a, "one envelope takes the whole total")) << a << qint64(12345) << qint64(1) << qint64(1) << quint64(1);
        QTest::newRow(rowName(a, "one envelope, total = min")) << a << qint64(500) << qint64(1) << qint64(500) << quint64(2);
        QTest::newRow(rowName(a, "two envelopes")) << a << qint64(3) << qint64(2) << qint64(1) << quint64(3);
        QTest::newRow(rowName(a, "total = count * min: every envelope is min")) << a << qint64(1000) << qint64(100) << qint64(10) << quint64(4);
        QTest::newRow(rowName(a, "total = count * min + 1: one spare cent")) << a << qint64(1001) << qint64(100) << qint64(10) << quint64(5);
        QTest::newRow(rowName(a, "spare smaller than count")) << a << qint64(1500) << qint64(1000) << qint64(1) << quint64(6);
        QTest::newRow(rowName(a, "spare just over 8 slots per envelope (sparse cuts)")) << a << qint64(10 * 9) << qint64(10) << qint64(1) << quint64(7);
        QTest::newRow(rowName(a, "the design's example, 10,000 cents into 10")) << a << qint64(10'000) << qint64(10) << qint64(1) << quint64(8);
        QTest::newRow(rowName(a, "seed 0")) << a << qint64(10'000) << qint64(10) << qint64(1) << quint64(0);
        QTest::newRow(rowName(a, "largest seed")) << a << qint64(10'000) << qint64(10) << qint64(1) << std::numeric_limits<quint64>::max();
        QTest::newRow(rowName(a, "near INT64_MAX/2, 3 envelopes")) << a << Int64Max / 2 << qint64(3) << qint64(1) << quint64(9);
        QTest::newRow(rowName(a, "INT64_MAX/2 + 1 into 2: 2R would overflow int64")) << a << Int64Max / 2 + 1 << qint64(2) << qint64(1) << quint64(10);
        QTest::newRow(rowName(a, "INT64_MAX into 7, min INT64_MAX/8")) << a << Int64Max << qint64(7) << Int64Max / 8 << quint64(11);
        QTest::newRow(rowName(a, "INT64_MAX = 7 * min exactly")) << a << Int64Max << qint64(7) << Int64Max / 7 << quint64(12);
        QTest::newRow(rowName(a, "INT64_MAX into one")) << a << Int64Max << qint64(1) << qint64(1) << quint64(13);
        QTest::newRow(rowName(a, "1,000,000 envelopes, dense cuts")) << a << qint64(3'000'000) << qint64(1'000'000) << qint64(1) << quint64(14);
        QTest::newRow(rowName(a, "1,000,000 envelopes, sparse cuts")) << a << qint64(5'000'000'000) << qint64(1'000'000) << qint64(100) << quint64(15);
        QTest::newRow(rowName(a, "10,000,000 envelopes at the cap")) << a << qint64(50'000'000) << MaxEnvelopeCount << qint64(1) << quint64(16);
    }
}

void TestEnvelopeSplitter::invariants()
{
    QFETCH(SplitAlgorithm, algorithm);
    QFETCH(qint64, total);
    QFETCH(qint64, count);
    QFETCH(qint64, min);
    QFETCH(quint64, seed);
    const std::vector<qint64> amounts = splitEnvelopes({total, count, min, algorithm, seed});
    QCOMPARE(qint64(amounts.size()), count);
    qint64 sum = 0; // partial sums of amounts >= 1 never exceed the total, so this cannot overflow
    qint64 smallest = Int64Max;
    for (const qint64 amount : amounts) {
        smallest = std::min(smallest, amount);
        if (amount < min)
            break;
        sum += amount;
    }
    QVERIFY2(smallest >= min, qPrintable(QStringLiteral("an envelope of %1 is below the minimum %2").arg(smallest).arg(min)));
    QCOMPARE(sum, total);
    if (total == count * min)
        QVERIFY(std::all_of(amounts.begin(), amounts.end(), [min](qint64 a) { return a == min; }));
}

void TestEnvelopeSplitter::determinism_data()
{
    QTest::addColumn<SplitAlgorithm>("algorithm");
    QTest::addColumn<qint64>("total");
    QTest::addColumn<qint64>("count");
    for (const SplitAlgorithm a : AllAlgorithms) {
        QTest::newRow(rowName(a, "10,000 cents into 10")) << a << qint64(10'000) << qint64(10);
        QTest::newRow(rowName(a, "3 envelopes, 1 spare cent")) << a << qint64(4) << qint64(3);
        QTest::newRow(rowName(a, "huge total into 5")) << a << Int64Max << qint64(5);
        QTest::newRow(rowName(a, "100,000 envelopes")) << a << qint64(10'000'000) << qint64(100'000);
    }
}

void TestEnvelopeSplitter::determinism()
{
    QFETCH(SplitAlgorithm, algorithm);
    QFETCH(qint64, total);
    QFETCH(qint64, count);
    const SplitSpec spec{total, count, 1, algorithm, 20260101};
    QCOMPARE(splitEnvelopes(spec), splitEnvelopes(spec));
    // One spare cent among 3 envelopes has only 2 or 3 outcomes, so another seed may repeat the
    // split; all of the next 10 seeds must not.
    bool differs = false;
    for (quint64 other = 1; other <= 10 && !differs; ++other)
        differs = splitEnvelopes(spec) != splitEnvelopes({total, count, 1, algorithm, spec.seed + other});
    QVERIFY2(differs, "a different seed must give a different split");
}

void TestEnvelopeSplitter::reproducesRecordedSplit_data()
{
    // Recorded once from this implementation. A change here means every stored campaign seed now
    // replays a different split: an audit could no longer reproduce it.
    QTest::addColumn<SplitAlgorithm>("algorithm");
    QTest::addColumn<std::vector<qint64>>("amounts");
    QTest::newRow("double-mean, seed 42") << SplitAlgorithm::DoubleMean << std::vector<qint64>{407, 641, 215, 2191, 656, 793, 1629, 553, 2825, 90};
    QTest::newRow("smoothed, seed 42") << SplitAlgorithm::Smoothed << std::vector<qint64>{1437, 706, 725, 710, 1010, 1013, 1236, 1579, 690, 894};
    QTest::newRow("uniform-cuts, seed 42") << SplitAlgorithm::UniformCuts << std::vector<qint64>{177, 621, 134, 2477, 1078, 767, 787, 254, 1784, 1921};
}

void TestEnvelopeSplitter::reproducesRecordedSplit()
{
    QFETCH(SplitAlgorithm, algorithm);
    QFETCH(std::vector<qint64>, amounts);
    QCOMPARE(splitEnvelopes({10'000, 10, 1, algorithm, 42}), amounts);
}

void TestEnvelopeSplitter::refusals_data()
{
    QTest::addColumn<qint64>("total");
    QTest::addColumn<qint64>("count");
    QTest::addColumn<qint64>("min");
    QTest::newRow("count 0") << qint64(100) << qint64(0) << qint64(1);
    QTest::newRow("negative count") << qint64(100) << qint64(-3) << qint64(1);
    QTest::newRow("count over the 10,000,000 cap") << qint64(1'000'000'000) << MaxEnvelopeCount + 1 << qint64(1);
    QTest::newRow("negative total") << qint64(-100) << qint64(1) << qint64(1);
    QTest::newRow("zero total") << qint64(0) << qint64(1) << qint64(1);
    QTest::newRow("min 0") << qint64(100) << qint64(10) << qint64(0);
    QTest::newRow("negative min") << qint64(100) << qint64(10) << qint64(-1);
    QTest::newRow("total one cent short of count * min") << qint64(999) << qint64(100) << qint64(10);
    QTest::newRow("count * min overflows int64 (2 * 2^62)") << Int64Max << qint64(2) << (qint64(1) << 62);
    QTest::newRow("count * min overflows int64 at the cap") << Int64Max << MaxEnvelopeCount << Int64Max / MaxEnvelopeCount + 1;
}

void TestEnvelopeSplitter::refusals()
{
    QFETCH(qint64, total);
    QFETCH(qint64, count);
    QFETCH(qint64, min);
    for (const SplitAlgorithm a : AllAlgorithms) {
        const SplitSpec spec{total, count, min, a, 7};
        QVERIFY_THROWS_EXCEPTION(InvalidInputError, validateSplit(spec));
        QVERIFY_THROWS_EXCEPTION(InvalidInputError, splitEnvelopes(spec));
    }
}

void TestEnvelopeSplitter::positionMeans_data()
{
    QTest::addColumn<SplitAlgorithm>("algorithm");
    QTest::addColumn<qint64>("total");
    QTest::addColumn<qint64>("count");
    QTest::addColumn<qint64>("min");
    for (const SplitAlgorithm a : AllAlgorithms) {
        QTest::newRow(rowName(a, "10,000 cents into 10, min 1")) << a << qint64(10'000) << qint64(10) << qint64(1);
        QTest::newRow(rowName(a, "1,000,000 cents into 25")) << a << qint64(1'000'000) << qint64(25) << qint64(1);
    }
    // Double mean's rand(min, 2R/L) averages (min + 2R/L) / 2, above R/L for a large minimum
    // (doubleMeanFirstDraw pins that); the other two must stay fair there.
    for (const SplitAlgorithm a : {SplitAlgorithm::Smoothed, SplitAlgorithm::UniformCuts})
        QTest::newRow(rowName(a, "10,000 cents into 10, min 500")) << a << qint64(10'000) << qint64(10) << qint64(500);
    // Double mean hands a lone spare cent to the first envelope half the time (see the doc);
    // uniform cuts must give it to each envelope equally often, in both of its code paths.
    const SplitAlgorithm u = SplitAlgorithm::UniformCuts;
    QTest::newRow("uniform-cuts: one spare cent among 10") << u << qint64(11) << qint64(10) << qint64(1);
    QTest::newRow("uniform-cuts: 3 spare cents among 20") << u << qint64(23) << qint64(20) << qint64(1);
    QTest::newRow("uniform-cuts: 60 spare cents among 6 (sparse)") << u << qint64(66) << qint64(6) << qint64(1);
}

void TestEnvelopeSplitter::positionMeans()
{
    QFETCH(SplitAlgorithm, algorithm);
    QFETCH(qint64, total);
    QFETCH(qint64, count);
    QFETCH(qint64, min);
    // Every position must average total / count. Tolerance: 4 standard errors of that position's
    // mean, from its observed variance over 10,000 splits. A fair split misses it with p ~ 6e-5
    // per position (normal approximation), yet a bias of 4 SE is caught: 23 cents of 1,000 for
    // double mean's first envelope (sd 577), 0.012 of 1.1 for one spare cent among 10.
    const double expected = double(total) / double(count);
    const std::vector<PositionStats> stats = positionStats(algorithm, total, count, min);
    for (std::size_t p = 0; p < stats.size(); ++p) {
        const double tolerance = 4 * stats[p].meanError;
        QVERIFY2(std::abs(stats[p].mean - expected) <= tolerance,
                 qPrintable(QStringLiteral("position %1: mean %2, expected %3 +- %4").arg(p + 1).arg(stats[p].mean).arg(expected).arg(tolerance)));
    }
}

void TestEnvelopeSplitter::doubleMeanFirstDraw_data()
{
    QTest::addColumn<qint64>("min");
    QTest::newRow("min 1: uniform on [1, 2,000], mean 1,000.5") << qint64(1);
    QTest::newRow("min 500: uniform on [500, 2,000], mean 1,250, above the fair 1,000") << qint64(500);
}

void TestEnvelopeSplitter::doubleMeanFirstDraw()
{
    QFETCH(qint64, min);
    // The first of 10 envelopes from 10,000 cents is uniform on [min, 2 * 10,000 / 10]: its mean
    // and variance must be those of that discrete uniform, within 4 standard errors. This checks
    // the bounded draw is unbiased, and documents that the rule favours early grabs for a large min.
    const qint64 high = 2 * 10'000 / 10;
    const double values = double(high - min + 1);
    const double mean = double(min + high) / 2;
    const double variance = (values * values - 1) / 12;
    const PositionStats first = positionStats(SplitAlgorithm::DoubleMean, 10'000, 10, min).front();
    QVERIFY2(std::abs(first.mean - mean) <= 4 * first.meanError, qPrintable(QStringLiteral("mean %1, expected %2").arg(first.mean).arg(mean)));
    QVERIFY2(std::abs(first.variance - variance) <= 4 * first.varianceError,
             qPrintable(QStringLiteral("variance %1, expected %2").arg(first.variance).arg(variance)));
}

void TestEnvelopeSplitter::spareCentDestination_data()
{
    // 11 cents into 10 envelopes of at least 1: which envelope gets the one spare cent? The
    // probabilities follow from each rule (docs/envelopes-split.md). Double mean draws from
    // [1, 2] while the cent is unassigned, so envelope i gets it with probability 2^-i (the last
    // 2^-9). Smoothed's pool of 1 cent gives floor(2 * 1 / L) = 0 until 2 envelopes are left.
    QTest::addColumn<SplitAlgorithm>("algorithm");
    QTest::addColumn<std::vector<double>>("probabilities");
    std::vector<double> halving;
    for (int i = 1; i <= 9; ++i)
        halving.push_back(std::ldexp(1.0, -i));
    halving.push_back(std::ldexp(1.0, -9));
    QTest::newRow("double-mean: halves at every envelope") << SplitAlgorithm::DoubleMean << halving;
    QTest::newRow("smoothed: only the last two envelopes") << SplitAlgorithm::Smoothed << std::vector<double>{0, 0, 0, 0, 0, 0, 0, 0, 0.5, 0.5};
    QTest::newRow("uniform-cuts: every envelope 1/10") << SplitAlgorithm::UniformCuts << std::vector<double>(10, 0.1);
}

void TestEnvelopeSplitter::spareCentDestination()
{
    QFETCH(SplitAlgorithm, algorithm);
    QFETCH(std::vector<double>, probabilities);
    std::vector<int> got(probabilities.size());
    for (int seed = 1; seed <= Splits; ++seed) {
        const std::vector<qint64> amounts = splitEnvelopes({11, 10, 1, algorithm, quint64(seed)});
        got[std::size_t(std::find(amounts.begin(), amounts.end(), 2) - amounts.begin())] += 1;
    }
    if (qEnvironmentVariableIsSet("LANTERN_PRINT_SPLIT_TABLE")) {
        QTextStream out(stdout);
        out << "| " << splitAlgorithmName(algorithm);
        for (const int times : got)
            out << " | " << QString::number(100.0 * times / Splits, 'f', 1) << " %";
        out << " |\n";
    }
    // 4 binomial standard deviations; an impossible destination must never be hit.
    for (std::size_t p = 0; p < got.size(); ++p) {
        const double expected = Splits * probabilities[p];
        const double tolerance = 4 * std::sqrt(Splits * probabilities[p] * (1 - probabilities[p]));
        QVERIFY2(std::abs(got[p] - expected) <= tolerance,
                 qPrintable(QStringLiteral("envelope %1 got the cent %2 times, expected %3 +- %4").arg(p + 1).arg(got[p]).arg(expected).arg(tolerance)));
    }
}

void TestEnvelopeSplitter::uniformCutsEveryOutcomeEquallyLikely_data()
{
    QTest::addColumn<qint64>("total");
    QTest::addColumn<qint64>("count");
    QTest::newRow("2 spare cents among 3 (dense cuts): 6 splits") << qint64(5) << qint64(3);
    QTest::newRow("3 spare cents among 4 (dense cuts): 20 splits") << qint64(7) << qint64(4);
    QTest::newRow("20 spare cents among 2 (sparse cuts): 21 splits") << qint64(22) << qint64(2);
    QTest::newRow("23 spare cents among 3 (sparse cuts): 300 splits") << qint64(26) << qint64(3);
}

void TestEnvelopeSplitter::uniformCutsEveryOutcomeEquallyLikely()
{
    QFETCH(qint64, total);
    QFETCH(qint64, count);
    // Uniform cuts is uniform over every split: each of the C(spare + N - 1, N - 1) outcomes must
    // appear, each about 10,000 / outcomes times. Tolerance 4.5 binomial standard deviations:
    // with up to 300 outcomes checked together a fair split fails by chance with p < 300 * 7e-6.
    std::map<std::vector<qint64>, int> seen;
    for (int seed = 1; seed <= Splits; ++seed)
        ++seen[splitEnvelopes({total, count, 1, SplitAlgorithm::UniformCuts, quint64(seed)})];
    const double outcomes = binomial(total - 1, count - 1);
    QCOMPARE(double(seen.size()), outcomes);
    const double p = 1 / outcomes;
    const double expected = Splits * p;
    const double tolerance = 4.5 * std::sqrt(Splits * p * (1 - p));
    for (const auto &[split, times] : seen)
        QVERIFY2(std::abs(times - expected) <= tolerance, qPrintable(QStringLiteral("a split seen %1 times, expected %2 +- %3").arg(times).arg(expected).arg(tolerance)));
}

void TestEnvelopeSplitter::uniformCutsVariancesAgree()
{
    // Exchangeable amounts have one variance at every position (Beta(1, 9) * 10,000 here, about
    // 818,000). Each position's variance must be within 4 standard errors of the average
    // variance, the standard error estimated from the position's fourth moment.
    const std::vector<PositionStats> stats = positionStats(SplitAlgorithm::UniformCuts, 10'000, 10);
    double average = 0;
    for (const PositionStats &s : stats)
        average += s.variance / double(stats.size());
    for (std::size_t p = 0; p < stats.size(); ++p) {
        const double tolerance = 4 * stats[p].varianceError;
        QVERIFY2(std::abs(stats[p].variance - average) <= tolerance,
                 qPrintable(QStringLiteral("position %1: variance %2, average %3 +- %4").arg(p + 1).arg(stats[p].variance).arg(average).arg(tolerance)));
    }
}

void TestEnvelopeSplitter::doubleMeanLateVarianceLarger()
{
    // Double mean draws the first envelope from [1, 2,000] (variance ~333,000), but the last two
    // split what chance left over, so their variance is larger (about 1.8 times over 10,000
    // seeds). Assert the direction with a margin of 4 combined standard errors, and at least 1.5x.
    const std::vector<PositionStats> stats = positionStats(SplitAlgorithm::DoubleMean, 10'000, 10);
    const PositionStats &first = stats.front();
    for (const std::size_t late : {stats.size() - 2, stats.size() - 1}) {
        const PositionStats &s = stats[late];
        const double margin = 4 * std::hypot(first.varianceError, s.varianceError);
        QVERIFY2(s.variance - first.variance > margin,
                 qPrintable(QStringLiteral("position %1: variance %2 vs first %3, margin %4").arg(late + 1).arg(s.variance).arg(first.variance).arg(margin)));
        QVERIFY(s.variance > 1.5 * first.variance);
    }
}

void TestEnvelopeSplitter::uniformCutsFairest()
{
    // The claims of docs/envelopes-split.md: of the three, uniform cuts has the most even spread
    // across positions (smallest ratio of the largest to the smallest per-position standard
    // deviation), and every position is the luckiest (largest envelope) equally often, 1/N within
    // 4 binomial standard errors. Double mean's last envelope is the luckiest more often than
    // that. LANTERN_PRINT_SPLIT_TABLE=1 prints the doc's tables from these same figures.
    std::vector<std::vector<PositionStats>> all;
    std::vector<double> spreadRatio;
    for (const SplitAlgorithm a : AllAlgorithms) {
        all.push_back(positionStats(a, 10'000, 10));
        const auto [low, high] = std::minmax_element(all.back().begin(), all.back().end(),
                                                     [](const PositionStats &x, const PositionStats &y) { return x.variance < y.variance; });
        spreadRatio.push_back(std::sqrt(high->variance / low->variance));
    }
    if (qEnvironmentVariableIsSet("LANTERN_PRINT_SPLIT_TABLE")) {
        QTextStream out(stdout);
        out << "| position | double-mean mean | sd | P(largest) | smoothed mean | sd | P(largest) | uniform-cuts mean | sd | P(largest) |\n";
        out << "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
        for (std::size_t p = 0; p < all.front().size(); ++p) {
            out << "| " << p + 1;
            for (const std::vector<PositionStats> &stats : all) {
                out << " | " << QString::number(stats[p].mean, 'f', 1) << " | " << QString::number(std::sqrt(stats[p].variance), 'f', 1)
                    << " | " << QString::number(100 * stats[p].luckiest, 'f', 1) << " %";
            }
            out << " |\n";
        }
        out << "| max sd / min sd";
        for (const double ratio : spreadRatio)
            out << " | | " << QString::number(ratio, 'f', 2) << " |";
        out << " |\n";
    }
    QVERIFY(spreadRatio[2] < spreadRatio[0]);
    QVERIFY(spreadRatio[2] < spreadRatio[1]);
    const double fair = 0.1;
    const double tolerance = 4 * std::sqrt(fair * (1 - fair) / Splits);
    for (const PositionStats &s : all[2])
        QVERIFY2(std::abs(s.luckiest - fair) <= tolerance, qPrintable(QStringLiteral("uniform cuts: luckiest %1 of the time").arg(s.luckiest)));
    QVERIFY(all[0].back().luckiest > fair + tolerance);
}

LANTERN_TEST_SUITE(TestEnvelopeSplitter);

} // namespace tst_envelopesplitter

#include "tst_envelopesplitter.moc"
