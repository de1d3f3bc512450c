#pragma once

#include <QByteArray>
#include <QtGlobal>

#include <functional>
#include <vector>

namespace lantern::bench {

// Every bench uid is "1" followed by 12 digits, UidBase + k with k < keyspace: the shape
// redis-benchmark gives "1__rand_int__" (it writes k as 12 zero-padded digits), so the library and
// redis-benchmark send arguments of the same length and the server stores them the same way.
inline constexpr qint64 UidBase = 1'000'000'000'000;
inline constexpr qint64 MaxKeyspace = 2'147'483'647;  // redis-benchmark -r is an int
/** A uid no sample contains: the one whose command line is captured from the slow log. */
inline constexpr qint64 SentinelUid = UidBase + 999'999'999'999;
/** What takes the uid's place in the command given to redis-benchmark. */
inline const QByteArray RandomUid = QByteArrayLiteral("1__rand_int__");

/** `count` distinct uids UidBase + [0, keyspace) in random order (Floyd's sample, then a shuffle). */
std::vector<qint64> sampleUids(qint64 count, qint64 keyspace, quint64 seed);
/** `count` distinct uids UidBase + [0, keyspace), drawn at random until `keep` has accepted that
    many; throws when it accepts too few (under one in 100,000 draws). */
std::vector<qint64> sampleUidsWhere(qint64 count, qint64 keyspace, quint64 seed, const std::function<bool(qint64 uid)> &keep);

} // namespace lantern::bench
