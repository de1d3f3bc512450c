#pragma once

#include "console/recovery/recoverysnapshot.h"

#include <QAbstractItemModel>

namespace lantern {

/** Dead workers and the tasks their backup lists hold, as a two-level tree: a worker, then its
    tasks (at most RecoveryService::MaxTasksShown each) with their SQL state, their payout state
    and what compensation will do with them. QueueFormat::ValueRole gives each cell's raw value
    for sorting: a worker's id, tasks held and tasks to re-queue; a task's user and day or
    campaign and envelope, queue, whether SQL has it, payout progress and outcome. */
class RecoveryTaskModel final : public QAbstractItemModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RecoveryTaskModel)

public:
    enum Column { Item, Queue, Persisted, Payout, OnCompensation, ColumnCount };
    /** The worker's id, on worker rows and on their tasks. */
    static constexpr int WorkerRole = Qt::UserRole + 1;
    /** RecoveryTask::Outcome as int, on task rows. */
    static constexpr int OutcomeRole = Qt::UserRole + 2;

    explicit RecoveryTaskModel(QObject *parent = nullptr);

    void setWorkers(const QList<DeadWorkerBacklog> &workers);
    const QList<DeadWorkerBacklog> &workers() const { return m_workers; }
    QStringList workerIds() const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant workerData(const DeadWorkerBacklog &worker, int column, int role) const;
    QVariant taskData(const RecoveryTask &task, int column, int role) const;
    static QVariant taskValue(const RecoveryTask &task, int column);

    QList<DeadWorkerBacklog> m_workers;
};

} // namespace lantern
