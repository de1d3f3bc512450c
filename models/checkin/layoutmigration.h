#pragma once

#include <QCoreApplication>

#include <functional>

namespace lantern {

class KeySchema;
class RedisClient;

/** What `lanternd migrate-redis` reports (and its progress lines). */
struct LayoutMigrationReport {
    bool dryRun = false;
    qint64 scanned = 0;          // old sign bitmaps found (user-months)
    qint64 migrated = 0;         // user-months moved into the blocks now
    qint64 daySets = 0;          // old per-day uid sets found
    qint64 daySetsRemoved = 0;   // ... and removed
};

/** Moves check-in state from the per-user bitmaps and per-day sets (the layout before issue 11)
    to the block layout, online: each user-month moves in one script (checkin_migrate.lua) that
    ORs it into what check-ins wrote there meanwhile and removes the old keys, so the migration
    can stop anywhere and run again (resumable, idempotent). The per-day sets hold nothing the
    blocks do not, and are removed after the bitmaps. Finds old keys with SCAN MATCH on every
    master of a Redis Cluster, a cursor each (one server: itself); each user-month's keys share
    its {ck:S} tag, so each move is one slot (checked: bad input otherwise, nothing sent). */
class LayoutMigration final {
    Q_DECLARE_TR_FUNCTIONS(lantern::LayoutMigration)

public:
    using Progress = std::function<void(const LayoutMigrationReport &)>;

    LayoutMigration(RedisClient &redis, const KeySchema &keys, int scanCount = 1000) : m_redis(redis), m_keys(keys), m_scanCount(scanCount) {}

    /** Migrates everything (dry run: counts, writes nothing); `progress` after each SCAN page. */
    LayoutMigrationReport run(bool dryRun, const Progress &progress = {});

private:
    /** SCANs the keys matching `pattern`, a page at a time, on every master. */
    void scan(const QByteArray &pattern, const std::function<void(const QByteArrayList &)> &page);
    /** UNLINKs `keys`, one command per slot; returns how many went. */
    qint64 unlink(const QByteArrayList &keys);
    qint64 migratePage(const QByteArrayList &signKeys);

    RedisClient &m_redis;
    const KeySchema &m_keys;
    int m_scanCount;
};

} // namespace lantern
