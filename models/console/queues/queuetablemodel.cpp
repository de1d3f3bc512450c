#include "console/queues/queuetablemodel.h"

#include "console/common/tabletext.h"
#include "console/queues/queueformat.h"

#include <QLocale>

namespace lantern {

QueueTableModel::QueueTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void QueueTableModel::setQueues(const QList<QueueStatus> &queues)
{
    if (queues.size() == m_queues.size()) {
        // Same rows (the usual refresh): update in place, so selections and scroll stay.
        bool sameNames = true;
        for (qsizetype i = 0; i < queues.size() && sameNames; ++i)
            sameNames = queues.at(i).name == m_queues.at(i).name;
        if (sameNames) {
            m_queues = queues;
            if (!m_queues.isEmpty())
                Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
            return;
        }
    }
    beginResetModel();
    m_queues = queues;
    endResetModel();
}

int QueueTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_queues.size());
}

int QueueTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant QueueTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const QueueStatus &queue = m_queues.at(index.row());
    if (role == NameRole)
        return queue.name;
    if (role == Qt::TextAlignmentRole)
        return index.column() == Name ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == QueueFormat::ToneRole) {
        QueueFormat::Tone tone = QueueFormat::Tone::Neutral;
        if (index.column() == DeadLetter && queue.deadLetter > 0)
            tone = QueueFormat::Tone::Bad;
        else if (index.column() == OldestAge && queue.oldestAgeS >= 60)
            tone = QueueFormat::Tone::Warning;
        return int(tone);
    }
    if (role == Qt::ToolTipRole && index.column() == Name)
        return queue.name;
    if (role == Qt::ToolTipRole && index.column() == DeadLetter && queue.deadLetter > 0)
        return tr("Click to open these dead letters");
    if (role == TableText::ExportRole)
        return index.column() == Name ? QVariant() : QVariantList{data(index, QueueFormat::ValueRole)};  // counts, seconds
    if (role != Qt::DisplayRole && role != QueueFormat::ValueRole)
        return {};
    const bool raw = role == QueueFormat::ValueRole;
    switch (Column(index.column())) {
    case Name:
        return raw ? QVariant(queue.name) : QVariant(QueueFormat::queueTitle(queue.name));
    case Depth:
        return raw ? QVariant(queue.depth) : QVariant(QLocale().toString(queue.depth));
    case OldestAge:
        return raw ? QVariant(queue.oldestAgeS) : QVariant(QueueFormat::age(queue.depth > 0 ? std::optional(queue.oldestAgeS) : std::nullopt));
    case DeadLetter:
        return raw ? QVariant(queue.deadLetter) : QVariant(QLocale().toString(queue.deadLetter));
    case ColumnCount:
        break;
    }
    return {};
}

QVariant QueueTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == TableText::ExportRole && section == OldestAge)
        return QStringList{tr("Oldest waits (s)")};
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Name:
        return tr("Queue");
    case Depth:
        return tr("Waiting");
    case OldestAge:
        return tr("Oldest waits");
    case DeadLetter:
        return tr("Dead letters");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace lantern
