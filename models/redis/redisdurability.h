#pragma once

#include <QCoreApplication>
#include <QString>

namespace lantern {

class RedisClient;

/** How much a Redis server can forget of what it acknowledged if it (or its machine) crashes:
    its persistence settings as CONFIG GET reports them (docs/durability.md). */
struct RedisDurability {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisDurability)

public:
    enum class Loss {
        None,        // appendonly yes, appendfsync always: every write on disk before its reply
        OneSecond,   // appendfsync everysec: up to ~1 s (2 s when the disk stalls) after an OS crash
        OsFlush,     // appendfsync no: what the kernel has not flushed yet, ~30 s
        SinceSave,   // no AOF: everything since the last RDB snapshot
        Everything,  // no AOF and no snapshots (save ""): a restart starts empty
        Unknown,     // CONFIG is not allowed (a managed Redis): nobody can tell from here
    };

    Loss loss = Loss::Unknown;
    QString appendOnly;   // as the server says, e.g. "yes"
    QString appendFsync;  // "always", "everysec", "no"
    QString save;         // the snapshot schedule, e.g. "3600 1 300 100"; empty: never

    /** Two round trips per master (CONFIG GET append*, CONFIG GET save): the weakest master's
        settings on a cluster. A refused CONFIG gives Unknown, never an error. */
    static RedisDurability read(RedisClient &redis);
    /** Whether an acknowledged grab can vanish in a crash of this server alone. */
    bool canLoseAcknowledgedWrites() const { return loss != Loss::None; }
    /** Plain words for operators: what a crash loses; empty when nothing. */
    QString warning() const;
};

} // namespace lantern
