#pragma once

#include <QString>
#include <QtGlobal>

#include <optional>
#include <vector>

namespace lantern {

/** How a campaign's total is cut into envelopes; docs/envelopes-split.md gives each exact rule. */
enum class SplitAlgorithm { DoubleMean, Smoothed, UniformCuts };

/** "double-mean", "smoothed", "uniform-cuts"; std::nullopt for anything else. */
std::optional<SplitAlgorithm> splitAlgorithmFromName(const QString &name);
/** The name splitAlgorithmFromName() accepts; empty for a value outside the enum. */
QString splitAlgorithmName(SplitAlgorithm algorithm);

/** The largest envelope count one campaign may have. */
inline constexpr qint64 MaxEnvelopeCount = 10'000'000;

struct SplitSpec {
    qint64 totalCents = 0;
    qint64 count = 0;
    qint64 minCents = 1;
    SplitAlgorithm algorithm = SplitAlgorithm::DoubleMean;
    quint64 seed = 0;
};

/** Throws InvalidInputError unless 1 <= count <= MaxEnvelopeCount, minCents >= 1 and
    totalCents >= count * minCents, the product computed without overflow (one that overflows
    int64 is refused). */
void validateSplit(const SplitSpec &spec);

/** The envelope amounts in pool order (the order grabs take them): they sum to totalCents, there
    are count of them, each is >= minCents. Validates first. Deterministic: the same spec, seed
    included, gives the same amounts on every platform and build (std::mt19937_64 and our own
    unbiased bounded draw, no implementation-defined distribution), so an audit can replay it.
    O(count) time for DoubleMean and Smoothed, O(count log count) for UniformCuts. */
std::vector<qint64> splitEnvelopes(const SplitSpec &spec);

} // namespace lantern
