#pragma once

#include "envelope/campaign.h"
#include "envelope/campaignservice.h"

#include <QCoreApplication>
#include <QString>

namespace lantern {

class SqlConnection;

/** Four eyes on big campaigns (issue 25, point 7): a draft above the bound launches only once a
    manager account other than its creator approved it. The database is the authority (migration
    0007's triggers stamp the approver from the connection's account and refuse the creator's own
    approval and a launch without one); this class asks it, says why it refuses in words, and
    records the approval in audit_log in the same transaction. `lanternd campaign approve` and the
    console's Approve… both run it. */
class CampaignApproval final {
    Q_DECLARE_TR_FUNCTIONS(lantern::CampaignApproval)

public:
    explicit CampaignApproval(SqlConnection &sql);

    /** Approves draft `id` as `account` (the connection's own, AccountIdentity::account).
        InvalidInputError: SQLite (no accounts) or no such campaign. RefusedError: not a draft.
        NamedRefusal "same_account": `account` created it. Approving one approved already (by
        anyone) changes nothing and sets `*changed` false; an approval writes one
        "campaign.approve" row under `audit`. Returns the campaign as it now is. */
    Campaign approve(qint64 id, const QString &account, const TransitionAudit &audit, bool *changed = nullptr);

private:
    SqlConnection &m_sql;
};

} // namespace lantern
