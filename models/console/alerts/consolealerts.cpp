#include "console/alerts/consolealerts.h"

#include <QSettings>

#include <algorithm>

namespace lantern {

namespace {

constexpr int KindCount = 4;
constexpr int NamesShown = 3;  // the workers or campaigns an alert names before "and N more"

QString key(const QString &profile, const char *name)
{
    // A profile name is [A-Za-z0-9_.-]: safe as a settings group; the sandbox and the command
    // line's servers have none.
    return QStringLiteral("alerts/") + (profile.isEmpty() ? QStringLiteral("-") : profile) + u'/' + QLatin1String(name);
}

QString named(const QStringList &names)
{
    if (names.size() <= NamesShown)
        return names.join(QStringLiteral(", "));
    return ConsoleAlertMonitor::tr("%1 and %n more", nullptr, int(names.size() - NamesShown)).arg(names.first(NamesShown).join(QStringLiteral(", ")));
}

} // namespace

AlertThresholds AlertThresholds::load(const QSettings &settings, const QString &profile)
{
    AlertThresholds thresholds;
    thresholds.deadLetters = settings.value(key(profile, "dead-letters"), thresholds.deadLetters).toBool();
    thresholds.workerDied = settings.value(key(profile, "worker-died"), thresholds.workerDied).toBool();
    thresholds.ledger = settings.value(key(profile, "ledger"), thresholds.ledger).toBool();
    thresholds.backlogDepth = std::max<qint64>(0, settings.value(key(profile, "backlog-depth"), thresholds.backlogDepth).toLongLong());
    thresholds.backlogMinutes = std::clamp(settings.value(key(profile, "backlog-minutes"), thresholds.backlogMinutes).toInt(), 0, 24 * 60);
    return thresholds;
}

void AlertThresholds::save(QSettings &settings, const QString &profile) const
{
    settings.setValue(key(profile, "dead-letters"), deadLetters);
    settings.setValue(key(profile, "worker-died"), workerDied);
    settings.setValue(key(profile, "ledger"), ledger);
    settings.setValue(key(profile, "backlog-depth"), backlogDepth);
    settings.setValue(key(profile, "backlog-minutes"), backlogMinutes);
}

ConsoleAlertMonitor::ConsoleAlertMonitor(QObject *parent) : QObject(parent), m_active(KindCount)
{
    qRegisterMetaType<ConsoleAlert>();
}

ConsoleAlertMonitor::~ConsoleAlertMonitor() = default;

void ConsoleAlertMonitor::setThresholds(const AlertThresholds &thresholds)
{
    m_thresholds = thresholds;
    m_backlog.clear();
    const bool any = std::any_of(m_active.cbegin(), m_active.cend(), [](const auto &alert) { return alert.has_value(); });
    m_active = QList<std::optional<ConsoleAlert>>(KindCount);
    if (any)
        Q_EMIT changed();
}

QList<ConsoleAlert> ConsoleAlertMonitor::active() const
{
    QList<ConsoleAlert> alerts;
    for (const auto &alert : m_active) {
        if (alert)
            alerts << *alert;
    }
    return alerts;
}

void ConsoleAlertMonitor::observe(const QueueSnapshot &snapshot)
{
    qint64 depth = 0;
    for (const QueueStatus &queue : snapshot.overview.queues)
        depth += queue.depth;
    m_backlog.append({snapshot.readAtMs, depth});
    // Only the window the rule looks at is kept (plus the sample just before it), and never more
    // than MaxSamples of it.
    const qint64 windowStart = snapshot.readAtMs - qint64(m_thresholds.backlogMinutes) * 60'000;
    while (m_backlog.size() > 1 && (m_backlog.at(1).first <= windowStart || m_backlog.size() > MaxSamples))
        m_backlog.removeFirst();

    bool moved = false;
    for (int k = 0; k < KindCount; ++k) {
        const auto kind = ConsoleAlert::Kind(k);
        std::optional<ConsoleAlert> now = evaluate(kind, snapshot);
        if (now && !m_active[k]) {
            m_active[k] = now;
            moved = true;
            Q_EMIT raised(*now);
        } else if (!now && m_active[k]) {
            m_active[k].reset();
            moved = true;
            Q_EMIT cleared(kind);
        }
        // Still true: not raised again (its text stays the one first shown).
    }
    if (moved)
        Q_EMIT changed();
}

std::optional<ConsoleAlert> ConsoleAlertMonitor::evaluate(ConsoleAlert::Kind kind, const QueueSnapshot &snapshot) const
{
    const QueueOverview &overview = snapshot.overview;
    switch (kind) {
    case ConsoleAlert::Kind::DeadLetters:
        if (!m_thresholds.deadLetters || overview.deadLetter <= 0)
            return std::nullopt;
        return ConsoleAlert{kind, tr("%n dead letter(s) set aside: they need a person.", nullptr, int(std::min<qint64>(overview.deadLetter, INT_MAX))),
                            QStringLiteral("queues")};
    case ConsoleAlert::Kind::WorkerDied: {
        QStringList dead;
        for (const WorkerStatus &worker : overview.workers) {
            if (!worker.alive)
                dead << worker.id;
        }
        if (!m_thresholds.workerDied || dead.isEmpty())
            return std::nullopt;
        // The Recovery view shows what they hold and recovers it.
        return ConsoleAlert{kind, tr("%n worker(s) stopped beating: %1. What they hold waits for a recovery.", nullptr, int(dead.size())).arg(named(dead)),
                            QStringLiteral("recovery")};
    }
    case ConsoleAlert::Kind::BacklogGrowing:
        return backlogGrowing(snapshot.readAtMs);
    case ConsoleAlert::Kind::LedgerUnbalanced: {
        QStringList campaigns;
        if (snapshot.ledger) {
            for (const LedgerBalance &campaign : snapshot.ledger->campaigns) {
                if (!campaign.balanced)
                    campaigns << QString::number(campaign.campaignId);
            }
        }
        if (!m_thresholds.ledger || campaigns.isEmpty())
            return std::nullopt;
        return ConsoleAlert{kind, tr("The ledger does not balance for %n campaign(s): %1.", nullptr, int(campaigns.size())).arg(named(campaigns)),
                            QStringLiteral("campaigns")};
    }
    }
    return std::nullopt;
}

std::optional<ConsoleAlert> ConsoleAlertMonitor::backlogGrowing(qint64 nowMs) const
{
    if (m_thresholds.backlogMinutes <= 0 || m_backlog.isEmpty())
        return std::nullopt;
    // Growing for the whole window: the samples reach back that far, every one of them is above
    // the threshold, and it ends higher than it began.
    const qint64 windowMs = qint64(m_thresholds.backlogMinutes) * 60'000;
    if (nowMs - m_backlog.first().first < windowMs)
        return std::nullopt;
    const bool above = std::all_of(m_backlog.cbegin(), m_backlog.cend(), [this](const auto &sample) { return sample.second > m_thresholds.backlogDepth; });
    if (!above || m_backlog.last().second <= m_backlog.first().second)
        return std::nullopt;
    return ConsoleAlert{ConsoleAlert::Kind::BacklogGrowing,
                        tr("The backlog has grown for %n minute(s) and holds %1 entries.", nullptr, m_thresholds.backlogMinutes).arg(m_backlog.last().second),
                        QStringLiteral("queues")};
}

} // namespace lantern
