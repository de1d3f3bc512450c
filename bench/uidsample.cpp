#include "uidsample.h"

#include "core/errors.h"

#include <algorithm>
#include <random>
#include <unordered_set>

namespace lantern::bench {

std::vector<qint64> sampleUids(qint64 count, qint64 keyspace, quint64 seed)
{
    std::mt19937_64 random(seed);
    std::unordered_set<qint64> taken;
    taken.reserve(static_cast<size_t>(count));
    std::vector<qint64> uids;
    uids.reserve(static_cast<size_t>(count));
    for (qint64 j = keyspace - count; j < keyspace; ++j) {
        const qint64 k = std::uniform_int_distribution<qint64>(0, j)(random);
        const qint64 pick = taken.insert(k).second ? k : (taken.insert(j), j);
        uids.push_back(UidBase + pick);
    }
    std::shuffle(uids.begin(), uids.end(), random);
    return uids;
}

std::vector<qint64> sampleUidsWhere(qint64 count, qint64 keyspace, quint64 seed, const std::function<bool(qint64 uid)> &keep)
{
    std::mt19937_64 random(seed);
    std::uniform_int_distribution<qint64> pick(0, keyspace - 1);
    std::unordered_set<qint64> taken;
    taken.reserve(static_cast<size_t>(count));
    std::vector<qint64> uids;
    uids.reserve(static_cast<size_t>(count));
    const qint64 maxDraws = std::max<qint64>(count, 1) * 100'000;
    for (qint64 draws = 0; qint64(uids.size()) < count; ++draws) {
        if (draws == maxDraws)
            throw LanternError(QStringLiteral("only %1 of %2 uids found in %3 draws").arg(uids.size()).arg(count).arg(maxDraws));
        const qint64 uid = UidBase + pick(random);
        if (keep(uid) && taken.insert(uid).second)
            uids.push_back(uid);
    }
    return uids;
}

} // namespace lantern::bench
