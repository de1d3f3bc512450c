#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace lantern {

class KeySchema;
class RedisClient;
class ReliableQueue;

/** What `recover` reports (DESIGN §6). */
struct RecoveryReport {
    qint64 reclaimed = 0;     // workers whose backup lists were taken over
    qint64 requeued = 0;      // entries put back at the front of their queue
    qint64 completed = 0;     // entries already done in SQL, simply acknowledged
    qint64 deadLettered = 0;  // malformed entries set aside
    QStringList workers;      // whose lists were reclaimed
};

/** One family of reliable queues (check-in logs, payout tasks) that can take back what a
    worker left in its backup lists. */
class BackupReclaimer {
public:
    virtual ~BackupReclaimer() = default;
    /** Checks each entry of the worker's backup lists against SQL: acknowledges what is done,
        re-queues the rest, dead-letters what cannot be parsed. Returns whether it found any. */
    virtual bool reclaim(const QString &workerId, RecoveryReport &report) = 0;
};

/** Takes back one backup list: entries `isDone` reports complete are acknowledged, entries it
    cannot parse (std::nullopt) go to dead letter, the rest return to the front of the queue.
    Returns whether the list held anything. */
bool reclaimBackup(RedisClient &redis, const ReliableQueue &queue,
                   const std::function<std::optional<bool>(const QByteArray &entry)> &isDone, RecoveryReport &report);

/** Crash recovery (DESIGN §4): finds workers whose heartbeat expired (or one named worker, an
    operator's decision), lets every queue family reclaim their backup lists, then forgets them. */
class BackupQueueRecovery final {
public:
    BackupQueueRecovery(RedisClient &redis, const KeySchema &keys, QList<BackupReclaimer *> reclaimers);

    RecoveryReport recover(const std::optional<QString> &onlyWorker = std::nullopt);

private:
    RedisClient &m_redis;
    const KeySchema &m_keys;
    QList<BackupReclaimer *> m_reclaimers;
};

} // namespace lantern
