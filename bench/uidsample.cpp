#include "uidsample.h"

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

} // namespace lantern::bench
