#pragma once

#include "console/recovery/recoverysnapshot.h"

#include <QAbstractTableModel>

namespace lantern {

/** The ledger check of the campaigns recovery touches: balanced, waiting for tasks in flight,
    or the broken invariants in words. QueueFormat::ValueRole: the campaign id, the check by
    urgency (0 balanced, 1 waiting, 2 broken), the detail text. */
class RecoveryLedgerModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RecoveryLedgerModel)

public:
    enum Column { Campaign, Check, Detail, ColumnCount };
    /** LedgerCheck::State as int. */
    static constexpr int StateRole = Qt::UserRole + 1;

    explicit RecoveryLedgerModel(QObject *parent = nullptr);

    void setChecks(const QList<LedgerCheck> &checks);
    const QList<LedgerCheck> &checks() const { return m_checks; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    static QString tallyNote();

    QList<LedgerCheck> m_checks;
};

} // namespace lantern
