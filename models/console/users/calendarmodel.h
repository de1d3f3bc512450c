#pragma once

#include <QAbstractTableModel>
#include <QDate>
#include <QList>

namespace lantern {

/** One month as a grid of weeks: 7 columns, Monday first, as many rows as the month spans
    (4 to 6). Each day cell carries its date and what happened on it; cells before the 1st and
    after the last day belong to no date and are disabled. */
class CalendarModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CalendarModel)

public:
    enum Column { Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday, ColumnCount };

    enum class DayState {
        Outside,  // a padding cell, not a day of this month
        Unknown,  // a past day while no user is shown
        Signed,   // a normal check-in
        MakeUp,   // signed by a make-up
        Missed,   // a past day left unsigned
        Today,    // today, not signed yet
        Future,   // after today
    };
    Q_ENUM(DayState)

    enum Role {
        DateRole = Qt::UserRole + 1,  // QDate, invalid on padding cells
        StateRole,                    // DayState
        IsTodayRole,                  // bool
    };

    explicit CalendarModel(QObject *parent = nullptr);

    /** Shows `month` (any day of it) with nothing marked: past days are Unknown. */
    void setMonth(QDate month, QDate today);
    /** Shows `month` with the user's signed days (make-ups included) and make-up days. */
    void setMarks(QDate month, QDate today, const QList<int> &signedDays, const QList<int> &makeupDays);
    /** Back to an unmarked month (no user shown). */
    void clearMarks();

    QDate month() const { return m_month; }
    QDate today() const { return m_today; }
    bool hasMarks() const { return m_hasMarks; }
    int weekCount() const;

    QDate dateAt(const QModelIndex &index) const;
    /** The cell of `date`, or an invalid index when it is not in the month shown. */
    QModelIndex indexOf(QDate date) const;
    DayState stateOf(QDate date) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

    /** A short, translated name of a state, as the legend and tooltips say it. */
    static QString stateName(DayState state);

private:
    /** Cells before the 1st in the first week (0 when the month starts on a Monday). */
    int leadingCells() const;
    void apply(QDate month, QDate today, quint32 signedBits, quint32 makeupBits, bool hasMarks);

    QDate m_month;  // first day of the month shown
    QDate m_today;
    quint32 m_signed = 0;  // bit d-1: day d
    quint32 m_makeup = 0;
    bool m_hasMarks = false;
};

} // namespace lantern
