#pragma once

#include "checkin/reconciler.h"

#include <QDate>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>

namespace lantern {

/** One entry of a dead worker's backup list, with what SQL (and the payout provider) say about
    it, and so what compensation will do with it (as BackupQueueRecovery decides). */
struct RecoveryTask {
    enum class Kind { Checkin, Payout, Unreadable };
    enum class Outcome {
        Complete,    // SQL has it done: acknowledged
        Requeue,     // back to the front of its queue
        DeadLetter,  // unreadable: set aside
    };

    Kind kind = Kind::Unreadable;
    QString queue;  // "checkin" or "payout:<campaign id>"
    QByteArray raw;
    qint64 uid = 0;
    QDate date;               // check-ins
    QString checkinKind;      // "normal" / "makeup"
    qint64 campaignId = 0;    // payouts
    qint64 seq = 0;
    qint64 amountCents = 0;
    qint64 atMs = 0;
    bool persisted = false;   // check-in: its checkin_log row; payout: its grab row
    QString payoutStatus;     // payout.status ("paid", "pending", "failed"); empty: no row yet
    std::optional<qint64> providerPaidCents;  // what the simulated provider's ledger paid; none: nothing or unknown
    Outcome outcome = Outcome::DeadLetter;
};

/** A worker whose heartbeat expired, and the (first MaxTasksShown) tasks it still holds. */
struct DeadWorkerBacklog {
    QString id;
    qint64 backupDepth = 0;  // every backup list together
    QList<RecoveryTask> tasks;
};

/** DESIGN §4's invariants for a campaign touched by recovery, as CampaignVerifier sees them. */
struct LedgerCheck {
    enum class State {
        Balanced,  // verified, nothing in flight: invariant 3 checked and holds
        Waiting,   // no violation, but tasks are still queued or held: invariant 3 not checkable yet
        Broken,    // violations
    };
    qint64 campaignId = 0;
    QString name;
    State state = State::Waiting;
    qint64 queued = 0;      // in its task queue
    qint64 inFlight = 0;    // in live workers' backup lists
    qint64 heldByDead = 0;  // in dead workers' backup lists
    QStringList violations;
};

struct RecoverySnapshot {
    QList<DeadWorkerBacklog> workers;
    QList<LedgerCheck> ledger;
    QDate today;
    qint64 readAtMs = 0;
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::RecoverySnapshot)
Q_DECLARE_METATYPE(lantern::ReconcileReport)
