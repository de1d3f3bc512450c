#pragma once

#include "checkin/monthstats.h"

#include <QAbstractTableModel>

namespace lantern {

/** A month's days for the console's Check-in statistics view: date, users checked in, make-ups. */
class MonthStatsModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MonthStatsModel)

public:
    enum Column { Date, CheckedIn, Makeups, ColumnCount };

    explicit MonthStatsModel(QObject *parent = nullptr) : QAbstractTableModel(parent) {}

    void setStats(const MonthStats &stats);
    const MonthStats &stats() const { return m_stats; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    MonthStats m_stats;
};

} // namespace lantern
