#include "campaigns/campaignactionbar.h"

#include "common/consoletheme.h"
#include "shell/operatoridentity.h"
#include "common/writeaction.h"

#include <QHBoxLayout>
#include <QIcon>
#include <QProgressBar>
#include <QPushButton>
#include <QStyle>
#include <QToolButton>

namespace lantern::ui {

CampaignActionBar::CampaignActionBar(QWidget *parent)
    : QWidget(parent),
      m_newButton(new QPushButton(tr("New campaign…"), this)),
      m_approveButton(new QPushButton(tr("Approve…"), this)),
      m_launchButton(new QPushButton(tr("Launch…"), this)),
      m_pauseButton(new QPushButton(tr("Pause…"), this)),
      m_resumeButton(new QPushButton(tr("Resume…"), this)),
      m_closeButton(new QPushButton(tr("Close…"), this)),
      m_timesButton(new QPushButton(tr("Times…"), this)),
      m_refreshButton(new QToolButton(this)),
      m_busy(new QProgressBar(this))
{
    m_newButton->setObjectName(QStringLiteral("newCampaignButton"));
    m_newButton->setIcon(QIcon::fromTheme(QStringLiteral("document-new")));
    m_approveButton->setObjectName(QStringLiteral("approveButton"));
    m_approveButton->setIcon(ConsoleTheme::standardIcon(this, QStyle::SP_DialogApplyButton));
    m_approveButton->setToolTip(tr("Four eyes: as a second manager, let this campaign above the bound be launched"));
    m_launchButton->setObjectName(QStringLiteral("launchButton"));
    m_launchButton->setIcon(ConsoleTheme::standardIcon(this, QStyle::SP_MediaPlay));
    m_launchButton->setToolTip(tr("Write the envelopes and open grabs"));
    m_pauseButton->setObjectName(QStringLiteral("pauseButton"));
    m_pauseButton->setIcon(ConsoleTheme::standardIcon(this, QStyle::SP_MediaPause));
    m_pauseButton->setToolTip(tr("The kill switch: stop grabs at once"));
    m_resumeButton->setObjectName(QStringLiteral("resumeButton"));
    m_resumeButton->setIcon(ConsoleTheme::standardIcon(this, QStyle::SP_MediaPlay));
    m_resumeButton->setToolTip(tr("Open grabs again"));
    m_closeButton->setObjectName(QStringLiteral("closeButton"));
    m_closeButton->setIcon(ConsoleTheme::standardIcon(this, QStyle::SP_MediaStop));
    m_closeButton->setToolTip(tr("End the campaign for good and refund what is left"));
    m_timesButton->setObjectName(QStringLiteral("timesButton"));
    m_timesButton->setIcon(QIcon::fromTheme(QStringLiteral("appointment-new")));
    m_timesButton->setToolTip(tr("Set, change or drop the times a worker launches and closes the campaign at"));
    m_refreshButton->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
    m_refreshButton->setToolTip(tr("Read the list and the selected campaign again (F5)"));
    m_busy->setRange(0, 0);
    m_busy->setTextVisible(false);
    m_busy->setFixedWidth(96);
    m_busy->setFixedHeight(m_newButton->sizeHint().height() / 3);
    m_busy->setToolTip(tr("Waiting for Redis and the database…"));
    m_busy->setVisible(false);
    m_approveButton->setVisible(false);

    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);  // a row of buttons: never taller
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_newButton);
    row->addSpacing(12);
    row->addWidget(m_approveButton);
    row->addWidget(m_launchButton);
    row->addWidget(m_pauseButton);
    row->addWidget(m_resumeButton);
    row->addWidget(m_closeButton);
    row->addSpacing(12);
    row->addWidget(m_timesButton);
    row->addStretch(1);
    row->addWidget(m_refreshButton);
    row->addWidget(m_busy);

    connect(m_newButton, &QPushButton::clicked, this, &CampaignActionBar::createClicked);
    connect(m_approveButton, &QPushButton::clicked, this, [this] { Q_EMIT actionClicked(CampaignAction::Approve); });
    connect(m_launchButton, &QPushButton::clicked, this, [this] { Q_EMIT actionClicked(CampaignAction::Launch); });
    connect(m_pauseButton, &QPushButton::clicked, this, [this] { Q_EMIT actionClicked(CampaignAction::Pause); });
    connect(m_resumeButton, &QPushButton::clicked, this, [this] { Q_EMIT actionClicked(CampaignAction::Resume); });
    connect(m_closeButton, &QPushButton::clicked, this, [this] { Q_EMIT actionClicked(CampaignAction::Close); });
    connect(m_timesButton, &QPushButton::clicked, this, &CampaignActionBar::timesClicked);
    connect(m_refreshButton, &QToolButton::clicked, this, &CampaignActionBar::refreshClicked);
}

CampaignActionBar::~CampaignActionBar() = default;

void CampaignActionBar::setBusy(bool busy)
{
    m_busy->setVisible(busy);
}

QString CampaignActionBar::approvalProblem(const Campaign &campaign, const OperatorIdentity *identity)
{
    // The database refuses the creator's own approval whatever the console says; with an account
    // the console knows who that is and says so before anything is asked.
    if (identity && identity->isAccount() && identity->name() == campaign.createdBy)
        return CampaignConsoleService::ownApprovalRefusal(campaign.id);
    return {};
}

void CampaignActionBar::update(const State &state, const OperatorIdentity *identity)
{
    const bool ready = state.connected && !state.actionOut;
    const auto is = [&state](CampaignStatus status) { return state.selected && state.selected->status == status; };
    WriteAction::setAllowed(m_newButton, state.canCreate && !state.actionOut, state.readOnly, {}, identity, access::Action::CampaignCreate);
    // Shown (the live view still follows it) but hidden from the list by a search or a page:
    // nothing acts on it until it is selected again.
    const QString hidden = state.shownId != 0 && !state.selected
                                   ? tr("Campaign #%1 is not among the campaigns listed: select a campaign in the list to act on it.").arg(state.shownId)
                                   : QString();
    // Four eyes (issue 25): a draft above the bound launches only once another manager approved it.
    const bool awaitsApproval = is(CampaignStatus::Draft) && state.selected->awaitsApproval();
    m_approveButton->setVisible(awaitsApproval);
    if (awaitsApproval) {
        const QString problem = approvalProblem(*state.selected, identity);
        WriteAction::setAllowed(m_approveButton, ready && problem.isEmpty(), state.readOnly, problem, identity, access::Action::CampaignApprove);
    }
    const QString launchWhyNot = awaitsApproval ? tr("Campaign #%1 is above the four-eyes bound: a manager other than %2 must approve it before it is launched.")
                                                          .arg(state.selected->id)
                                                          .arg(state.selected->createdBy)
                                                : hidden;
    WriteAction::setAllowed(m_launchButton, ready && is(CampaignStatus::Draft) && !awaitsApproval, state.readOnly, launchWhyNot, identity,
                            access::Action::CampaignLaunch);
    WriteAction::setAllowed(m_pauseButton, ready && is(CampaignStatus::Live), state.readOnly, hidden, identity, access::Action::CampaignPause);
    WriteAction::setAllowed(m_resumeButton, ready && is(CampaignStatus::Paused), state.readOnly, hidden, identity, access::Action::CampaignResume);
    WriteAction::setAllowed(m_closeButton, ready && state.selected && !is(CampaignStatus::Closed), state.readOnly, hidden, identity,
                            access::Action::CampaignClose);
    // The times come with the live view's reading of the campaign.
    WriteAction::setAllowed(m_timesButton, ready && state.selected && !is(CampaignStatus::Closed) && state.timesRead, state.readOnly, hidden, identity,
                            access::Action::CampaignSchedule);
    m_refreshButton->setEnabled(state.connected);
    const QString who = identity && identity->isSet() ? tr("Audited as %1.").arg(identity->name())
                                                      : tr("You are asked for your name first: every change is audited under it.");
    for (QPushButton *button : {m_newButton, m_approveButton, m_launchButton, m_pauseButton, m_resumeButton, m_closeButton, m_timesButton})
        button->setStatusTip(who);
}

} // namespace lantern::ui
