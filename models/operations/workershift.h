#pragma once

#include "checkin/checkindrain.h"
#include "checkin/keptmonthstats.h"
#include "operations/campaigntimetable.h"
#include "envelope/envelopedrain.h"
#include "operations/heartbeatpacer.h"
#include "operations/ledgerbalancecheck.h"
#include "operations/workerheartbeat.h"
#include "queue/backuptally.h"
#include "redis/redisrunwatch.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QString>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace lantern {

class KeySchema;
class PayoutGateway;
class PayoutRateLimit;
class RedisClient;
class SqlConnection;
class SqlWorker;

struct WorkerShiftOptions {
    QString workerId;                       // KeySchema::validateWorkerId
    int batch = 500;                        // entries claimed per queue and batch (lanternd work --batch)
    int inFlight = DefaultPayoutsInFlight;  // payout calls out at once (lanternd work --in-flight)
    const PayoutRateLimit *rate = nullptr;  // LANTERN_PAYOUT_RATE, shared by every worker; null: no limit
    QString errorLogPath;                   // dead letters' log; empty: LANTERN_ERROR_LOG, else <data dir>/lantern/errors.log
    int checkinConnections = 1;             // MySQL: connections a check-in pass is written over at once (CheckinDrain::setWriters)
    int heartbeatTtlS = 15;                 // WorkerHeartbeat::configuredTtlSeconds() for lanternd
    std::chrono::milliseconds slice{250};   // how long a step lets payouts in flight run at most
    std::function<QDate()> today;           // the business day; set: the shift keeps the month's check-in figures (KeptMonthStats)
};

/** What a shift did, since it started. */
struct WorkerShiftStats {
    DrainStats checkins;
    EnvelopeDrainStats payouts;  // payouts.repaired also counts the repairs after a new Redis run_id
    qint64 transitionsMade = 0;  // scheduled launches and closes this worker made (issue 30)
    qint64 transitionsMissed = 0;
    qint64 launchesPrepared = 0;
};

/** The outcome of one WorkerShift::step(). */
struct ShiftStep {
    qint64 work = 0;  // entries claimed, plus 1 while payouts are in flight: another step is wanted at once
    int pauseMs = 0;  // before the next step: 0 (more work), the idle pause, or what is left of an outage's back-off
    QString outage;   // set when this step met an outage: what happened and when it is tried again
};

/** Everything a worker does, in one place (DESIGN §4; `lanternd work` and the console's sandbox
    worker both run it): it keeps a heartbeat with its payout figures (HeartbeatPacer, also while
    payouts are in flight and while it waits out an outage); on a Redis whose run_id changed (a
    restart or failover) it checks every campaign against the ledger and repairs those that lost
    state, each repair audited, before it drains; it keeps the campaigns' timetable
    (CampaignTimetable: launches prepared ahead, transitions made on time, exactly once, and the
    shift wakes for them); once per interval among all workers its steps check the live
    campaigns' balance against the ledger for /metrics (LedgerBalanceCheck; not drainAll, which
    leaves nothing behind); then it drains the check-in log queues
    (CheckinDrain) and the payout task queues (one EnvelopeDrain for the whole shift, so payouts
    stay in flight between steps). On an outage (UnavailableError, and nothing else) it spends the
    drain (what it held is in its backup lists; the next drain takes it over, its counts carried),
    drops its SQL connection (opened again by the next step), and backs off 100 ms → 5 s. finish()
    lets payouts in flight end and records them; retire() ends the shift. Not thread-safe: one
    thread runs a shift, and owns its SQL connection. */
class WorkerShift final {
    Q_DECLARE_TR_FUNCTIONS(lantern::WorkerShift)

public:
    using SqlOpener = std::function<std::unique_ptr<SqlConnection>()>;
    static constexpr int IdlePauseMs = 200;
    static constexpr int FirstBackoffMs = 100;
    static constexpr int MaxBackoffMs = 5000;

    /** Opens SQL at once (throws UnavailableError when it cannot: before the worker registers).
        `gateway` and `options.rate` must outlive the shift. */
    WorkerShift(RedisClient &redis, SqlOpener openSql, const KeySchema &keys, PayoutGateway &gateway, WorkerShiftOptions options);
    ~WorkerShift();
    Q_DISABLE_COPY_MOVE(WorkerShift)

    /** One step: during an outage's back-off only the heartbeat, else a pass over every duty.
        Catches UnavailableError (see the class); any other exception propagates, the drain spent. */
    ShiftStep step();
    /** Passes until one finds nothing to do and no payout is in flight (`lanternd work --once`);
        an outage propagates. */
    void drainAll();
    /** Renews the heartbeat when due; an outage is left for the next step to report. */
    void keepBeating();
    /** Waits for every payout in flight and records it. After an outage they stay in the backup
        lists for recovery: returns the outage's message, else an empty string. */
    QString finish();
    /** Ends the shift: the heartbeat goes; when the shift holds nothing (its last step went
        through and no payout is in flight or unrecorded: finish()) it also leaves the set of
        workers, else it stays known there so that recovery takes back what its backup lists hold. */
    void retire();

    /** From an outage until a step goes through again. */
    bool waitingOutOutage() const { return m_inOutage; }
    const WorkerShiftStats &stats() const { return m_stats; }
    const QString &workerId() const { return m_options.workerId; }
    /** Lines worth an operator's eye (a campaign repaired from the ledger), as they happen. */
    void setReporter(std::function<void(const QString &)> reporter) { m_report = std::move(reporter); }

private:
    qint64 pass();
    SqlConnection &sql();
    void repairIfRedisChanged(SqlConnection &sql);
    /** After an exception: the drain's counts are kept, the drain and the SQL connection dropped. */
    void spend();
    WorkerPayoutFigures payoutFigures() const;

    RedisClient &m_redis;
    SqlOpener m_openSql;
    const KeySchema &m_keys;
    PayoutGateway &m_gateway;
    WorkerShiftOptions m_options;
    std::unique_ptr<SqlConnection> m_sql;
    std::vector<std::unique_ptr<SqlWorker>> m_checkinWriters;
    WorkerHeartbeat m_heartbeat;
    HeartbeatPacer m_pacer;
    RedisRunWatch m_redisRun;
    CampaignTimetable m_timetable;
    LedgerBalanceCheck m_ledgerCheck;
    KeptMonthStats m_monthStats;  // the statistics view's figures, read once a minute by one worker (issue 26)  // the balance of the live campaigns, for /metrics (issue 27)
    std::optional<qint64> m_nextDueInMs;  // the timetable's next transition, as of the last pass
    BackupTally m_held;  // what its drains hold in its backup lists, said with each beat
    std::unique_ptr<EnvelopeDrain> m_drain;  // one for the shift; a new one after an outage
    PayoutCallCounts m_earlierDrains;        // the calls of the drains outages ended
    WorkerShiftStats m_stats;
    std::function<void(const QString &)> m_report;
    int m_backoffMs = FirstBackoffMs;
    QDeadlineTimer m_retryAt;  // while it is running, the shift waits out an outage
    bool m_clean = true;       // the last step (or finish) went through: nothing held back
    bool m_inOutage = false;
};

} // namespace lantern
