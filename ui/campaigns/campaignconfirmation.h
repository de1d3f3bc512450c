#pragma once

#include "console/campaigns/campaignconsoleservice.h"

#include <QCoreApplication>
#include <QString>

#include <memory>

class QAbstractButton;
class QMessageBox;
class QWidget;

namespace lantern::ui {

/** What the operator is asked before a campaign action: a title, the consequences in plain
    words (amounts from int64 cents), and the label of the button that goes ahead. */
struct CampaignConfirmation {
    Q_DECLARE_TR_FUNCTIONS(lantern::ui::CampaignConfirmation)

public:
    QString title;
    QString text;
    QString goAhead;
    /** Whether Return presses the button that goes ahead. Only for Pause, the kill switch: the
        operator reaches for it in a hurry, and it loses nothing (Resume undoes it). For every
        other action Return cancels, like Escape. */
    bool enterGoesAhead = false;

    /** `leftCount`/`leftCents`: what is still in the pool (resume, close). */
    static CampaignConfirmation forAction(CampaignAction action, const Campaign &campaign, qint64 leftCount, qint64 leftCents);

    /** What the banner says once `action` answered: what changed, or that nothing did. */
    static QString outcome(CampaignAction action, const Campaign &campaign, bool changed);

    /** A warning QMessageBox (not shown yet) with the text, the go-ahead button and Cancel, whose
        default button follows enterGoesAhead; goAheadButton() finds the first in it. */
    std::unique_ptr<QMessageBox> messageBox(QWidget *parent) const;
    static QAbstractButton *goAheadButton(const QMessageBox &box);
};

} // namespace lantern::ui
