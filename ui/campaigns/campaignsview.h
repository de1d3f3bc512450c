#pragma once

#include "console/campaigns/campaignconsoleservice.h"
#include "console/common/dedicatedthread.h"
#include "campaigns/campaignlistpane.h"
#include "common/consoleview.h"

#include <functional>
#include <memory>

class QLabel;
class QLineEdit;
class QTimer;
class QTableView;
class QToolButton;

namespace lantern {
class CampaignListModel;
class CampaignPreviewer;
}

namespace lantern::ui {

struct CampaignConfirmation;

class CampaignActionBar;
class CampaignCreateDialog;
class CampaignTimesDialog;
class CampaignDetailPanel;
class MessageBanner;
class TimetablePanel;

/** The Campaigns view: a paged list of campaigns, a create dialog with a preview of the split,
    launch / pause / resume / close (each confirmed and audited under the operator's name), and
    the live view of the selected campaign with its ledger check. It never touches Redis or SQL:
    a CampaignConsoleService and a CampaignPreviewer run on threads of their own, requests go
    as queued signals with a serial, and only the newest answer is shown. */
class CampaignsView final : public ConsoleView {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CampaignsView)

public:
    /** Asks the operator to confirm an action; true to go ahead. Replaceable for tests. */
    using Confirmation = std::function<bool(QWidget *parent, const CampaignConfirmation &ask)>;
    static constexpr int PageSize = CampaignListPane::PageSize;
    /** While hidden the view still reads the selected campaign every HiddenSampleMs, so its
        grabs-per-second chart has the time it was away (the window refreshes only the view on
        screen). */
    static constexpr int HiddenSampleMs = 10'000;

    explicit CampaignsView(QWidget *parent = nullptr);
    ~CampaignsView() override;

    QString viewName() const override { return QStringLiteral("campaigns"); }
    QString title() const override { return tr("Campaigns"); }
    void attachBackend(const Config &config) override;
    void refresh() override;
    bool wantsAutoRefresh() const override;
    void prepareScreenshot(const ScreenshotRequest &request) override;
    QVariantMap viewState() const override;
    void restoreViewState(const QVariantMap &state) override;

    /** Uses `service` and `previewer`, which live on other threads and outlive this view's use. */
    void setService(CampaignConsoleService *service, CampaignPreviewer *previewer);
    void setConfirmation(Confirmation confirmation) { m_confirm = std::move(confirmation); }
    /** The default: CampaignConfirmation::messageBox(), run modally. */
    static Confirmation messageBoxConfirmation();

    /** Shows campaign `id` in the live view (and selects it when it is on the page). */
    void selectCampaign(qint64 id);
    qint64 selectedCampaignId() const { return m_selectedId; }
    TimetablePanel *timetable() const { return m_timetable; }
    /** Opens the create dialog (non-modal; it is returned so tests can fill it). */
    CampaignCreateDialog *openCreateDialog();
    /** Each asks for confirmation, then runs on the service thread. */
    void approveSelected();
    void launchSelected();
    void pauseSelected();
    void resumeSelected();
    void closeSelected();
    /** Opens "Times…" for the selected campaign (non-modal; returned so tests can fill it). */
    CampaignTimesDialog *openTimesDialog();
    /** The list's own (CampaignListPane), each read from the server. */
    void showPage(qint64 offset) { m_listPane->showPage(offset); }
    void search(const QString &text) { m_listPane->search(text); }
    void sortBy(int column, Qt::SortOrder order) { m_listPane->sortBy(column, order); }
    void showFourEyesOnly(bool only) { m_listPane->showFourEyesOnly(only); }
    const CampaignListQuery &listQuery() const { return m_listPane->query(); }
    QLineEdit *searchField() const { return m_listPane->searchField(); }

    /** Sets the session's operator (operatorIdentity()). */
    void setOperatorName(const QString &name);
    QString operatorName() const;
    bool isBusy() const { return m_listOut || m_snapshotOut || m_actionOut; }
    CampaignListModel *listModel() const { return m_listPane->model(); }
    QTableView *listView() const { return m_listPane->view(); }
    CampaignDetailPanel *detailPanel() const { return m_detail; }
    MessageBanner *banner() const { return m_banner; }

Q_SIGNALS:
    void listRequested(quint64 serial, qint64 offset, int limit, const lantern::CampaignListQuery &query);
    void snapshotRequested(quint64 serial, qint64 campaignId, bool everyRow);
    void createRequested(quint64 serial, const lantern::CampaignDraft &draft, const lantern::ScheduleRequest &schedule, const QString &operatorName);
    void rescheduleRequested(quint64 serial, qint64 campaignId, const lantern::ScheduleRequest &request, const QString &operatorName);
    void actionRequested(quint64 serial, qint64 campaignId, lantern::CampaignAction action, const QString &operatorName);

    void pageShown();
    void campaignShown(const lantern::CampaignSnapshot &snapshot);
    void campaignCreated(const lantern::Campaign &campaign);
    void actionDone(lantern::CampaignAction action, const lantern::Campaign &campaign);
    void timesSaved(qint64 campaignId, const QList<lantern::ScheduledTransition> &transitions);

protected:
    void readOnlyChanged() override { updateActions(); }
    void operatorChanged() override { updateActions(); }

private:
    void requestList();
    void requestSnapshot(bool everyRow = false);
    void runAction(CampaignAction action);
    void onPageLoaded(quint64 serial, const CampaignPage &page);
    void onSnapshotLoaded(quint64 serial, const CampaignSnapshot &snapshot);
    void onCreated(quint64 serial, const Campaign &campaign);
    void onRescheduled(quint64 serial, qint64 campaignId, const QList<ScheduledTransition> &transitions);
    void onActed(quint64 serial, CampaignAction action, const Campaign &campaign, bool changed);
    void onFailed(quint64 serial, const QString &message, const QString &detail);
    void updateActions();
    void updateBusy();
    void finishScreenshot(bool ok, const QString &message = {});
    /** The campaign selected in the list as it is shown: 0 when a search or a page hides it. */
    qint64 visiblySelectedId() const;
    /** The visibly selected campaign as last read (the live view, else the list). */
    std::optional<Campaign> selectedCampaign() const;

    std::unique_ptr<DedicatedThread<CampaignConsoleService>> m_serviceThread;
    std::unique_ptr<DedicatedThread<CampaignPreviewer>> m_previewThread;
    CampaignConsoleService *m_service = nullptr;
    CampaignPreviewer *m_previewer = nullptr;
    Confirmation m_confirm;
    quint64 m_serial = 0;
    quint64 m_listOut = 0;      // serials of the requests out, 0 for none
    quint64 m_snapshotOut = 0;
    quint64 m_actionOut = 0;
    QTimer *m_hiddenSampling;
    qint64 m_selectedId = 0;
    bool m_dialogOpen = false;
    bool m_screenshot = false;
    qint64 m_screenshotCampaign = 0;

    CampaignActionBar *m_actions;
    MessageBanner *m_banner;
    CampaignListPane *m_listPane;
    CampaignDetailPanel *m_detail;
    TimetablePanel *m_timetable;
};

} // namespace lantern::ui
