#include "envelope/envelopesplitter.h"

#include "core/errors.h"

#include <QCoreApplication>

#include <algorithm>
#include <bit>
#include <limits>
#include <random>

// Every amount below is an integer number of cents; no floating point is involved. The order in
// which random numbers are drawn is part of the reproducibility contract (a seed must replay the
// same split for an audit): changing it changes every recorded campaign's split.

namespace lantern {

namespace {

struct EnvelopeSplitter {
    Q_DECLARE_TR_FUNCTIONS(lantern::EnvelopeSplitter)
};

using Rng = std::mt19937_64;
static_assert(Rng::min() == 0 && Rng::max() == std::numeric_limits<quint64>::max(),
              "the bounded draw relies on 64 uniform bits per call");

/** Uniform in [0, maxValue]. Rejects the draws below 2^64 mod (maxValue + 1), so the accepted
    ones cover whole periods of the modulo and every value is equally likely (the method of
    OpenBSD's arc4random_uniform). A range of one value draws nothing. */
quint64 drawUpTo(Rng &rng, quint64 maxValue)
{
    if (maxValue == 0)
        return 0;
    if (maxValue == std::numeric_limits<quint64>::max())
        return rng();
    const quint64 range = maxValue + 1;
    const quint64 rejectBelow = (0 - range) % range; // 2^64 mod range
    for (;;) {
        const quint64 r = rng();
        if (r >= rejectBelow)
            return r % range;
    }
}

/** WeChat's double mean over `pool` cents: with R cents and L envelopes left (L >= 2), draw
    uniformly in [min, min(floor(2R / L), R - (L - 1) * min)]; the last envelope takes R. Each
    amount is written as base + draw. Needs pool >= size * min. */
void doubleMean(std::vector<qint64> &amounts, Rng &rng, qint64 pool, qint64 min, qint64 base)
{
    const auto n = static_cast<qint64>(amounts.size());
    qint64 remaining = pool;
    for (qint64 i = 0; i < n - 1; ++i) {
        const qint64 left = n - i;
        // 2R overflows qint64 for R > 2^62 but not quint64; the quotient is <= R since left >= 2.
        const auto twiceMean = static_cast<qint64>(2 * static_cast<quint64>(remaining) / static_cast<quint64>(left));
        const qint64 keepForOthers = (left - 1) * min; // <= remaining, which is >= left * min
        const qint64 upper = std::min(twiceMean, remaining - keepForOthers);
        const qint64 amount = min + static_cast<qint64>(drawUpTo(rng, static_cast<quint64>(upper - min)));
        amounts[static_cast<std::size_t>(i)] = base + amount;
        remaining -= amount;
    }
    amounts.back() = base + remaining;
}

/** Writes the envelope amounts min + gap from k = size - 1 strictly increasing bar positions
    c_1 < ... < c_k in [1, slots]: gap_i = c_{i+1} - c_i - 1 with c_0 = 0 and c_{k+1} = slots + 1.
    The bars are read from amounts[0..k) and overwritten from the top down, so no copy is needed. */
void barsToAmounts(std::vector<qint64> &amounts, qint64 slots, qint64 min)
{
    const std::size_t k = amounts.size() - 1;
    amounts[k] = min + (slots - amounts[k - 1]);
    for (std::size_t i = k - 1; i > 0; --i)
        amounts[i] = min + (amounts[i] - amounts[i - 1] - 1);
    amounts[0] = min + (amounts[0] - 1);
}

/** k distinct bar positions in [1, slots], uniform over all k-subsets, sorted into
    amounts[0..k). For slots at most 8 * size: Robert Floyd's algorithm (exactly k draws) over a
    bitmap of `slots` bits, at most one byte per envelope. */
void chooseBarsDense(std::vector<qint64> &amounts, Rng &rng, qint64 slots)
{
    const auto k = static_cast<qint64>(amounts.size()) - 1;
    std::vector<quint64> taken(static_cast<std::size_t>(slots / 64 + 1), 0);
    const auto bit = [](qint64 position) { return quint64(1) << ((position - 1) % 64); };
    const auto word = [&taken](qint64 position) -> quint64 & {
        return taken[static_cast<std::size_t>((position - 1) / 64)];
    };
    for (qint64 j = slots - k + 1; j <= slots; ++j) {
        const qint64 t = 1 + static_cast<qint64>(drawUpTo(rng, static_cast<quint64>(j - 1)));
        const qint64 chosen = (word(t) & bit(t)) ? j : t;
        word(chosen) |= bit(chosen);
    }
    std::size_t next = 0;
    for (std::size_t w = 0; w < taken.size(); ++w) {
        for (quint64 bits = taken[w]; bits != 0; bits &= bits - 1)
            amounts[next++] = static_cast<qint64>(w) * 64 + std::countr_zero(bits) + 1;
    }
}

/** The same uniform k-subset for slots > 8 * size: draw positions uniformly with replacement,
    sort, drop repeats and draw again only as many as are missing. That is exactly "draw until k
    distinct positions are seen", which is uniform over k-subsets by symmetry; a draw repeats with
    probability < 1/8, so the top-up rounds shrink geometrically. */
void chooseBarsSparse(std::vector<qint64> &amounts, Rng &rng, qint64 slots)
{
    const auto k = static_cast<std::ptrdiff_t>(amounts.size()) - 1;
    const auto first = amounts.begin();
    std::ptrdiff_t distinct = 0;
    while (distinct < k) {
        for (std::ptrdiff_t i = distinct; i < k; ++i)
            first[i] = 1 + static_cast<qint64>(drawUpTo(rng, static_cast<quint64>(slots - 1)));
        std::sort(first + distinct, first + k);
        std::inplace_merge(first, first + distinct, first + k);
        distinct = std::unique(first, first + k) - first;
    }
}

/** Uniform over every way of giving each envelope min plus a share of the spare S = total - N * min
    (stars and bars: N - 1 bars among S + N - 1 slots), so the amounts are exchangeable. */
void uniformCuts(std::vector<qint64> &amounts, Rng &rng, qint64 total, qint64 min)
{
    const auto n = static_cast<qint64>(amounts.size());
    const qint64 spare = total - n * min;
    if (n == 1) {
        amounts[0] = total;
        return;
    }
    const qint64 slots = spare + (n - 1); // <= total - n * min + n - 1 < total, so no overflow
    if (slots <= 8 * n)
        chooseBarsDense(amounts, rng, slots);
    else
        chooseBarsSparse(amounts, rng, slots);
    barsToAmounts(amounts, slots, min);
}

} // namespace

std::optional<SplitAlgorithm> splitAlgorithmFromName(const QString &name)
{
    for (const SplitAlgorithm algorithm : {SplitAlgorithm::DoubleMean, SplitAlgorithm::Smoothed, SplitAlgorithm::UniformCuts}) {
        if (name == splitAlgorithmName(algorithm))
            return algorithm;
    }
    return std::nullopt;
}

QString splitAlgorithmName(SplitAlgorithm algorithm)
{
    switch (algorithm) {
    case SplitAlgorithm::DoubleMean:
        return QStringLiteral("double-mean");
    case SplitAlgorithm::Smoothed:
        return QStringLiteral("smoothed");
    case SplitAlgorithm::UniformCuts:
        return QStringLiteral("uniform-cuts");
    }
    return {};
}

void validateSplit(const SplitSpec &spec)
{
    if (spec.count < 1 || spec.count > MaxEnvelopeCount)
        throw InvalidInputError(EnvelopeSplitter::tr("the envelope count must be from 1 to %1, not %2").arg(MaxEnvelopeCount).arg(spec.count));
    if (spec.minCents < 1)
        throw InvalidInputError(EnvelopeSplitter::tr("the minimum envelope must be at least 1 cent, not %1").arg(spec.minCents));
    if (spec.totalCents < 1)
        throw InvalidInputError(EnvelopeSplitter::tr("the total must be at least 1 cent, not %1").arg(spec.totalCents));
    if (spec.minCents > std::numeric_limits<qint64>::max() / spec.count)
        throw InvalidInputError(EnvelopeSplitter::tr("%1 envelopes of at least %2 cents exceed the largest amount Lantern can hold")
                                    .arg(spec.count).arg(spec.minCents));
    if (spec.totalCents < spec.count * spec.minCents)
        throw InvalidInputError(EnvelopeSplitter::tr("the total of %1 cents is less than %2 envelopes of at least %3 cents")
                                    .arg(spec.totalCents).arg(spec.count).arg(spec.minCents));
    if (splitAlgorithmName(spec.algorithm).isEmpty())
        throw InvalidInputError(EnvelopeSplitter::tr("unknown split algorithm %1").arg(static_cast<int>(spec.algorithm)));
}

std::vector<qint64> splitEnvelopes(const SplitSpec &spec)
{
    validateSplit(spec);
    std::vector<qint64> amounts(static_cast<std::size_t>(spec.count));
    Rng rng(spec.seed);
    switch (spec.algorithm) {
    case SplitAlgorithm::DoubleMean:
        doubleMean(amounts, rng, spec.totalCents, spec.minCents, 0);
        break;
    case SplitAlgorithm::Smoothed: {
        // Half the mean, at least the minimum, for everyone; the rest by double mean from 0.
        const qint64 base = std::max(spec.minCents, spec.totalCents / spec.count / 2);
        doubleMean(amounts, rng, spec.totalCents - base * spec.count, 0, base);
        break;
    }
    case SplitAlgorithm::UniformCuts:
        uniformCuts(amounts, rng, spec.totalCents, spec.minCents);
        break;
    }
    return amounts;
}

} // namespace lantern
