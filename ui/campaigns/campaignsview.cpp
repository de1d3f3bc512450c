#include "campaigns/campaignsview.h"

#include "campaigns/campaignactionbar.h"
#include "campaigns/campaignconfirmation.h"
#include "campaigns/campaignlistpane.h"
#include "campaigns/campaigncreatedialog.h"
#include "campaigns/campaigntimesdialog.h"
#include "campaigns/campaigndetailpanel.h"
#include "campaigns/timetablepanel.h"
#include "console/campaigns/campaignlistmodel.h"
#include "console/campaigns/schedulewords.h"
#include "console/common/campaignmoney.h"
#include "console/campaigns/campaignpreviewer.h"
#include "common/consoletheme.h"
#include "common/messagebanner.h"
#include "common/writeaction.h"

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
      m_hiddenSampling(new QTimer(this)),
      m_actions(new CampaignActionBar(this)),
      m_banner(new MessageBanner(this)),
      m_listPane(new CampaignListPane(this)),
      m_detail(new CampaignDetailPanel(this)),
      m_timetable(new TimetablePanel(this))
{
    // Actions row.
    connect(m_actions, &CampaignActionBar::createClicked, this, &CampaignsView::openCreateDialog);
    connect(m_actions, &CampaignActionBar::actionClicked, this, &CampaignsView::runAction);
    connect(m_actions, &CampaignActionBar::timesClicked, this, &CampaignsView::openTimesDialog);
    connect(m_actions, &CampaignActionBar::refreshClicked, this, &CampaignsView::refresh);

    // The list, one page at a time, as the server searched and sorted it.
    connect(m_listPane, &CampaignListPane::pageWanted, this, &CampaignsView::requestList);
    connect(m_listPane, &CampaignListPane::campaignClicked, this, &CampaignsView::selectCampaign);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(m_listPane);
    splitter->addWidget(m_detail);
    connect(m_detail, &CampaignDetailPanel::viewRequested, this, &ConsoleView::openView);
    connect(m_detail, &CampaignDetailPanel::everyRowRequested, this, [this] { requestSnapshot(true); });
    // The list is for choosing; the live view below gets most of the height.
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    // The timetable (issue 30) under the live view, as small as its header and a few rows.
    splitter->addWidget(m_timetable);
    splitter->setStretchFactor(2, 0);
    // Seven rows of the list and the timetable's few; the live view between them takes the rest
    // (it scrolls when short).
    splitter->setSizes({m_listPane->heightForRows(7), m_listPane->heightForRows(14), m_timetable->sizeHint().height()});

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 12, 16, 8);
    layout->setSpacing(10);
    layout->addWidget(m_actions);
    layout->addWidget(m_banner);
    layout->addWidget(splitter, 1);

    m_detail->showNothing(tr("Connecting…"));
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
    m_listPane->rewind();
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

void CampaignsView::requestList()
{
    if (!m_service)
        return;
    m_listOut = ++m_serial;
    updateBusy();
    Q_EMIT listRequested(m_listOut, m_listPane->offset(), PageSize, m_listPane->query());
}

QVariantMap CampaignsView::viewState() const
{
    QVariantMap state = m_listPane->state();
    state.insert(QStringLiteral("selected"), m_selectedId);
    return state;
}

void CampaignsView::restoreViewState(const QVariantMap &state)
{
    m_listPane->restoreState(state);
    m_selectedId = state.value(QStringLiteral("selected")).toLongLong();
    requestList();
    if (m_selectedId != 0)
        requestSnapshot();
}

void CampaignsView::requestSnapshot(bool everyRow)
{
    if (!m_service || m_selectedId == 0)
        return;
    m_snapshotOut = ++m_serial;
    updateBusy();
    Q_EMIT snapshotRequested(m_snapshotOut, m_selectedId, everyRow);
}

void CampaignsView::selectCampaign(qint64 id)
{
    const bool changed = id != m_selectedId;
    m_selectedId = id;
    m_listPane->select(id);
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

void CampaignsView::onPageLoaded(quint64 serial, const CampaignPage &page)
{
    if (serial != m_listOut)
        return;  // superseded
    m_listOut = 0;
    updateBusy();
    m_banner->readSucceeded();
    m_listPane->setPage(page);

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
    m_listPane->rewind();
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
        if (m_listPane->model()->rowCount() == 0)
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
    return m_selectedId != 0 && m_listPane->selectedRowId() == m_selectedId ? m_selectedId : 0;
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
    const int row = m_listPane->model()->rowOf(m_selectedId);
    if (row < 0)
        return std::nullopt;
    return m_listPane->model()->rowAt(row).campaign;
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
    const CampaignListModel *model = m_listPane->model();
    const int row = model->rowOf(id);
    const bool detailShown = m_detail->campaignId() == id;
    const Campaign campaign = detailShown ? m_detail->snapshot().summary.campaign : model->rowAt(row).campaign;
    const qint64 leftCount = detailShown ? m_detail->snapshot().summary.remainingCount : campaign.count - model->rowAt(row).grabbedCount;
    const qint64 leftCents = detailShown ? m_detail->snapshot().summary.remainingCents : campaign.totalCents - model->rowAt(row).grabbedCents;
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
