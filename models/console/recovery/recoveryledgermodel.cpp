#include "console/recovery/recoveryledgermodel.h"

#include "console/queues/queueformat.h"

namespace lantern {

RecoveryLedgerModel::RecoveryLedgerModel(QObject *parent) : QAbstractTableModel(parent) {}

void RecoveryLedgerModel::setChecks(const QList<LedgerCheck> &checks)
{
    beginResetModel();
    m_checks = checks;
    endResetModel();
}

int RecoveryLedgerModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_checks.size());
}

int RecoveryLedgerModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RecoveryLedgerModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const LedgerCheck &check = m_checks.at(index.row());
    switch (role) {
    case StateRole:
        return int(check.state);
    case QueueFormat::ValueRole:
        // Raw values for sorting; the check by urgency: balanced, waiting, broken.
        switch (Column(index.column())) {
        case Campaign:
            return check.campaignId;
        case Check:
            return check.state == LedgerCheck::State::Broken ? 2 : check.state == LedgerCheck::State::Waiting ? 1 : 0;
        case Detail:
            return data(index, Qt::DisplayRole);
        case ColumnCount:
            break;
        }
        return {};
    case QueueFormat::ToneRole:
        if (index.column() != Check)
            return int(QueueFormat::Tone::Neutral);
        return int(check.state == LedgerCheck::State::Balanced ? QueueFormat::Tone::Good
                   : check.state == LedgerCheck::State::Waiting ? QueueFormat::Tone::Warning
                                                                : QueueFormat::Tone::Bad);
    case Qt::ToolTipRole:
        if (index.column() == Check)
            return tallyNote();
        if (index.column() != Detail)
            return {};
        return check.violations.isEmpty() ? data(index, Qt::DisplayRole) : QVariant(check.violations.join(QLatin1Char('\n')));
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case Campaign:
            return tr("%1 · %2").arg(check.campaignId).arg(check.name);
        case Check:
            switch (check.state) {
            case LedgerCheck::State::Balanced:
                return tr("Balanced");
            case LedgerCheck::State::Waiting:
                return tr("Waiting");
            case LedgerCheck::State::Broken:
                return tr("%n violation(s)", nullptr, int(check.violations.size()));
            }
            return {};
        case Detail:
            if (!check.violations.isEmpty())
                return check.violations.join(QStringLiteral("; "));
            if (check.state == LedgerCheck::State::Balanced)
                return tr("Every grab has its row and exactly one payout.");
            {
                QStringList parts;
                if (check.heldByDead > 0)
                    parts << tr("%n held by dead workers", nullptr, int(check.heldByDead));
                if (check.queued > 0)
                    parts << tr("%n queued", nullptr, int(check.queued));
                if (check.inFlight > 0)
                    parts << tr("%n with live workers", nullptr, int(check.inFlight));
                return tr("Payouts still on their way: %1.").arg(parts.join(tr(", ", "separator between the items of a list")));
            }
        case ColumnCount:
            break;
        }
        return {};
    default:
        return {};
    }
}

QString RecoveryLedgerModel::tallyNote()
{
    // Where the verdict's figures come from (issue 26), on the column's header and each cell.
    return tr("Grabs and payouts judged from the tally the workers keep as they write them (a row changed by hand is "
              "counted again); lanternd verify reads every row and compares the tally with them.");
}

QVariant RecoveryLedgerModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == Check)
        return tallyNote();
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Campaign:
        return tr("Campaign");
    case Check:
        return tr("Ledger check");
    case Detail:
        return tr("Detail");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace lantern
