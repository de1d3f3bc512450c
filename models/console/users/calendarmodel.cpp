#include "calendarmodel.h"

#include "core/datetext.h"

#include <QLocale>

namespace lantern {

namespace {

constexpr int DaysPerWeek = 7;

quint32 bitsOf(const QList<int> &days)
{
    quint32 bits = 0;
    for (int day : days) {
        if (day >= 1 && day <= 31)
            bits |= 1u << (day - 1);
    }
    return bits;
}

} // namespace

CalendarModel::CalendarModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void CalendarModel::setMonth(QDate month, QDate today)
{
    apply(firstOfMonth(month), today, 0, 0, false);
}

void CalendarModel::setMarks(QDate month, QDate today, const QList<int> &signedDays, const QList<int> &makeupDays)
{
    apply(firstOfMonth(month), today, bitsOf(signedDays), bitsOf(makeupDays), true);
}

void CalendarModel::clearMarks()
{
    apply(m_month, m_today, 0, 0, false);
}

void CalendarModel::apply(QDate month, QDate today, quint32 signedBits, quint32 makeupBits, bool hasMarks)
{
    if (month != m_month || today != m_today) {
        // The grid's shape (rows, dates) may change: a reset says so honestly.
        beginResetModel();
        m_month = month;
        m_today = today;
        m_signed = signedBits;
        m_makeup = makeupBits;
        m_hasMarks = hasMarks;
        endResetModel();
        return;
    }
    if (signedBits == m_signed && makeupBits == m_makeup && hasMarks == m_hasMarks)
        return;
    m_signed = signedBits;
    m_makeup = makeupBits;
    m_hasMarks = hasMarks;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::ToolTipRole, StateRole});
}

int CalendarModel::leadingCells() const
{
    return m_month.isValid() ? m_month.dayOfWeek() - 1 : 0;
}

int CalendarModel::weekCount() const
{
    if (!m_month.isValid())
        return 0;
    return (leadingCells() + m_month.daysInMonth() + DaysPerWeek - 1) / DaysPerWeek;
}

QDate CalendarModel::dateAt(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this || !m_month.isValid())
        return {};
    const int day = index.row() * DaysPerWeek + index.column() - leadingCells() + 1;
    if (day < 1 || day > m_month.daysInMonth())
        return {};
    return m_month.addDays(day - 1);
}

QModelIndex CalendarModel::indexOf(QDate date) const
{
    if (!m_month.isValid() || firstOfMonth(date) != m_month)
        return {};
    const int cell = leadingCells() + date.day() - 1;
    return index(cell / DaysPerWeek, cell % DaysPerWeek);
}

CalendarModel::DayState CalendarModel::stateOf(QDate date) const
{
    if (!date.isValid() || firstOfMonth(date) != m_month)
        return DayState::Outside;
    const quint32 bit = 1u << (date.day() - 1);
    if (m_hasMarks && (m_makeup & bit))
        return DayState::MakeUp;
    if (m_hasMarks && (m_signed & bit))
        return DayState::Signed;
    if (m_today.isValid() && date > m_today)
        return DayState::Future;
    if (date == m_today)
        return DayState::Today;
    return m_hasMarks ? DayState::Missed : DayState::Unknown;
}

int CalendarModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : weekCount();
}

int CalendarModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CalendarModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const QDate date = dateAt(index);
    switch (role) {
    case DateRole:
        return date;
    case StateRole:
        return QVariant::fromValue(stateOf(date));
    case IsTodayRole:
        return date.isValid() && date == m_today;
    }
    if (!date.isValid())
        return {};
    switch (role) {
    case Qt::DisplayRole:
        return date.day();
    case Qt::ToolTipRole:
    case Qt::AccessibleTextRole: {
        const QString day = QLocale().toString(date, QLocale::LongFormat);
        const DayState state = stateOf(date);
        return state == DayState::Unknown ? day : tr("%1: %2").arg(day, stateName(state));
    }
    default:
        return {};
    }
}

QVariant CalendarModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && section >= 0 && section < ColumnCount) {
        if (role == Qt::DisplayRole)
            return QLocale().dayName(section + 1, QLocale::ShortFormat);
        if (role == Qt::ToolTipRole)
            return QLocale().dayName(section + 1, QLocale::LongFormat);
    }
    if (orientation == Qt::Vertical && role == Qt::DisplayRole && section >= 0 && section < weekCount())
        return m_month.addDays(section * DaysPerWeek - leadingCells()).weekNumber();
    return QAbstractTableModel::headerData(section, orientation, role);
}

Qt::ItemFlags CalendarModel::flags(const QModelIndex &index) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    if (!dateAt(index).isValid())
        return Qt::ItemNeverHasChildren;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
}

QString CalendarModel::stateName(DayState state)
{
    switch (state) {
    case DayState::Signed:
        return tr("Signed");
    case DayState::MakeUp:
        return tr("Make-up");
    case DayState::Missed:
        return tr("Missed");
    case DayState::Today:
        return tr("Today, not signed yet");
    case DayState::Future:
        return tr("Future");
    case DayState::Unknown:
    case DayState::Outside:
        break;
    }
    return {};
}

} // namespace lantern
