#pragma once

#include "operations/workerheartbeat.h"

#include <QByteArrayList>
#include <QList>
#include <QString>

#include <optional>

namespace lantern {

class KeySchema;
class RedisClient;

/** One queue's backlog: the check-in log queue (all shards together) or one campaign's payout
    task queue. */
struct QueueStatus {
    QString name;                       // "checkin" or "payout:<campaign id>"
    std::optional<qint64> campaignId;   // set for payout queues
    qint64 depth = 0;
    double oldestAgeS = 0;              // age of the task that waits longest; 0 when empty
    qint64 deadLetter = 0;              // entries set aside on this queue's dead-letter list(s)
    qint64 refused = 0;                 // payout queues: grabs the ledger refused (Redis had lost state)
    QString campaignStatus{};           // payout queues: the campaign's status in Redis ("live", ...; empty: lost)
    qint64 remainingEnvelopes = 0;      // payout queues: envelopes left in the campaign's pools
};

/** One backup list of a worker: its key, the queue it belongs to, what it held when read. */
struct BackupList {
    QByteArray key;
    QString queue;                      // "checkin" or "payout:<campaign id>"
    qint64 length = 0;
};

/** One worker that ever claimed work: its heartbeat and what it holds in flight. */
struct WorkerStatus {
    QString id;
    bool alive = false;                 // heartbeat key still there
    std::optional<double> lastBeatS;    // seconds since the last beat, while alive
    qint64 backupDepth = 0;             // entries in its backup lists, every queue together
    /** Whether backupDepth was counted now (LLEN of each list: a dead worker, or one that does not
        say it); else it is what the worker said with its last beat (issue 26). */
    bool depthCounted = false;
    QList<BackupList> held;             // its non-empty lists, when counted
    std::optional<WorkerPayoutFigures> payouts;  // what it said with its last beat, while that lives
};

/** What `lanternd queues` prints and the console's Queues view shows (DESIGN §6). */
struct QueueOverview {
    QList<QueueStatus> queues;          // "checkin" first, then payout queues by campaign id
    QList<WorkerStatus> workers;        // by id
    qint64 deadLetter = 0;              // all dead-letter lists together
    qint64 refused = 0;                 // all campaigns' refused grabs together
    WorkerPayoutFigures payouts;        // the live workers' figures added up

    /** What is read of each live worker. */
    enum class LiveWorkers {
        Figures,   // what it said with its beat (its payout figures, its backup depth): one HMGET each
        Liveness,  // only that it beats (Recovery, issue 26): its depth stays 0, not counted, no figures
    };
    /** Reads it all in two pipelined round trips, plus the worker set in pages (SSCAN) and the
        launched pools: a live worker's backup depth is what its heartbeat says, and only the
        lists of the dead (and of workers that do not say it) are counted, one LLEN each. */
    static QueueOverview read(RedisClient &redis, const KeySchema &keys, qint64 nowMs, LiveWorkers live = LiveWorkers::Figures);
    /** Every backup list `worker` can hold: one per check-in shard, one per launched pool. */
    static QList<BackupList> backupLists(const KeySchema &keys, const QString &worker, const QByteArrayList &pools);
    /** How many known workers have a live heartbeat: the set and one EXISTS each, in two round
        trips, without the backup lists read() goes over (issue 26). */
    static qint64 aliveWorkers(RedisClient &redis, const KeySchema &keys);
};

} // namespace lantern
