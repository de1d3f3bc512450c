#include "console/checkinstats/monthstatsmodel.h"

#include <QLocale>

namespace lantern {

void MonthStatsModel::setStats(const MonthStats &stats)
{
    beginResetModel();
    m_stats = stats;
    endResetModel();
}

int MonthStatsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_stats.days.size());
}

int MonthStatsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MonthStatsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const DayStats &day = m_stats.days.at(index.row());
    if (role == Qt::TextAlignmentRole)
        return index.column() == Date ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    const bool raw = role == Qt::UserRole;
    switch (index.column()) {
    case Date:
        return raw ? QVariant(day.date) : QVariant(QLocale().toString(day.date, QLocale::ShortFormat));
    case CheckedIn:
        return raw ? QVariant(day.checkedIn) : QVariant(QLocale().toString(day.checkedIn));
    case Makeups:
        return raw ? QVariant(day.makeups) : QVariant(QLocale().toString(day.makeups));
    default:
        return {};
    }
}

QVariant MonthStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Date:
        return tr("Day");
    case CheckedIn:
        return tr("Checked in");
    case Makeups:
        return tr("Make-ups");
    default:
        return {};
    }
}

} // namespace lantern
