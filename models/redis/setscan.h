#pragma once

#include <QByteArray>
#include <QByteArrayList>

namespace lantern {

class RedisClient;

/** A set's members (issue 26), read in bounded commands: its size and a first SSCAN page of
    about `count` in one round trip (a small set is all there); a set of up to `wholeUpTo`
    members then with one SMEMBERS (at 1,000 members ~60 us on the server, where its SSCAN pages
    cost ~500 us in all, each walking the set's table again), a larger one in further pages.
    Members are returned once each (SSCAN may return one twice while the set is rehashed). */
QByteArrayList scanSet(RedisClient &redis, const QByteArray &key, int count = 100, qint64 wholeUpTo = 2000);

} // namespace lantern
