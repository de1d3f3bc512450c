#pragma once

#include "checkin/checkinstore.h"

#include <QAbstractTableModel>
#include <QList>

namespace lantern {

/** A user's recent persisted check-ins (newest first) for the Users view: day, kind, points,
    and who granted a make-up and why. */
class CheckinHistoryModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CheckinHistoryModel)

public:
    enum Column { Day, Kind, Points, Operator, Reason, ColumnCount };

    explicit CheckinHistoryModel(QObject *parent = nullptr) : QAbstractTableModel(parent) {}

    void setRows(const QList<CheckinLogRow> &rows);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<CheckinLogRow> m_rows;
};

/** A user's recent points movements (newest first): when, how many points, why. */
class LedgerModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LedgerModel)

public:
    enum Column { When, Delta, Source, Reference, ColumnCount };

    explicit LedgerModel(QObject *parent = nullptr) : QAbstractTableModel(parent) {}

    void setRows(const QList<LedgerRow> &rows);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<LedgerRow> m_rows;
};

} // namespace lantern
