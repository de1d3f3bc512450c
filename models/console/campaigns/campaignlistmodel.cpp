#include "console/campaigns/campaignlistmodel.h"

#include "console/common/campaignmoney.h"
#include "console/common/tabletext.h"

#include <QDateTime>
#include <QLocale>

namespace lantern {

CampaignListModel::CampaignListModel(QObject *parent) : QAbstractTableModel(parent)
{
}

void CampaignListModel::setPage(const CampaignPage &page)
{
    bool sameIds = page.rows.size() == m_page.rows.size();
    for (qsizetype i = 0; sameIds && i < page.rows.size(); ++i)
        sameIds = page.rows.at(i).campaign.id == m_page.rows.at(i).campaign.id;
    if (!sameIds) {
        beginResetModel();
        m_page = page;
        endResetModel();
        return;
    }
    m_page = page;
    if (!m_page.rows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_page.rows.size()) - 1, ColumnCount - 1));
}

int CampaignListModel::rowOf(qint64 id) const
{
    for (qsizetype i = 0; i < m_page.rows.size(); ++i) {
        if (m_page.rows.at(i).campaign.id == id)
            return int(i);
    }
    return -1;
}

bool CampaignListModel::isSortable(int column)
{
    return column == Id || column == Name || column == Status || column == Total || column == Algorithm || column == Created
            || column == CreatedBy;
}

QString CampaignListModel::approvalText(const Campaign &campaign)
{
    if (!campaign.needsApproval)
        return {};
    if (campaign.approvedBy.isEmpty())
        //: Four eyes: a campaign above the bound no second manager approved yet.
        return tr("awaiting approval");
    return tr("approved by %1").arg(campaign.approvedBy);
}

QString CampaignListModel::statusText(CampaignStatus status)
{
    switch (status) {
    case CampaignStatus::Draft:
        return tr("Draft");
    case CampaignStatus::Live:
        return tr("Live");
    case CampaignStatus::Paused:
        return tr("Paused");
    case CampaignStatus::Closed:
        return tr("Closed");
    }
    return {};
}

QString CampaignListModel::algorithmText(SplitAlgorithm algorithm)
{
    switch (algorithm) {
    case SplitAlgorithm::DoubleMean:
        return tr("Double mean");
    case SplitAlgorithm::Smoothed:
        return tr("Smoothed");
    case SplitAlgorithm::UniformCuts:
        return tr("Uniform cuts");
    }
    return {};
}

int CampaignListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_page.rows.size());
}

int CampaignListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CampaignListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CampaignRow &row = m_page.rows.at(index.row());
    const Campaign &campaign = row.campaign;
    if (role == IdRole)
        return campaign.id;
    if (role == TableText::ExportRole) {
        switch (index.column()) {
        case Progress:
            return QVariantList{row.grabbedCount, campaign.count};
        case Total:
            return QVariantList{TableText::yuanNumber(campaign.totalCents)};
        case Grabbed:
            return QVariantList{TableText::yuanNumber(row.grabbedCents)};
        case Created:
            return QVariantList{TableText::isoTime(campaign.createdAtMs)};
        case Approval:
            return QVariantList{campaign.needsApproval ? 1 : 0, campaign.approvedBy};
        }
        return {};  // as shown
    }
    if (role == ValueRole) {
        switch (index.column()) {
        case Id:
            return campaign.id;
        case Name:
            return campaign.name;
        case Status:
            return campaignStatusName(campaign.status);
        case Progress:
            return row.grabbedCount;
        case Total:
            return campaign.totalCents;
        case Grabbed:
            return row.grabbedCents;
        case Algorithm:
            return splitAlgorithmName(campaign.algorithm);
        case Created:
            return campaign.createdAtMs;
        case CreatedBy:
            return campaign.createdBy;
        case Approval:
            return campaign.needsApproval ? QVariant(campaign.approvedBy) : QVariant();
        }
        return {};
    }
    if (role == Qt::DisplayRole) {
        const QLocale locale;
        switch (index.column()) {
        case Id:
            return QString::number(campaign.id);
        case Name:
            return campaign.name;
        case Status:
            return statusText(campaign.status);
        case Progress:
            //: Envelopes grabbed of the campaign's count, e.g. "120 / 500".
            return tr("%1 / %2").arg(locale.toString(row.grabbedCount), locale.toString(campaign.count));
        case Total:
            return formatYuan(campaign.totalCents);
        case Grabbed:
            return formatYuan(row.grabbedCents);
        case Algorithm:
            return algorithmText(campaign.algorithm);
        case Created:
            return locale.toString(QDateTime::fromMSecsSinceEpoch(campaign.createdAtMs), QLocale::ShortFormat);
        case CreatedBy:
            return campaign.createdBy;
        case Approval:
            return approvalText(campaign);
        }
        return {};
    }
    if (role == Qt::ToolTipRole && index.column() == Name)
        return campaign.name;
    if (role == Qt::ToolTipRole && index.column() == Approval && campaign.needsApproval)
        return campaign.approvedBy.isEmpty() ? tr("Above the four-eyes bound: a manager other than %1 must approve it before it is launched.")
                                                       .arg(campaign.createdBy)
                                             : tr("Approved by %1 on %2.")
                                                       .arg(campaign.approvedBy,
                                                            QLocale().toString(QDateTime::fromMSecsSinceEpoch(campaign.approvedAtMs), QLocale::ShortFormat));
    if (role == Qt::TextAlignmentRole) {
        switch (index.column()) {
        case Id:
        case Progress:
        case Total:
        case Grabbed:
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
        }
    }
    return {};
}

QVariant CampaignListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == TableText::ExportRole) {
        switch (section) {
        case Progress:
            return QStringList{tr("Grabbed"), tr("Envelopes")};
        case Total:
            //: A CSV column of amounts in yuan, as plain numbers.
            return QStringList{tr("Total (yuan)")};
        case Grabbed:
            return QStringList{tr("Grabbed amount (yuan)")};
        case Approval:
            //: CSV columns of the four-eyes approval: 1 or 0, then the approving account.
            return QStringList{tr("Needs approval"), tr("Approved by")};
        }
        return {};
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Id:
        return tr("ID");
    case Name:
        return tr("Name");
    case Status:
        return tr("Status");
    case Progress:
        return tr("Grabbed / count");
    case Total:
        return tr("Total");
    case Grabbed:
        return tr("Grabbed amount");
    case Algorithm:
        return tr("Split");
    case Created:
        return tr("Created");
    case CreatedBy:
        return tr("Created by");
    case Approval:
        //: Four eyes: who approved a campaign above the bound.
        return tr("Approval");
    }
    return {};
}

} // namespace lantern
