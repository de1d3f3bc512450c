#include "console/recovery/recoverytaskmodel.h"

#include "console/common/campaignmoney.h"
#include "console/queues/queueformat.h"

#include <QLocale>

namespace lantern {

// internalId: 0 for a worker row; worker row + 1 for a task row.

RecoveryTaskModel::RecoveryTaskModel(QObject *parent) : QAbstractItemModel(parent) {}

void RecoveryTaskModel::setWorkers(const QList<DeadWorkerBacklog> &workers)
{
    beginResetModel();
    m_workers = workers;
    endResetModel();
}

QStringList RecoveryTaskModel::workerIds() const
{
    QStringList ids;
    for (const DeadWorkerBacklog &worker : m_workers)
        ids << worker.id;
    return ids;
}

QModelIndex RecoveryTaskModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, quintptr(0));
    if (parent.internalId() != 0)
        return {};
    return createIndex(row, column, quintptr(parent.row() + 1));
}

QModelIndex RecoveryTaskModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(int(child.internalId() - 1), 0, quintptr(0));
}

int RecoveryTaskModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_workers.size());
    if (parent.internalId() != 0 || parent.column() != 0)
        return 0;
    return int(m_workers.at(parent.row()).tasks.size());
}

int RecoveryTaskModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant RecoveryTaskModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (index.internalId() == 0)
        return workerData(m_workers.at(index.row()), index.column(), role);
    const DeadWorkerBacklog &worker = m_workers.at(int(index.internalId() - 1));
    if (role == WorkerRole)
        return worker.id;
    return taskData(worker.tasks.at(index.row()), index.column(), role);
}

QVariant RecoveryTaskModel::workerData(const DeadWorkerBacklog &worker, int column, int role) const
{
    if (role == WorkerRole)
        return worker.id;
    if (role == QueueFormat::ValueRole) {
        switch (Column(column)) {
        case Item:
            return worker.id;
        case Queue:
            return worker.backupDepth;
        case OnCompensation: {
            qint64 requeue = 0;
            for (const RecoveryTask &task : worker.tasks)
                requeue += task.outcome == RecoveryTask::Outcome::Complete ? 0 : 1;
            return requeue;
        }
        default:
            return {};
        }
    }
    if (role == QueueFormat::ToneRole)
        return int(column == Item ? QueueFormat::Tone::Bad : QueueFormat::Tone::Neutral);
    if (role == Qt::ToolTipRole && column == Item)
        return tr("Heartbeat expired: this worker is gone, and what its backup lists hold waits for compensation.");
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(column)) {
    case Item:
        return worker.id;
    case Queue:
        if (worker.backupDepth > worker.tasks.size())
            return tr("%n task(s) held, first %1 shown", nullptr, int(worker.backupDepth)).arg(worker.tasks.size());
        return tr("%n task(s) held", nullptr, int(worker.backupDepth));
    case OnCompensation: {
        qint64 complete = 0;
        for (const RecoveryTask &task : worker.tasks)
            complete += task.outcome == RecoveryTask::Outcome::Complete ? 1 : 0;
        if (worker.tasks.isEmpty())
            return tr("Forget the worker");
        return tr("%1 complete, %2 re-queue").arg(complete).arg(worker.tasks.size() - complete);
    }
    default:
        return {};
    }
}

QVariant RecoveryTaskModel::taskData(const RecoveryTask &task, int column, int role) const
{
    const bool payout = task.kind == RecoveryTask::Kind::Payout;
    if (role == OutcomeRole)
        return int(task.outcome);
    if (role == Qt::ToolTipRole)
        return QString::fromUtf8(task.raw);
    if (role == QueueFormat::ValueRole)
        return taskValue(task, column);
    if (role == QueueFormat::ToneRole) {
        QueueFormat::Tone tone = QueueFormat::Tone::Neutral;
        if (column == OnCompensation)
            tone = task.outcome == RecoveryTask::Outcome::Complete ? QueueFormat::Tone::Good
                 : task.outcome == RecoveryTask::Outcome::Requeue  ? QueueFormat::Tone::Warning
                                                                   : QueueFormat::Tone::Bad;
        else if (column == Persisted && task.kind != RecoveryTask::Kind::Unreadable)
            tone = task.persisted ? QueueFormat::Tone::Good : QueueFormat::Tone::Neutral;
        else if (column == Payout && payout)
            tone = task.payoutStatus == QLatin1String("paid") ? QueueFormat::Tone::Good : QueueFormat::Tone::Neutral;
        return int(tone);
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(column)) {
    case Item:
        if (task.kind == RecoveryTask::Kind::Checkin)
            return task.checkinKind == QLatin1String("makeup") ? tr("User %1 on %2 (make-up)").arg(task.uid).arg(task.date.toString(Qt::ISODate))
                                                               : tr("User %1 on %2").arg(task.uid).arg(task.date.toString(Qt::ISODate));
        if (payout)
            return tr("Envelope %1: %2 to user %3").arg(task.seq).arg(formatYuan(task.amountCents)).arg(task.uid);
        return tr("Unreadable entry");
    case Queue:
        return QueueFormat::queueTitle(task.queue);
    case Persisted:
        if (task.kind == RecoveryTask::Kind::Checkin)
            return task.persisted ? tr("Log row saved") : tr("No log row");
        if (payout)
            return task.persisted ? tr("Grab row saved") : tr("No grab row");
        return QStringLiteral("—");
    case Payout: {
        if (!payout)
            return QStringLiteral("—");
        QString state;
        if (task.payoutStatus.isEmpty())
            state = tr("No payout row");
        else if (task.payoutStatus == QLatin1String("paid"))
            state = tr("Paid");
        else if (task.payoutStatus == QLatin1String("pending"))
            state = tr("Pending");
        else if (task.payoutStatus == QLatin1String("failed"))
            state = tr("Failed");
        else
            state = task.payoutStatus;
        if (task.providerPaidCents && task.payoutStatus != QLatin1String("paid"))
            state += QStringLiteral(" · ") + tr("provider paid %1").arg(formatYuan(*task.providerPaidCents));
        return state;
    }
    case OnCompensation:
        switch (task.outcome) {
        case RecoveryTask::Outcome::Complete:
            return tr("Complete (done in SQL)");
        case RecoveryTask::Outcome::Requeue:
            return tr("Re-queue");
        case RecoveryTask::Outcome::DeadLetter:
            return tr("Dead-letter");
        }
        return {};
    case ColumnCount:
        break;
    }
    return {};
}

QVariant RecoveryTaskModel::taskValue(const RecoveryTask &task, int column)
{
    switch (Column(column)) {
    case Item: {
        // Check-ins by user and day, then envelopes by campaign and seq, then unreadable entries:
        // one text key, numbers padded so that they compare as numbers.
        const auto padded = [](qint64 n) { return QStringLiteral("%1").arg(n, 20, 10, QLatin1Char('0')); };
        if (task.kind == RecoveryTask::Kind::Checkin)
            return QString(QStringLiteral("1 ") + padded(task.uid) + QLatin1Char(' ') + task.date.toString(Qt::ISODate));
        if (task.kind == RecoveryTask::Kind::Payout)
            return QString(QStringLiteral("2 ") + padded(task.campaignId) + QLatin1Char(' ') + padded(task.seq));
        return QString(QStringLiteral("3 ") + QString::fromUtf8(task.raw));
    }
    case Queue:
        return task.queue;
    case Persisted:
        return task.kind == RecoveryTask::Kind::Unreadable ? -1 : int(task.persisted);
    case Payout: {
        if (task.kind != RecoveryTask::Kind::Payout)
            return -1;
        static const QStringList Progress{QString(), QStringLiteral("failed"), QStringLiteral("pending"), QStringLiteral("paid")};
        const qsizetype rank = Progress.indexOf(task.payoutStatus);
        return int(rank < 0 ? Progress.size() : rank);
    }
    case OnCompensation:
        return int(task.outcome);
    case ColumnCount:
        break;
    }
    return {};
}

QVariant RecoveryTaskModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Item:
        return tr("Worker / task");
    case Queue:
        return tr("Queue");
    case Persisted:
        return tr("In SQL");
    case Payout:
        return tr("Payout");
    case OnCompensation:
        return tr("Compensation will");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace lantern
