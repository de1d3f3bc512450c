#pragma once

#include "console/campaigns/campaignconsoleservice.h"

#include <QWidget>

#include <optional>

class QProgressBar;
class QPushButton;
class QToolButton;

namespace lantern::ui {

class OperatorIdentity;

/** The Campaigns view's row of actions: New campaign…, Approve…, Launch…, Pause…, Resume…,
    Close…, Times…, refresh and the busy bar. Each is enabled only for the campaign visibly
    selected in the list and for what its status, the connection and the session's account allow,
    and says why not in its tooltip before anything is typed (issues 24 and 25). Approve… shows
    only while the selected draft awaits a second manager (four eyes). */
class CampaignActionBar final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CampaignActionBar)

public:
    /** What the buttons follow. */
    struct State {
        bool connected = false;       // a service to send to
        bool canCreate = false;       // the split previewer too
        bool actionOut = false;       // a change is on its way: nothing else until it answers
        bool readOnly = false;
        qint64 shownId = 0;           // the campaign the live view follows (0: none)
        /** The campaign as last read, when it is the one visibly selected in the list; none when
            a search or a page hides it. */
        std::optional<Campaign> selected;
        bool timesRead = false;       // the live view read its times
    };

    explicit CampaignActionBar(QWidget *parent = nullptr);
    ~CampaignActionBar() override;

    void update(const State &state, const OperatorIdentity *identity);
    void setBusy(bool busy);
    /** Why the session may not approve `campaign` (its creator may not), in words; empty when
        nothing on the console's side stands in the way. */
    static QString approvalProblem(const Campaign &campaign, const OperatorIdentity *identity);

Q_SIGNALS:
    void createClicked();
    void actionClicked(lantern::CampaignAction action);
    void timesClicked();
    void refreshClicked();

private:
    QPushButton *m_newButton;
    QPushButton *m_approveButton;
    QPushButton *m_launchButton;
    QPushButton *m_pauseButton;
    QPushButton *m_resumeButton;
    QPushButton *m_closeButton;
    QPushButton *m_timesButton;
    QToolButton *m_refreshButton;
    QProgressBar *m_busy;
};

} // namespace lantern::ui
