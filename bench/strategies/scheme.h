#pragma once

#include <QString>
#include <QtGlobal>

#include <atomic>
#include <limits>
#include <memory>

namespace lantern {
class KeySchema;
class RedisClient;
struct DbUrl;
}

namespace lantern::bench {

/** The six ways to grab an envelope that the red-envelope write-up compares, in its order: each
    meant to be better than the last. 1-5 are bench code; 6 is Lantern's own path. */
enum class Scheme { DistributedLock = 1, OptimisticLock, PessimisticLock, PreallocatedRows, RedisQueue, LanternPath };
inline constexpr int SchemeCount = 6;

/** "distributed lock" and so on, as the tables name them. */
QString schemeName(Scheme scheme);
/** How the scheme grabs, in a few words, for the report's set-up list. */
QString schemeDescription(Scheme scheme);

/** What one grab answered the user. */
enum class GrabAnswer {
    Ok,       // an envelope
    Already,  // the user's earlier envelope
    SoldOut,
    Busy,     // gave up: lock not acquired in time, or the optimistic retries ran out
};

/** Shared by one phase's clients: how the grabs ended and what they met on the way. */
class GrabTally final {
public:
    void count(GrabAnswer answer, qint64 startNs, qint64 endNs);

    std::atomic<qint64> ok{0};
    std::atomic<qint64> already{0};
    std::atomic<qint64> soldOut{0};
    std::atomic<qint64> busy{0};
    std::atomic<qint64> retries{0};     // optimistic updates that found the row taken, deadlocks, failed SET NX
    std::atomic<qint64> duplicates{0};  // a user's second grab that the scheme's own check let through and the unique key stopped
    std::atomic<qint64> firstStartNs{std::numeric_limits<qint64>::max()};  // steady clock
    std::atomic<qint64> lastOkNs{0};

    /** Seconds from the first grab sent to the last envelope handed out. */
    double secondsToSellOut() const;
};

/** What every scheme client is told besides its campaign. */
struct SchemeOptions {
    int optimisticAttempts = 3;  // tries per grab of schemes 2 and 4, then "busy"
    int lockLeaseMs = 3000;      // PX of scheme 1's lock: how long a dead holder blocks the campaign
    int lockWaitMs = 5000;       // how long a grab of scheme 1 waits for the lock, then "busy"
};

/** One client of a scheme: its own connections (opened by makeSchemeClient on the caller's
    thread and used only there), one grab at a time. */
class SchemeClient {
public:
    virtual ~SchemeClient() = default;
    virtual GrabAnswer grab(qint64 uid) = 0;
};

/** A client of `scheme` grabbing from campaign `campaignId` (of that scheme's own tables, or
    Lantern's for scheme 6). `redis` is the client's own connection; schemes 1-5 open their own
    SQL connection to `db`. */
std::unique_ptr<SchemeClient> makeSchemeClient(Scheme scheme, RedisClient &redis, const DbUrl &db, const KeySchema &keys,
                                               qint64 campaignId, const SchemeOptions &options, GrabTally &tally);

/** Scheme 1's lock and scheme 5's pool, under the bench's prefix, tagged by campaign. */
QByteArray schemeLockKey(const KeySchema &keys, qint64 campaignId);
QByteArray schemePoolKey(const KeySchema &keys, qint64 campaignId);

/** Nanoseconds on the steady clock. */
qint64 steadyNs();

} // namespace lantern::bench
