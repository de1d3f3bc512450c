#include "console/campaigns/timetablemodel.h"

#include <QDateTime>

namespace lantern {

TimetableModel::TimetableModel(QObject *parent) : QAbstractTableModel(parent) {}

void TimetableModel::setOverview(const TimetableOverview &overview)
{
    beginResetModel();
    m_overview = overview;
    m_nowMs = overview.serverNowMs;
    endResetModel();
}

void TimetableModel::setServerNow(qint64 serverNowMs)
{
    m_nowMs = serverNowMs;
    if (!m_overview.entries.isEmpty())
        Q_EMIT dataChanged(index(0, Countdown), index(rowCount() - 1, Countdown), {Qt::DisplayRole, ValueRole});
}

QString TimetableModel::timeText(qint64 ms) const
{
    return QDateTime::fromMSecsSinceEpoch(ms, m_zone).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString TimetableModel::durationText(qint64 ms)
{
    const qint64 seconds = std::max<qint64>(0, ms) / 1000;
    if (seconds >= 86400)
        return tr("%1 d %2 h").arg(seconds / 86400).arg((seconds % 86400) / 3600);
    if (seconds >= 3600)
        return tr("%1 h %2 min").arg(seconds / 3600).arg((seconds % 3600) / 60, 2, 10, QLatin1Char('0'));
    if (seconds >= 60)
        return tr("%1 min %2 s").arg(seconds / 60).arg(seconds % 60, 2, 10, QLatin1Char('0'));
    return tr("%1 s").arg(seconds);
}

int TimetableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_overview.entries.size());
}

int TimetableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString TimetableModel::countdownText(const TimetableEntry &entry) const
{
    const ScheduledTransition &row = entry.transition;
    switch (row.state) {
    case ScheduledTransition::State::Pending:
        if (row.dueAtMs > m_nowMs)
            return tr("in %1").arg(durationText(row.dueAtMs - m_nowMs));
        //: A scheduled transition whose time has passed and that no worker has made yet.
        return tr("overdue by %1").arg(durationText(m_nowMs - row.dueAtMs));
    case ScheduledTransition::State::Done:
        if (!row.lateMs)
            return {};
        //: How long after its time a scheduled transition was made.
        return tr("%1 s late").arg(double(*row.lateMs) / 1000.0, 0, 'f', 1);
    case ScheduledTransition::State::Missed:
        return {};
    }
    return {};
}

QString TimetableModel::stateText(const TimetableEntry &entry) const
{
    const ScheduledTransition &row = entry.transition;
    switch (row.state) {
    case ScheduledTransition::State::Pending:
        return tr("Pending");
    case ScheduledTransition::State::Done:
        return row.reason.isEmpty() ? tr("Done") : tr("Done (%1)").arg(row.reason);
    case ScheduledTransition::State::Missed:
        //: %1: why it was not made, as the worker recorded it.
        return tr("Missed: %1").arg(row.reason);
    }
    return {};
}

QVariant TimetableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TimetableEntry &entry = m_overview.entries.at(index.row());
    const ScheduledTransition &row = entry.transition;
    const bool pendingLaunch = row.action == ScheduledAction::Launch && row.state == ScheduledTransition::State::Pending;
    // Four eyes (issue 25): a pending launch above the bound goes live only once approved.
    const bool approvalMatters = pendingLaunch && entry.needsApproval;
    if (role == ValueRole) {
        switch (index.column()) {
        case Due: return row.dueAtMs;
        case Countdown: return row.dueAtMs - m_nowMs;
        case Prepared: return pendingLaunch ? QVariant(entry.prepared) : QVariant();
        case Approved: return approvalMatters ? QVariant(!entry.approvedBy.isEmpty()) : QVariant();
        case State: return ScheduledTransition::stateName(row.state);
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == Prepared && pendingLaunch)
        return entry.prepared ? tr("Its envelopes are in SQL and its pool in Redis: going live is one status change.")
                              : tr("Not prepared yet: a worker prepares a launch in the 15 minutes before its time.");
    if (role == Qt::ToolTipRole && index.column() == Approved && approvalMatters)
        return entry.approvedBy.isEmpty()
                       ? tr("Above the four-eyes bound: a manager other than its creator must approve it before its time, or the launch is missed.")
                       : tr("Approved by %1.").arg(entry.approvedBy);
    if (role == Qt::ToolTipRole && index.column() == State && !row.reason.isEmpty())
        return row.reason;
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Campaign: return entry.campaignName.isEmpty() ? QStringLiteral("#%1").arg(row.campaignId) : QStringLiteral("#%1 %2").arg(row.campaignId).arg(entry.campaignName);
    case Transition: return row.action == ScheduledAction::Launch ? tr("Launch") : tr("Close");
    case Due: return timeText(row.dueAtMs);
    case Countdown: return countdownText(entry);
    case Prepared: return pendingLaunch ? (entry.prepared ? QStringLiteral("✓") : tr("not yet")) : QString();
    //: The four-eyes approval of a scheduled launch: approved (by whom) or still awaited.
    case Approved: return approvalMatters ? (entry.approvedBy.isEmpty() ? tr("awaiting") : QStringLiteral("✓ %1").arg(entry.approvedBy)) : QString();
    case State: return stateText(entry);
    case ScheduledBy: return row.scheduledBy;
    default: return {};
    }
}

QVariant TimetableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Campaign: return tr("Campaign");
    case Transition: return tr("Transition");
    case Due: return tr("Time");
    case Countdown: return tr("Countdown");
    case Prepared: return tr("Prepared");
    case Approved: return tr("Approved");
    case State: return tr("State");
    case ScheduledBy: return tr("Scheduled by");
    default: return {};
    }
}

} // namespace lantern
