#include "console/queues/queueworkermodel.h"

#include "console/common/tabletext.h"
#include "console/queues/queueformat.h"

#include <QLocale>

namespace lantern {

QueueWorkerModel::QueueWorkerModel(QObject *parent) : QAbstractTableModel(parent) {}

void QueueWorkerModel::setWorkers(const QList<WorkerStatus> &workers, int heartbeatTtlS)
{
    m_ttlS = heartbeatTtlS;
    bool sameRows = workers.size() == m_workers.size();
    for (qsizetype i = 0; i < workers.size() && sameRows; ++i)
        sameRows = workers.at(i).id == m_workers.at(i).id;
    if (sameRows) {
        m_workers = workers;
        if (!m_workers.isEmpty())
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_workers = workers;
    endResetModel();
}

int QueueWorkerModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_workers.size());
}

int QueueWorkerModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant QueueWorkerModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const WorkerStatus &worker = m_workers.at(index.row());
    switch (role) {
    case Qt::TextAlignmentRole:
        return index.column() == Worker || index.column() == State ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case QueueFormat::ToneRole:
        if (index.column() == State)
            return int(worker.alive ? QueueFormat::Tone::Good : QueueFormat::Tone::Bad);
        if (index.column() == InFlight && !worker.alive && worker.backupDepth > 0)
            return int(QueueFormat::Tone::Warning);
        // Most of its calls failing: the provider is in trouble (or refuses us).
        if (index.column() == ProviderErrors && worker.payouts && worker.payouts->calls > 0
            && worker.payouts->providerErrors * 2 > worker.payouts->calls)
            return int(QueueFormat::Tone::Warning);
        return int(QueueFormat::Tone::Neutral);
    case Qt::ToolTipRole:
        switch (Column(index.column())) {
        case State:
            return worker.alive ? tr("Its heartbeat is renewed every few seconds and expires after %n s.", nullptr, m_ttlS)
                                : tr("No heartbeat for more than %n s: what it holds waits for recovery (see Recovery).", nullptr, m_ttlS);
        case InFlight:
            return tr("Tasks in its backup lists: claimed, not yet settled.");
        case PayoutRate:
            return tr("Payouts the provider confirmed per second, between the worker's last two heartbeats.");
        case PayoutCalls:
            return tr("Calls to the payout provider waiting for an answer at its last heartbeat (at most lanternd work --in-flight).");
        case ProviderErrors:
            return worker.payouts ? tr("Calls that did not come back paid (timeouts, 5xx, refusals), of %1 calls since the worker started; "
                                       "each is retried with the same idempotency key.")
                                            .arg(QLocale().toString(worker.payouts->calls))
                                  : QVariant();
        default:
            return {};
        }
    case TableText::ExportRole:
        // Values: alive as true/false, the last beat in seconds, counts and rates as numbers.
        return QVariantList{data(index, QueueFormat::ValueRole)};
    case QueueFormat::ValueRole:
        switch (Column(index.column())) {
        case Worker:
            return worker.id;
        case State:
            return worker.alive;
        case LastBeat:
            return worker.lastBeatS ? QVariant(*worker.lastBeatS) : QVariant();
        case InFlight:
            return worker.backupDepth;
        case PayoutRate:
            return worker.payouts ? QVariant(worker.payouts->paidPerSecond) : QVariant();
        case PayoutCalls:
            return worker.payouts ? QVariant(worker.payouts->inFlight) : QVariant();
        case ProviderErrors:
            return worker.payouts ? QVariant(worker.payouts->providerErrors) : QVariant();
        case ColumnCount:
            break;
        }
        return {};
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case Worker:
            return worker.id;
        case State:
            return worker.alive ? tr("Alive") : tr("Dead");
        case LastBeat:
            return worker.alive ? tr("%1 ago").arg(QueueFormat::age(worker.lastBeatS)) : tr("expired");
        case InFlight:
            return QLocale().toString(worker.backupDepth);
        case PayoutRate:
            return worker.payouts ? QLocale().toString(worker.payouts->paidPerSecond, 'f', 1) : QStringLiteral("—");
        case PayoutCalls:
            return worker.payouts ? QLocale().toString(worker.payouts->inFlight) : QStringLiteral("—");
        case ProviderErrors:
            return worker.payouts ? QLocale().toString(worker.payouts->providerErrors) : QStringLiteral("—");
        case ColumnCount:
            break;
        }
        return {};
    default:
        return {};
    }
}

QVariant QueueWorkerModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == TableText::ExportRole && section == LastBeat)
        return QStringList{tr("Last heartbeat (s ago)")};
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Worker:
        return tr("Worker");
    case State:
        return tr("State");
    case LastBeat:
        return tr("Last heartbeat");
    case InFlight:
        return tr("In flight");
    case PayoutRate:
        return tr("Payouts/s");
    case PayoutCalls:
        return tr("Calls out");
    case ProviderErrors:
        return tr("Provider errors");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace lantern
