#pragma once

#include "operations/queueoverview.h"

#include <QAbstractTableModel>

namespace lantern {

/** Every known worker (QueueOverview::workers): alive or dead by its heartbeat, how long ago it
    beat, how many tasks its backup lists hold in flight, and its payouts as it said them with its
    last beat: payouts per second, calls out at the provider, calls that did not pay (issue 12). */
class QueueWorkerModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QueueWorkerModel)

public:
    enum Column { Worker, State, LastBeat, InFlight, PayoutRate, PayoutCalls, ProviderErrors, ColumnCount };

    explicit QueueWorkerModel(QObject *parent = nullptr);

    void setWorkers(const QList<WorkerStatus> &workers, int heartbeatTtlS);
    const QList<WorkerStatus> &workers() const { return m_workers; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<WorkerStatus> m_workers;
    int m_ttlS = 15;
};

} // namespace lantern
