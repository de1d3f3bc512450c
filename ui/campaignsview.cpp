#include "campaignsview.h"

#include "campaignactionbar.h"
#include "campaignconfirmation.h"
#include "campaigncreatedialog.h"
#include "campaigntimesdialog.h"
#include "campaigndetailpanel.h"
#include "timetablepanel.h"
#include "console/campaigns/campaignlistmodel.h"
#include "console/campaigns/schedulewords.h"
#include "console/common/campaignmoney.h"
#include "console/campaigns/campaignpreviewer.h"
#include "consoletheme.h"
#include "messagebanner.h"
#include "writeaction.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace lantern::ui {

namespace {

bool askInMessageBox(QWidget *parent, const CampaignConfirmation &ask)
{
    const std::unique_ptr<QMessageBox> box = ask.messageBox(parent);
    box->exec();
    return box->clickedButton() && box->clickedButton() == CampaignConfirmation::goAheadButton(*box);
}

} // namespace

CampaignsView::CampaignsView(QWidget *parent)
    : ConsoleView(parent),
      m_confirm(&askInMessageBox),
      m_model(new CampaignListModel(this)),
      m_searchDelay(new QTimer(this)),
      m_hiddenSampling(new QTimer(this)),
      m_search(new QLineEdit(this)),
      m_fourEyes(new QToolButton(this)),
      m_actions(new CampaignActionBar(this)),
      m_banner(new MessageBanner(this)),
      m_list(new QTableView(this)),
      m_previousPage(new QToolButton(this)),
      m_nextPage(new QToolButton(this)),
      m_pageLabel(new QLabel(this)),
      m_detail(new CampaignDetailPanel(this)),
      m_timetable(new TimetablePanel(this))
{
    // Actions row.
    connect(m_actions, &CampaignActionBar::createClicked, this, &CampaignsView::openCreateDialog);
    connect(m_actions, &CampaignActionBar::actionClicked, this, &CampaignsView::runAction);
    connect(m_actions, &CampaignActionBar::timesClicked, this, &CampaignsView::openTimesDialog);
    connect(m_actions, &CampaignActionBar::refreshClicked, this, &CampaignsView::refresh);

    // The list, one page at a time.
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
    connect(m_list->selectionModel(), &QItemSelectionModel::selectionChanged, this, &CampaignsView::onSelectionChanged);
    m_previousPage->setArrowType(Qt::LeftArrow);
    m_previousPage->setToolTip(tr("Newer campaigns"));
    m_nextPage->setArrowType(Qt::RightArrow);
    m_nextPage->setToolTip(tr("Older campaigns"));
    connect(m_previousPage, &QToolButton::clicked, this, [this] { showPage(std::max<qint64>(0, m_offset - PageSize)); });
    connect(m_nextPage, &QToolButton::clicked, this, [this] { showPage(m_offset + PageSize); });
    // A search and a sort the server runs: the list is paged.
    m_search->setObjectName(QStringLiteral("campaignSearch"));
    m_search->setPlaceholderText(tr("Search campaigns by name or id"));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(fontMetrics().horizontalAdvance(m_search->placeholderText()) + fontMetrics().averageCharWidth() * 8);
    // Four eyes (issue 25): the drafts above the bound, who made and who approved each; shown
    // while some await approval or the filter is on.
    m_fourEyes->setObjectName(QStringLiteral("fourEyesFilter"));
    m_fourEyes->setCheckable(true);
    m_fourEyes->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_fourEyes->setToolTip(tr("List only the drafts above the four-eyes bound: who created each and who approved it"));
    m_fourEyes->setVisible(false);
    connect(m_fourEyes, &QToolButton::toggled, this, &CampaignsView::showFourEyesOnly);
    m_searchDelay->setSingleShot(true);
    m_searchDelay->setInterval(300);
    connect(m_search, &QLineEdit::textChanged, m_searchDelay, qOverload<>(&QTimer::start));
    connect(m_searchDelay, &QTimer::timeout, this, [this] { search(m_search->text()); });
    header->setSectionsClickable(true);
    header->setSortIndicatorShown(true);
    header->setSortIndicator(CampaignListModel::Id, Qt::DescendingOrder);
    connect(header, &QHeaderView::sortIndicatorChanged, this, &CampaignsView::sortBy);
    auto *pager = new QHBoxLayout;
    pager->addWidget(m_search);
    pager->addWidget(m_fourEyes);
    pager->addStretch(1);
    pager->addWidget(m_pageLabel);
    pager->addWidget(m_previousPage);
    pager->addWidget(m_nextPage);
    auto *listPane = new QWidget(this);
    auto *listLayout = new QVBoxLayout(listPane);
    listLayout->setContentsMargins(0, 0, 0, 0);
    listLayout->setSpacing(4);
    listLayout->addWidget(m_list, 1);
    listLayout->addLayout(pager);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(listPane);
    splitter->addWidget(m_detail);
    connect(m_detail, &CampaignDetailPanel::viewRequested, this, &ConsoleView::openView);
    // The list is for choosing; the live view below gets most of the height.
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    const int rowHeight = m_list->verticalHeader()->defaultSectionSize();
    listPane->setMinimumHeight(rowHeight * 3 + header->sizeHint().height() + m_pageLabel->sizeHint().height());
    // The timetable (issue 30) under the live view, as small as its header and a few rows.
    splitter->addWidget(m_timetable);
    splitter->setStretchFactor(2, 0);
    // Seven rows of the list and the timetable's few; the live view between them takes the rest
    // (it scrolls when short).
    splitter->setSizes({rowHeight * 7 + header->sizeHint().height() + m_pageLabel->sizeHint().height(), rowHeight * 14,
                        m_timetable->sizeHint().height()});

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 12, 16, 8);
    layout->setSpacing(10);
    layout->addWidget(m_actions);
    layout->addWidget(m_banner);
    layout->addWidget(splitter, 1);

    m_detail->showNothing(tr("Connecting…"));
    m_list->setColumnHidden(CampaignListModel::CreatedBy, true);
    m_list->setColumnHidden(CampaignListModel::Approval, true);
    updateActions();
    updateBusy();
    m_hiddenSampling->setInterval(HiddenSampleMs);
    connect(m_hiddenSampling, &QTimer::timeout, this, [this] {
        if (m_selectedId != 0 && !m_snapshotOut)
            requestSnapshot();
    });
    sampleWhileHidden(m_hiddenSampling);
}

CampaignsView::~CampaignsView() = default;

CampaignsView::Confirmation CampaignsView::messageBoxConfirmation()
{
    return &askInMessageBox;
}

void CampaignsView::attachBackend(const Config &config)
{
    m_serviceThread = std::make_unique<DedicatedThread<CampaignConsoleService>>(QStringLiteral("campaigns"), config);
    m_previewThread = std::make_unique<DedicatedThread<CampaignPreviewer>>(QStringLiteral("split-preview"));
    setService(m_serviceThread->get(), m_previewThread->get());
}

void CampaignsView::setService(CampaignConsoleService *service, CampaignPreviewer *previewer)
{
    m_service = service;
    m_previewer = previewer;
    m_timetable->setService(service);
    m_timetable->setTimeZone(service->config().timeZone);
    // Queued both ways: the service lives on its own thread.
    connect(this, &CampaignsView::listRequested, service, &CampaignConsoleService::list, Qt::QueuedConnection);
    connect(this, &CampaignsView::snapshotRequested, service, &CampaignConsoleService::load, Qt::QueuedConnection);
    connect(this, &CampaignsView::createRequested, service, &CampaignConsoleService::create, Qt::QueuedConnection);
    connect(this, &CampaignsView::actionRequested, service, &CampaignConsoleService::act, Qt::QueuedConnection);
    connect(this, &CampaignsView::rescheduleRequested, service, &CampaignConsoleService::reschedule, Qt::QueuedConnection);
    connect(service, &CampaignConsoleService::pageLoaded, this, &CampaignsView::onPageLoaded, Qt::QueuedConnection);
    connect(service, &CampaignConsoleService::snapshotLoaded, this, &CampaignsView::onSnapshotLoaded, Qt::QueuedConnection);
    connect(service, &CampaignConsoleService::created, this, &CampaignsView::onCreated, Qt::QueuedConnection);
    connect(service, &CampaignConsoleService::acted, this, &CampaignsView::onActed, Qt::QueuedConnection);
    connect(service, &CampaignConsoleService::rescheduled, this, &CampaignsView::onRescheduled, Qt::QueuedConnection);
    connect(service, &CampaignConsoleService::requestFailed, this, &CampaignsView::onFailed, Qt::QueuedConnection);
    m_detail->setTimeZone(service->config().timeZone);
    m_detail->showNothing(tr("Select a campaign to watch it drain."));
    updateActions();
    requestList();
    m_timetable->refresh();
}

void CampaignsView::prepareScreenshot(const ScreenshotRequest &request)
{
    m_screenshot = true;
    m_screenshotCampaign = request.campaignId;
    m_offset = 0;
    requestList();
}

void CampaignsView::finishScreenshot(bool ok, const QString &message)
{
    if (!m_screenshot)
        return;
    m_screenshot = false;
    if (ok)
        Q_EMIT screenshotReady();
    else
        Q_EMIT screenshotFailed(message);
}

bool CampaignsView::wantsAutoRefresh() const
{
    return !m_dialogOpen;
}

void CampaignsView::refresh()
{
    if (!m_service)
        return;
    // Never stacks: what is still out is not asked again.
    if (!m_listOut)
        requestList();
    if (m_selectedId != 0 && !m_snapshotOut)
        requestSnapshot();
    m_timetable->refresh();
}

void CampaignsView::showPage(qint64 offset)
{
    m_offset = std::max<qint64>(0, offset);
    requestList();
}

void CampaignsView::requestList()
{
    if (!m_service)
        return;
    m_listOut = ++m_serial;
    updateBusy();
    Q_EMIT listRequested(m_listOut, m_offset, PageSize, m_query);
}

void CampaignsView::search(const QString &text)
{
    m_searchDelay->stop();
    if (m_search->text() != text) {
        const QSignalBlocker blocker(m_search);
        m_search->setText(text);
    }
    m_query.search = text.trimmed();
    m_offset = 0;
    requestList();
}

void CampaignsView::sortBy(int column, Qt::SortOrder order)
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
    requestList();
}

QVariantMap CampaignsView::viewState() const
{
    QVariantMap state;
    state.insert(QStringLiteral("search"), m_search->text());
    state.insert(QStringLiteral("sortColumn"), m_query.sortColumn);
    state.insert(QStringLiteral("order"), int(m_query.order));
    state.insert(QStringLiteral("offset"), m_offset);
    state.insert(QStringLiteral("selected"), m_selectedId);
    return state;
}

void CampaignsView::restoreViewState(const QVariantMap &state)
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
    m_selectedId = state.value(QStringLiteral("selected")).toLongLong();
    requestList();
    if (m_selectedId != 0)
        requestSnapshot();
}

void CampaignsView::requestSnapshot()
{
    if (!m_service || m_selectedId == 0)
        return;
    m_snapshotOut = ++m_serial;
    updateBusy();
    Q_EMIT snapshotRequested(m_snapshotOut, m_selectedId);
}

void CampaignsView::selectCampaign(qint64 id)
{
    const int row = m_model->rowOf(id);
    const bool changed = id != m_selectedId;
    m_selectedId = id;
    {
        const QSignalBlocker blocker(m_list->selectionModel());
        if (row >= 0) {
            m_list->selectionModel()->setCurrentIndex(m_model->index(row, 0),
                                                      QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_list->scrollTo(m_model->index(row, 0));
        } else {
            m_list->selectionModel()->clear();
        }
    }
    m_list->viewport()->update();
    // A new choice supersedes the answer on its way; the same one is only asked once.
    if (changed || (m_detail->campaignId() != id && !m_snapshotOut)) {
        if (id == 0)
            m_detail->showNothing(tr("Select a campaign to watch it drain."));
        else if (m_detail->campaignId() != id)
            m_detail->showNothing(tr("Loading campaign #%1…").arg(id));
        requestSnapshot();
    }
    updateActions();
}

void CampaignsView::onSelectionChanged()
{
    const QModelIndexList rows = m_list->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return;  // keep showing the campaign (e.g. while paging)
    selectCampaign(m_model->rowAt(rows.first().row()).campaign.id);
}

void CampaignsView::onPageLoaded(quint64 serial, const CampaignPage &page)
{
    if (serial != m_listOut)
        return;  // superseded
    m_listOut = 0;
    updateBusy();
    m_banner->readSucceeded();
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

    qint64 wanted = m_selectedId;
    if (m_screenshot && m_screenshotCampaign != 0)
        wanted = m_screenshotCampaign;
    if (wanted == 0 && !page.rows.isEmpty()) {
        // Nothing chosen yet: the first live campaign, else the newest.
        wanted = page.rows.constFirst().campaign.id;
        for (const CampaignRow &row : page.rows) {
            if (row.campaign.status == CampaignStatus::Live) {
                wanted = row.campaign.id;
                break;
            }
        }
    }
    if (wanted == 0) {
        m_detail->showNothing(isReadOnly() ? tr("No campaigns yet.") : tr("No campaigns yet. Press “New campaign…” to create one."));
        finishScreenshot(true);
    } else {
        selectCampaign(wanted);
        if (m_screenshot && !m_snapshotOut)
            requestSnapshot();  // a screenshot shows a fresh reading
    }
    updateActions();
    Q_EMIT dataRead(ServerStatus::both(), QDateTime::currentDateTime());
    Q_EMIT pageShown();
}

void CampaignsView::onSnapshotLoaded(quint64 serial, const CampaignSnapshot &snapshot)
{
    if (serial != m_snapshotOut)
        return;
    m_snapshotOut = 0;
    updateBusy();
    if (snapshot.summary.campaign.id != m_selectedId)
        return;
    m_banner->readSucceeded();
    m_detail->showSnapshot(snapshot);
    updateActions();
    Q_EMIT dataRead(ServerStatus::both(), QDateTime::currentDateTime());
    Q_EMIT campaignShown(snapshot);
    finishScreenshot(true);
}

void CampaignsView::onCreated(quint64 serial, const Campaign &campaign)
{
    if (serial != m_actionOut)
        return;
    m_actionOut = 0;
    m_banner->showMessage(MessageBanner::Kind::Positive,
                          tr("Draft #%1 “%2” created. Nobody can grab yet: check it below, then launch it.").arg(campaign.id).arg(campaign.name));
    m_offset = 0;
    m_selectedId = campaign.id;
    m_detail->showNothing(tr("Loading campaign #%1…").arg(campaign.id));
    requestList();
    requestSnapshot();
    updateActions();
    Q_EMIT campaignCreated(campaign);
}

void CampaignsView::onRescheduled(quint64 serial, qint64 campaignId, const QList<ScheduledTransition> &transitions)
{
    if (serial != m_actionOut)
        return;
    m_actionOut = 0;
    QStringList pending;
    for (const ScheduledTransition &row : transitions) {
        if (row.state != ScheduledTransition::State::Pending)
            continue;
        const QString at = ScheduleWords::timeText(row.dueAtMs, m_service->config().timeZone);
        pending << (row.action == ScheduledAction::Launch ? tr("launch at %1").arg(at) : tr("close at %1").arg(at));
    }
    m_banner->showMessage(MessageBanner::Kind::Positive,
                          pending.isEmpty() ? tr("Campaign #%1 has no times any more: it waits for a Launch or Close by hand.").arg(campaignId)
                                            : tr("Times of campaign #%1 saved: %2. A running worker makes each change at its time.")
                                                      .arg(campaignId)
                                                      .arg(pending.join(tr("; ", "separator between scheduled times"))));
    requestSnapshot();
    m_timetable->refresh();
    updateActions();
    Q_EMIT timesSaved(campaignId, transitions);
}

void CampaignsView::onActed(quint64 serial, CampaignAction action, const Campaign &campaign, bool changed)
{
    if (serial != m_actionOut)
        return;
    m_actionOut = 0;
    const QString text = CampaignConfirmation::outcome(action, campaign, changed);
    m_banner->showMessage(changed ? MessageBanner::Kind::Positive : MessageBanner::Kind::Information, text);
    requestList();
    requestSnapshot();
    updateActions();
    Q_EMIT actionDone(action, campaign);
}

void CampaignsView::onFailed(quint64 serial, const QString &message, const QString &detail)
{
    if (serial == m_listOut) {
        m_listOut = 0;
        if (m_model->rowCount() == 0)
            m_detail->showNothing(tr("The campaigns could not be read."));
    } else if (serial == m_snapshotOut) {
        m_snapshotOut = 0;
    } else if (serial == m_actionOut) {
        m_actionOut = 0;
        m_banner->showMessage(MessageBanner::Kind::Error, message, detail);
        refresh();  // show what the campaign is now
    } else {
        return;  // superseded
    }
    updateBusy();
    updateActions();
    if (m_banner->text() != message)
        m_banner->showReadFailure(message, detail);
    Q_EMIT failed(message);
    finishScreenshot(false, message);
}

qint64 CampaignsView::visiblySelectedId() const
{
    if (m_selectedId == 0)
        return 0;
    const QModelIndexList rows = m_list->selectionModel()->selectedRows();
    if (rows.size() != 1 || m_model->rowAt(rows.first().row()).campaign.id != m_selectedId)
        return 0;
    return m_selectedId;
}

std::optional<Campaign> CampaignsView::selectedCampaign() const
{
    if (visiblySelectedId() == 0)
        return std::nullopt;  // an action only ever applies to the row the operator sees selected
    // The newest word on it: the live view when it shows this campaign, else the list.
    if (m_detail->campaignId() == m_selectedId) {
        Campaign campaign = m_detail->snapshot().summary.campaign;
        campaign.status = m_detail->status();
        return campaign;
    }
    const int row = m_model->rowOf(m_selectedId);
    if (row < 0)
        return std::nullopt;
    return m_model->rowAt(row).campaign;
}

void CampaignsView::updateActions()
{
    CampaignActionBar::State state;
    state.connected = m_service != nullptr;
    state.canCreate = m_service && m_previewer;
    state.actionOut = m_actionOut != 0;
    state.readOnly = isReadOnly();
    state.shownId = m_selectedId;
    state.selected = selectedCampaign();
    state.timesRead = m_detail->campaignId() == m_selectedId;
    m_actions->update(state, operatorIdentity());
}

void CampaignsView::showApprovals(const CampaignPage &page)
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

void CampaignsView::showFourEyesOnly(bool only)
{
    if (m_fourEyes->isChecked() != only) {
        const QSignalBlocker blocker(m_fourEyes);
        m_fourEyes->setChecked(only);
    }
    m_query.fourEyesOnly = only;
    m_offset = 0;
    requestList();
}

void CampaignsView::updateBusy()
{
    m_actions->setBusy(isBusy());
}

void CampaignsView::setOperatorName(const QString &name)
{
    operatorIdentity()->setName(name);
}

QString CampaignsView::operatorName() const
{
    return operatorIdentity()->name();
}

CampaignCreateDialog *CampaignsView::openCreateDialog()
{
    if (!m_service || !m_previewer || isReadOnly() || !operatorIdentity()->ensure(this))
        return nullptr;
    // The servers' clock as the live view last read it (0 before any reading: this machine's).
    const qint64 serverNowMs = m_detail->campaignId() != 0 ? m_detail->snapshot().serverNowMs : 0;
    auto *dialog = new CampaignCreateDialog(m_previewer, operatorName(), m_service->config().timeZone, serverNowMs, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_dialogOpen = true;
    connect(dialog, &QDialog::finished, this, [this] { m_dialogOpen = false; });
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const auto draft = dialog->draft();
        if (!draft)
            return;
        m_actionOut = ++m_serial;
        updateBusy();
        updateActions();
        Q_EMIT createRequested(m_actionOut, *draft, dialog->schedule(), dialog->operatorName());
    });
    dialog->open();
    return dialog;
}

CampaignTimesDialog *CampaignsView::openTimesDialog()
{
    const auto selected = selectedCampaign();
    if (!m_service || m_actionOut || !selected || selected->status == CampaignStatus::Closed || m_detail->campaignId() != m_selectedId || isReadOnly()
        || !operatorIdentity()->ensure(this))
        return nullptr;
    const CampaignSnapshot &snapshot = m_detail->snapshot();
    auto *dialog = new CampaignTimesDialog(snapshot.summary.campaign, snapshot.transitions, m_service->config().timeZone, snapshot.serverNowMs, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_dialogOpen = true;
    connect(dialog, &QDialog::finished, this, [this] { m_dialogOpen = false; });
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        // The selection may have moved while the dialog was open: the times are the dialog's campaign's.
        if (m_actionOut)
            return;
        m_actionOut = ++m_serial;
        updateBusy();
        updateActions();
        Q_EMIT rescheduleRequested(m_actionOut, dialog->campaignId(), dialog->request(), operatorName());
    });
    dialog->open();
    return dialog;
}

void CampaignsView::runAction(CampaignAction action)
{
    const auto selected = selectedCampaign();
    if (!m_service || m_actionOut || !selected || isReadOnly() || !operatorIdentity()->ensure(this))
        return;
    if (action == CampaignAction::Approve && !CampaignActionBar::approvalProblem(*selected, operatorIdentity()).isEmpty())
        return;  // its creator: the button said so, a shortcut asked anyway changes nothing
    const qint64 id = m_selectedId;
    // What the operator is told comes from the newest reading: the live view, else the list.
    const int row = m_model->rowOf(id);
    const bool detailShown = m_detail->campaignId() == id;
    const Campaign campaign = detailShown ? m_detail->snapshot().summary.campaign : m_model->rowAt(row).campaign;
    const qint64 leftCount = detailShown ? m_detail->snapshot().summary.remainingCount : campaign.count - m_model->rowAt(row).grabbedCount;
    const qint64 leftCents = detailShown ? m_detail->snapshot().summary.remainingCents : campaign.totalCents - m_model->rowAt(row).grabbedCents;
    const CampaignConfirmation ask = CampaignConfirmation::forAction(action, campaign, leftCount, leftCents);
    m_dialogOpen = true;
    const bool confirmed = m_confirm(this, ask);
    m_dialogOpen = false;
    if (!confirmed || id != visiblySelectedId() || m_actionOut)
        return;  // the selection moved, or the list lost the row, while the operator was asked
    m_actionOut = ++m_serial;
    updateBusy();
    updateActions();
    Q_EMIT actionRequested(m_actionOut, id, action, operatorName());
}

void CampaignsView::approveSelected()
{
    runAction(CampaignAction::Approve);
}

void CampaignsView::launchSelected()
{
    runAction(CampaignAction::Launch);
}

void CampaignsView::pauseSelected()
{
    runAction(CampaignAction::Pause);
}

void CampaignsView::resumeSelected()
{
    runAction(CampaignAction::Resume);
}

void CampaignsView::closeSelected()
{
    runAction(CampaignAction::Close);
}

} // namespace lantern::ui
