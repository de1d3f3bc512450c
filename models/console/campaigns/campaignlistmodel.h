#pragma once

#include "envelope/campaign.h"

#include <QAbstractTableModel>
#include <QList>
#include <QMetaType>

namespace lantern {

/** One line of the campaign list: the SQL row plus the grab counters Redis holds. */
struct CampaignRow {
    Campaign campaign;  // status as Redis has it once launched
    qint64 grabbedCount = 0;
    qint64 grabbedCents = 0;
};

/** One page of campaigns, newest first. */
struct CampaignPage {
    QList<CampaignRow> rows;
    qint64 offset = 0;
    qint64 total = 0;             // campaigns in SQL the query finds
    qint64 awaitingApproval = 0;  // drafts above the four-eyes bound nobody approved yet (issue 25), of all
};

/** How the campaign list is asked for: a search and a sort the SQL runs itself (the list is
    paged, so sorting one page in the view would sort a slice). */
struct CampaignListQuery {
    QString search;                      // a part of the name, or a campaign id; empty: every campaign
    int sortColumn = 0;                  // a CampaignListModel::Column SQL holds (isSortable()); else by id
    Qt::SortOrder order = Qt::DescendingOrder;
    /** Four eyes (issue 25): only drafts above the bound, approved or awaiting approval. */
    bool fourEyesOnly = false;
};

/** The console's campaign list (bounded: one page of at most a few dozen rows at a time).
    Amounts are int64 cents, shown as yuan; ValueRole gives the raw values for sorting/tests. */
class CampaignListModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CampaignListModel)

public:
    /** CreatedBy: the account that made it (stamped by the database; empty on SQLite). Approval:
        for a campaign above the four-eyes bound, who approved it or that it awaits approval. */
    enum Column { Id, Name, Status, Progress, Total, Grabbed, Algorithm, Created, CreatedBy, Approval, ColumnCount };
    static constexpr int ValueRole = Qt::UserRole + 1;
    static constexpr int IdRole = Qt::UserRole + 2;

    explicit CampaignListModel(QObject *parent = nullptr);

    /** Replaces the rows; when the same campaigns are listed in the same order, only their
        cells change (dataChanged), so selection and scrolling stay put across refreshes. */
    void setPage(const CampaignPage &page);
    const CampaignPage &page() const { return m_page; }
    /** The row of campaign `id` on this page, or -1. */
    int rowOf(qint64 id) const;
    const CampaignRow &rowAt(int row) const { return m_page.rows.at(row); }

    /** Whether the list can be sorted by `column` (what SQL holds: not Redis's grab counters). */
    static bool isSortable(int column);

    static QString statusText(CampaignStatus status);
    /** "awaiting approval", "approved by alice"; empty for a campaign under the bound. */
    static QString approvalText(const Campaign &campaign);
    static QString algorithmText(SplitAlgorithm algorithm);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    CampaignPage m_page;
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::CampaignPage)
Q_DECLARE_METATYPE(lantern::CampaignListQuery)
