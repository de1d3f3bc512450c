#pragma once

#include "console/campaigns/campaignlistmodel.h"

#include <QVariantMap>
#include <QWidget>

class QLabel;
class QLineEdit;
class QTableView;
class QTimer;
class QToolButton;

namespace lantern::ui {

/** The Campaigns view's list: one page of campaigns as the server searched, sorted and filtered
    them (the list is paged, so sorting a page here would sort a slice), the four-eyes filter
    (issue 25) and the pager. It holds the query and the page's offset and says when the page
    must be read again (pageWanted); which campaign is selected, and what reads it, is the
    view's. */
class CampaignListPane final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CampaignListPane)

public:
    static constexpr int PageSize = 50;

    explicit CampaignListPane(QWidget *parent = nullptr);
    ~CampaignListPane() override;

    CampaignListModel *model() const { return m_model; }
    QTableView *view() const { return m_list; }
    QLineEdit *searchField() const { return m_search; }
    const CampaignListQuery &query() const { return m_query; }
    qint64 offset() const { return m_offset; }

    /** Each changes what is listed and asks for it (pageWanted). */
    void showPage(qint64 offset);
    /** The campaigns whose name holds `text` (or whose id it is), from the first page. */
    void search(const QString &text);
    /** By `column` on the server; a column SQL does not hold is refused (the indicator stays). */
    void sortBy(int column, Qt::SortOrder order);
    void showFourEyesOnly(bool only);
    /** Back to the first page without asking (a new campaign is read with the next page). */
    void rewind() { m_offset = 0; }

    /** Shows the page the server answered: rows, "1–50 of 120", the pager, the four-eyes
        columns and filter where they say something. */
    void setPage(const CampaignPage &page);
    /** Selects campaign `id`'s row when it is on the page (no campaignClicked), else none. */
    void select(qint64 id);
    /** The campaign of the one row selected; 0 for none. */
    qint64 selectedRowId() const;
    /** The height of `rows` rows with the header and the pager row. */
    int heightForRows(int rows) const;

    QVariantMap state() const;
    /** The search, order and offset of state(); asks for nothing. */
    void restoreState(const QVariantMap &state);

Q_SIGNALS:
    /** The query or the offset changed: the page is to be read again. */
    void pageWanted();
    /** The operator selected campaign `id`'s row. */
    void campaignClicked(qint64 id);

private:
    void showApprovals(const CampaignPage &page);

    CampaignListModel *m_model;
    CampaignListQuery m_query;
    qint64 m_offset = 0;
    QTimer *m_searchDelay;
    QTableView *m_list;
    QLineEdit *m_search;
    QToolButton *m_fourEyes;
    QLabel *m_pageLabel;
    QToolButton *m_previousPage;
    QToolButton *m_nextPage;
};

} // namespace lantern::ui
