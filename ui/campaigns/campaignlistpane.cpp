#include "campaigns/campaignlistpane.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <climits>

namespace lantern::ui {

CampaignListPane::CampaignListPane(QWidget *parent)
    : QWidget(parent),
      m_model(new CampaignListModel(this)),
      m_searchDelay(new QTimer(this)),
      m_list(new QTableView(this)),
      m_search(new QLineEdit(this)),
      m_fourEyes(new QToolButton(this)),
      m_pageLabel(new QLabel(this)),
      m_previousPage(new QToolButton(this)),
      m_nextPage(new QToolButton(this))
{
    m_list->setModel(m_model);
    m_list->setObjectName(QStringLiteral("campaignList"));
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_list->setAlternatingRowColors(true);
    m_list->setShowGrid(false);
    m_list->setWordWrap(false);
    m_list->setTextElideMode(Qt::ElideRight);
    m_list->verticalHeader()->setVisible(false);
    m_list->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    QHeaderView *header = m_list->horizontalHeader();
    header->setHighlightSections(false);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(CampaignListModel::Name, QHeaderView::Stretch);
    header->setSectionsClickable(true);
    header->setSortIndicatorShown(true);
    header->setSortIndicator(CampaignListModel::Id, Qt::DescendingOrder);
    connect(header, &QHeaderView::sortIndicatorChanged, this, &CampaignListPane::sortBy);
    m_list->setColumnHidden(CampaignListModel::CreatedBy, true);
    m_list->setColumnHidden(CampaignListModel::Approval, true);
    connect(m_list->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        if (const qint64 id = selectedRowId())
            Q_EMIT campaignClicked(id);  // none selected: the view keeps showing its campaign (e.g. while paging)
    });

    m_previousPage->setArrowType(Qt::LeftArrow);
    m_previousPage->setToolTip(tr("Newer campaigns"));
    m_nextPage->setArrowType(Qt::RightArrow);
    m_nextPage->setToolTip(tr("Older campaigns"));
    connect(m_previousPage, &QToolButton::clicked, this, [this] { showPage(std::max<qint64>(0, m_offset - PageSize)); });
    connect(m_nextPage, &QToolButton::clicked, this, [this] { showPage(m_offset + PageSize); });
    m_search->setObjectName(QStringLiteral("campaignSearch"));
    m_search->setPlaceholderText(tr("Search campaigns by name or id"));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(fontMetrics().horizontalAdvance(m_search->placeholderText()) + fontMetrics().averageCharWidth() * 8);
    m_searchDelay->setSingleShot(true);
    m_searchDelay->setInterval(300);
    connect(m_search, &QLineEdit::textChanged, m_searchDelay, qOverload<>(&QTimer::start));
    connect(m_searchDelay, &QTimer::timeout, this, [this] { search(m_search->text()); });
    // Four eyes (issue 25): the drafts above the bound, who made and who approved each; shown
    // while some await approval or the filter is on.
    m_fourEyes->setObjectName(QStringLiteral("fourEyesFilter"));
    m_fourEyes->setCheckable(true);
    m_fourEyes->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_fourEyes->setToolTip(tr("List only the drafts above the four-eyes bound: who created each and who approved it"));
    m_fourEyes->setVisible(false);
    connect(m_fourEyes, &QToolButton::toggled, this, &CampaignListPane::showFourEyesOnly);

    auto *pager = new QHBoxLayout;
    pager->addWidget(m_search);
    pager->addWidget(m_fourEyes);
    pager->addStretch(1);
    pager->addWidget(m_pageLabel);
    pager->addWidget(m_previousPage);
    pager->addWidget(m_nextPage);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(m_list, 1);
    layout->addLayout(pager);
    setMinimumHeight(heightForRows(3));
}

CampaignListPane::~CampaignListPane() = default;

int CampaignListPane::heightForRows(int rows) const
{
    return m_list->verticalHeader()->defaultSectionSize() * rows + m_list->horizontalHeader()->sizeHint().height()
            + m_pageLabel->sizeHint().height();
}

void CampaignListPane::showPage(qint64 offset)
{
    m_offset = std::max<qint64>(0, offset);
    Q_EMIT pageWanted();
}

void CampaignListPane::search(const QString &text)
{
    m_searchDelay->stop();
    if (m_search->text() != text) {
        const QSignalBlocker blocker(m_search);
        m_search->setText(text);
    }
    m_query.search = text.trimmed();
    m_offset = 0;
    Q_EMIT pageWanted();
}

void CampaignListPane::sortBy(int column, Qt::SortOrder order)
{
    QHeaderView *header = m_list->horizontalHeader();
    if (!CampaignListModel::isSortable(column)) {
        // Grab counters live in Redis: a page sorted by them would be a sorted slice.
        const QSignalBlocker blocker(header);
        header->setSortIndicator(m_query.sortColumn, m_query.order);
        return;
    }
    if (header->sortIndicatorSection() != column || header->sortIndicatorOrder() != order) {
        const QSignalBlocker blocker(header);
        header->setSortIndicator(column, order);
    }
    m_query.sortColumn = column;
    m_query.order = order;
    m_offset = 0;
    Q_EMIT pageWanted();
}

void CampaignListPane::showFourEyesOnly(bool only)
{
    if (m_fourEyes->isChecked() != only) {
        const QSignalBlocker blocker(m_fourEyes);
        m_fourEyes->setChecked(only);
    }
    m_query.fourEyesOnly = only;
    m_offset = 0;
    Q_EMIT pageWanted();
}

void CampaignListPane::setPage(const CampaignPage &page)
{
    m_model->setPage(page);
    const QLocale locale;
    if (page.total == 0)
        m_pageLabel->setText(tr("No campaigns yet"));
    else
        m_pageLabel->setText(tr("%1–%2 of %3")
                                     .arg(locale.toString(page.offset + (page.rows.isEmpty() ? 0 : 1)),
                                          locale.toString(page.offset + page.rows.size()), locale.toString(page.total)));
    m_previousPage->setEnabled(page.offset > 0);
    m_nextPage->setEnabled(page.offset + page.rows.size() < page.total);
    showApprovals(page);
}

void CampaignListPane::showApprovals(const CampaignPage &page)
{
    // The four-eyes columns only where they say something: SQLite and single-account set-ups
    // stamp no creator, and a company without a bound approves nothing.
    bool creators = false;
    bool approvals = false;
    for (const CampaignRow &row : page.rows) {
        creators = creators || !row.campaign.createdBy.isEmpty();
        approvals = approvals || row.campaign.needsApproval;
    }
    m_list->setColumnHidden(CampaignListModel::CreatedBy, !creators);
    m_list->setColumnHidden(CampaignListModel::Approval, !approvals);
    m_fourEyes->setText(page.awaitingApproval > 0 ? tr("Four eyes: %n awaiting approval", nullptr, int(std::min<qint64>(page.awaitingApproval, INT_MAX)))
                                                  : tr("Four eyes"));
    m_fourEyes->setVisible(page.awaitingApproval > 0 || m_query.fourEyesOnly);
}

void CampaignListPane::select(qint64 id)
{
    const int row = m_model->rowOf(id);
    {
        const QSignalBlocker blocker(m_list->selectionModel());
        if (row >= 0) {
            m_list->selectionModel()->setCurrentIndex(m_model->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_list->scrollTo(m_model->index(row, 0));
        } else {
            m_list->selectionModel()->clear();
        }
    }
    m_list->viewport()->update();
}

qint64 CampaignListPane::selectedRowId() const
{
    const QModelIndexList rows = m_list->selectionModel()->selectedRows();
    return rows.size() == 1 ? m_model->rowAt(rows.first().row()).campaign.id : 0;
}

QVariantMap CampaignListPane::state() const
{
    QVariantMap state;
    state.insert(QStringLiteral("search"), m_search->text());
    state.insert(QStringLiteral("sortColumn"), m_query.sortColumn);
    state.insert(QStringLiteral("order"), int(m_query.order));
    state.insert(QStringLiteral("offset"), m_offset);
    return state;
}

void CampaignListPane::restoreState(const QVariantMap &state)
{
    {
        const QSignalBlocker blocker(m_search);
        m_search->setText(state.value(QStringLiteral("search")).toString());
    }
    m_query.search = m_search->text().trimmed();
    const int column = state.value(QStringLiteral("sortColumn"), m_query.sortColumn).toInt();
    if (CampaignListModel::isSortable(column)) {
        m_query.sortColumn = column;
        m_query.order = Qt::SortOrder(state.value(QStringLiteral("order"), int(m_query.order)).toInt());
        const QSignalBlocker blocker(m_list->horizontalHeader());
        m_list->horizontalHeader()->setSortIndicator(m_query.sortColumn, m_query.order);
    }
    m_offset = std::max<qint64>(0, state.value(QStringLiteral("offset")).toLongLong());
}

} // namespace lantern::ui
