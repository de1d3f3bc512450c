#pragma once

#include "console/queues/queuesnapshot.h"

#include <QList>
#include <QObject>
#include <QString>

#include <optional>

class QSettings;

namespace lantern {

/** When the console alerts, for one connection profile (kept in the console's settings under the
    profile's name: a profile file is what `lanternd --profile` reads, and it takes no other keys). */
struct AlertThresholds {
    bool deadLetters = true;     // dead letters appeared
    bool workerDied = true;      // a known worker's heartbeat expired
    bool ledger = true;          // the workers' ledger check found a campaign unbalanced
    qint64 backlogDepth = 1000;  // backlog growing: above this many entries...
    int backlogMinutes = 10;     // ...for this long, and more at the end than at the start (0: off)

    bool operator==(const AlertThresholds &other) const = default;

    /** The thresholds of `profile` in `settings` ("alerts/<profile>/..."); defaults where unset. */
    static AlertThresholds load(const QSettings &settings, const QString &profile);
    void save(QSettings &settings, const QString &profile) const;
};

/** One condition of the console's alerts, as the operator reads it. */
struct ConsoleAlert {
    enum class Kind { DeadLetters, WorkerDied, BacklogGrowing, LedgerUnbalanced };
    Kind kind = Kind::DeadLetters;
    QString text;  // one sentence, translated
    QString view;  // the view that shows it: "queues" or "campaigns"
};

/** The console's own alerts (issue 27), from the snapshots the Queues view already reads (it
    samples while hidden too): no read of its own. A condition raises an alert once, when it
    becomes true; it is not raised again until it has cleared. */
class ConsoleAlertMonitor final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConsoleAlertMonitor)

public:
    static constexpr int MaxSamples = 2000;  // the backlog's history is bounded

    explicit ConsoleAlertMonitor(QObject *parent = nullptr);
    ~ConsoleAlertMonitor() override;

    /** New thresholds (another profile): the alerts start over. */
    void setThresholds(const AlertThresholds &thresholds);
    const AlertThresholds &thresholds() const { return m_thresholds; }
    /** Evaluates every condition on a new snapshot. */
    void observe(const QueueSnapshot &snapshot);
    /** The alerts now active, in Kind order. */
    QList<ConsoleAlert> active() const;

Q_SIGNALS:
    void raised(const lantern::ConsoleAlert &alert);
    void cleared(lantern::ConsoleAlert::Kind kind);
    /** The active set changed (an alert raised or cleared). */
    void changed();

private:
    std::optional<ConsoleAlert> evaluate(ConsoleAlert::Kind kind, const QueueSnapshot &snapshot) const;
    std::optional<ConsoleAlert> backlogGrowing(qint64 nowMs) const;

    AlertThresholds m_thresholds;
    QList<std::optional<ConsoleAlert>> m_active;  // by Kind
    QList<std::pair<qint64, qint64>> m_backlog;   // (read at, total depth), oldest first
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::ConsoleAlert)
Q_DECLARE_METATYPE(lantern::ConsoleAlert::Kind)
