#include "console/users/userhistorymodels.h"

#include <QDateTime>
#include <QLocale>

namespace lantern {

void CheckinHistoryModel::setRows(const QList<CheckinLogRow> &rows)
{
    beginResetModel();
    m_rows = rows;
    endResetModel();
}

int CheckinHistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int CheckinHistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CheckinHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CheckinLogRow &row = m_rows.at(index.row());
    const bool makeup = row.kind == QLatin1String("makeup");
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Day: return QLocale().toString(row.day, QLocale::ShortFormat);
        case Kind: return makeup ? tr("Make-up") : tr("Check-in");
        case Points: return row.points > 0 ? QStringLiteral("+%1").arg(row.points) : QString::number(row.points);
        case Operator: return row.operatorName;
        case Reason: return row.reason;
        default: break;
        }
    } else if (role == Qt::ToolTipRole && index.column() == Reason && !row.reason.isEmpty()) {
        return row.reason;
    } else if (role == Qt::TextAlignmentRole && index.column() == Points) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    } else if (role == Qt::UserRole) {
        return row.day;
    }
    return {};
}

QVariant CheckinHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Day: return tr("Day");
    case Kind: return tr("Kind");
    case Points: return tr("Points");
    case Operator: return tr("Operator");
    case Reason: return tr("Reason");
    default: return {};
    }
}

void LedgerModel::setRows(const QList<LedgerRow> &rows)
{
    beginResetModel();
    m_rows = rows;
    endResetModel();
}

int LedgerModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int LedgerModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LedgerModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const LedgerRow &row = m_rows.at(index.row());
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case When: {
            // SQL keeps UTC as "YYYY-MM-DD HH:MM:SS"; show it in local time.
            QDateTime at = QDateTime::fromString(row.createdAt, u"yyyy-MM-dd HH:mm:ss");
            if (!at.isValid())
                return row.createdAt;
            at.setTimeSpec(Qt::UTC);
            return QLocale().toString(at.toLocalTime(), QLocale::ShortFormat);
        }
        case Delta: return row.delta > 0 ? QStringLiteral("+%1").arg(row.delta) : QString::number(row.delta);
        case Source: return row.source == QLatin1String("checkin") ? tr("Check-in reward") : row.source;
        case Reference: return row.ref;
        default: break;
        }
    } else if (role == Qt::TextAlignmentRole && index.column() == Delta) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant LedgerModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case When: return tr("When");
    case Delta: return tr("Points");
    case Source: return tr("Source");
    case Reference: return tr("Reference");
    default: return {};
    }
}

} // namespace lantern
