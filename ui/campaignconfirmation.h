#pragma once

#include "console/campaignconsoleservice.h"

#include <QCoreApplication>
#include <QString>

namespace lantern::ui {

/** What the operator is asked before a campaign action: a title, the consequences in plain
    words (amounts from int64 cents), and the label of the button that goes ahead. */
struct CampaignConfirmation {
    Q_DECLARE_TR_FUNCTIONS(lantern::ui::CampaignConfirmation)

public:
    QString title;
    QString text;
    QString goAhead;

    /** `leftCount`/`leftCents`: what is still in the pool (resume, close). */
    static CampaignConfirmation forAction(CampaignAction action, const Campaign &campaign, qint64 leftCount, qint64 leftCents);
};

} // namespace lantern::ui
