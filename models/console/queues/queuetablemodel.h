#pragma once

#include "operations/queueoverview.h"

#include <QAbstractTableModel>

namespace lantern {

/** Every queue's backlog (QueueOverview::queues): depth, age of its oldest task, dead letters. */
class QueueTableModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QueueTableModel)

public:
    enum Column { Name, Depth, OldestAge, DeadLetter, ColumnCount };
    /** The queue's name as `lanternd queues` prints it ("checkin", "payout:7"). */
    static constexpr int NameRole = Qt::UserRole + 1;

    explicit QueueTableModel(QObject *parent = nullptr);

    void setQueues(const QList<QueueStatus> &queues);
    const QList<QueueStatus> &queues() const { return m_queues; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<QueueStatus> m_queues;
};

} // namespace lantern
