#pragma once

#include "redis/redisurl.h"

#include <QString>

namespace lantern::bench {

/** Moves one slot from its master to another while clients use it, as `redis-cli --cluster
    reshard` does: SETSLOT IMPORTING on the target, MIGRATING on the source, MIGRATE of the
    slot's keys a few at a time (so clients meet the half-moved slot: ASK, TRYAGAIN), then SETSLOT
    NODE on the target, the source and every other master. Its own connections (`admin`). */
class LiveReshard final {
public:
    explicit LiveReshard(RedisUrl admin) : m_admin(std::move(admin)) {}

    struct Move {
        QString from;   // host:port
        QString to;
        int keys = 0;   // keys MIGRATEd
        int batches = 0;
        double milliseconds = 0;  // from IMPORTING to the last SETSLOT NODE
    };
    /** Moves `slot` to the master after its current one (masters in host:port order, so
        repeated moves visit every master in turn). Throws on any error. */
    Move moveToNextMaster(int slot, int keysPerMigrate = 1);
    /** Moves `slot` to the master at `target` (host:port); nothing to do when it serves it. */
    Move moveTo(int slot, const QString &target, int keysPerMigrate = 1);

private:
    RedisUrl m_admin;
};

} // namespace lantern::bench
