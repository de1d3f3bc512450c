#pragma once

#include <QByteArray>

#include <functional>

namespace lantern {
class KeySchema;
class RedisClient;
}

namespace lantern::test {

/** Keys matching `pattern` on every master (SCAN with a cursor per master; one server: itself). */
qint64 countKeys(RedisClient &redis, const QByteArray &pattern);

/** `lanternd migrate-redis`'s scenario (issue 11), on one server or a Redis Cluster: 300 users'
    check-ins written in the old layout (per-user bitmaps, make-up bitmaps, per-day sets, as the
    old checkin.lua left them) move to the block layout while check-ins keep arriving between
    the migration's pages; every user's calendar, streak (monthly and rolling) and make-up count
    after it is what the old keys said plus the new check-ins. A dry run writes nothing; a second
    run finds nothing; no old key is left. `oldWritten` runs once the old layout is in place.
    Fails the current test (QCOMPARE) on the first difference. */
void migratesWhileCheckinsArrive(RedisClient &redis, const KeySchema &keys, const std::function<void()> &oldWritten = {});

} // namespace lantern::test
