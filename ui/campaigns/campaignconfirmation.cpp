#include "campaigns/campaignconfirmation.h"

#include "console/campaigns/campaignlistmodel.h"
#include "console/common/campaignmoney.h"

#include <QLocale>
#include <QMessageBox>
#include <QPushButton>

namespace lantern::ui {

CampaignConfirmation CampaignConfirmation::forAction(CampaignAction action, const Campaign &campaign, qint64 leftCount, qint64 leftCents)
{
    const QLocale locale;
    const qint64 id = campaign.id;
    const QString &name = campaign.name;
    CampaignConfirmation ask;
    switch (action) {
    case CampaignAction::Launch:
        ask.title = tr("Launch campaign #%1?").arg(id);
        ask.text = tr("“%1” goes live now: its %2 envelopes (%3 in all) are written to the ledger and put in the grab pool, "
                      "and users can grab at once.\n\nA launch cannot be undone; you can pause the campaign at any time.")
                           .arg(name, locale.toString(campaign.count), formatYuan(campaign.totalCents));
        ask.goAhead = tr("Launch now");
        break;
    case CampaignAction::Pause:
        ask.title = tr("Pause campaign #%1?").arg(id);
        ask.text = tr("Grabs of “%1” stop at once: every grab is answered “not live” until you resume it. "
                      "Envelopes already grabbed are still paid out.")
                           .arg(name);
        ask.goAhead = tr("Pause grabs");
        ask.enterGoesAhead = true;
        break;
    case CampaignAction::Resume:
        ask.title = tr("Resume campaign #%1?").arg(id);
        ask.text = leftCount > 0 ? tr("Grabs of “%1” start again at once, for the %2 envelopes left (%3).")
                                           .arg(name, locale.toString(leftCount), formatYuan(leftCents))
                                 : tr("Grabs of “%1” start again at once, but every envelope has been grabbed: users are told it is sold out.")
                                           .arg(name);
        ask.goAhead = tr("Resume grabs");
        break;
    case CampaignAction::Close:
        ask.title = tr("Close campaign #%1?").arg(id);
        if (leftCount == 0) {
            ask.text = tr("Closing “%1” is final: grabs stop for good. Every envelope has been grabbed, so nothing is "
                          "refunded; envelopes already grabbed are still paid out.\n\nThis cannot be undone.")
                               .arg(name);
        } else if (campaign.status == CampaignStatus::Live) {
            // The crowd goes on grabbing while the operator reads: the figure is the one read last.
            ask.text = tr("Closing “%1” is final: grabs stop for good and the envelopes left then are refunded: about %2 envelopes "
                          "(%3) as last read, fewer if the crowd grabs more before the close. Envelopes already grabbed are still "
                          "paid out.\n\nThis cannot be undone.")
                               .arg(name, locale.toString(leftCount), formatYuan(leftCents));
        } else {
            ask.text = tr("Closing “%1” is final: grabs stop for good and the %2 envelopes left (%3) are refunded. "
                          "Envelopes already grabbed are still paid out.\n\nThis cannot be undone.")
                               .arg(name, locale.toString(leftCount), formatYuan(leftCents));
        }
        ask.goAhead = tr("Close and refund");
        break;
    case CampaignAction::Approve:
        ask.title = tr("Approve campaign #%1?").arg(id);
        ask.text = tr("“%1” (%2 envelopes, %3 in all) is above the four-eyes bound. %4 created it; your approval, as a second "
                      "manager, lets any manager launch it, and is audited under your account.\n\nCheck the amounts and the split "
                      "preview before you approve: an approval cannot be taken back.")
                           .arg(name, locale.toString(campaign.count), formatYuan(campaign.totalCents), campaign.createdBy);
        ask.goAhead = tr("Approve");
        break;
    }
    return ask;
}

QString CampaignConfirmation::outcome(CampaignAction action, const Campaign &campaign, bool changed)
{
    if (!changed) {
        if (action == CampaignAction::Approve)
            return tr("Campaign #%1 was approved already, by %2; nothing changed.").arg(campaign.id).arg(campaign.approvedBy);
        return tr("Campaign #%1 already was %2; nothing changed.").arg(campaign.id).arg(CampaignListModel::statusText(campaign.status).toLower());
    }
    switch (action) {
    case CampaignAction::Launch:
        return tr("Campaign #%1 is live: users can grab now.").arg(campaign.id);
    case CampaignAction::Pause:
        return tr("Campaign #%1 is paused: every grab is refused until you resume it.").arg(campaign.id);
    case CampaignAction::Resume:
        return tr("Campaign #%1 is live again.").arg(campaign.id);
    case CampaignAction::Close:
        return tr("Campaign #%1 is closed; %2 were refunded.").arg(campaign.id).arg(formatYuan(campaign.refundedCents));
    case CampaignAction::Approve:
        return tr("Campaign #%1 is approved by %2: a manager can launch it now.").arg(campaign.id).arg(campaign.approvedBy);
    }
    return {};
}

std::unique_ptr<QMessageBox> CampaignConfirmation::messageBox(QWidget *parent) const
{
    auto box = std::make_unique<QMessageBox>(QMessageBox::Warning, title, text, QMessageBox::NoButton, parent);
    QPushButton *go = box->addButton(goAhead, QMessageBox::AcceptRole);
    go->setObjectName(QStringLiteral("goAhead"));
    QPushButton *cancel = box->addButton(QMessageBox::Cancel);
    box->setDefaultButton(enterGoesAhead ? go : cancel);
    box->setEscapeButton(cancel);
    return box;
}

QAbstractButton *CampaignConfirmation::goAheadButton(const QMessageBox &box)
{
    return box.findChild<QAbstractButton *>(QStringLiteral("goAhead"));
}

} // namespace lantern::ui
