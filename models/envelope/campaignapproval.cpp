#include "envelope/campaignapproval.h"

#include "audit/auditlog.h"
#include "core/errors.h"
#include "envelope/campaignstore.h"
#include "sql/sqlconnection.h"

namespace lantern {

CampaignApproval::CampaignApproval(SqlConnection &sql) : m_sql(sql) {}

Campaign CampaignApproval::approve(qint64 id, const QString &account, const TransitionAudit &audit, bool *changed)
{
    if (m_sql.dialect() != DbUrl::Dialect::MySql)
        throw InvalidInputError(tr("approvals need accounts, which SQLite has not (docs/security.md)"));
    bool madeChange = false;
    const Campaign campaign = m_sql.transaction([&] {
        CampaignStore store(m_sql);
        const std::optional<Campaign> found = store.find(id);
        if (!found)
            throw InvalidInputError(CampaignService::tr("no campaign with id %1").arg(id));
        const Campaign &before = *found;
        if (before.status != CampaignStatus::Draft)
            throw RefusedError(tr("campaign %1 is %2: only a draft is approved").arg(id).arg(campaignStatusName(before.status)));
        if (!before.approvedBy.isEmpty())
            return before;  // approved already: nothing written
        if (before.createdBy == account)
            throw NamedRefusal(QStringLiteral("same_account"), tr("campaign %1 was created by %2: another manager must approve it").arg(id).arg(before.createdBy));
        store.approve(id, audit.atMs);  // the database stamps the account, or refuses the creator
        const Campaign after = *store.find(id);
        QJsonObject detail = campaignJson(after);
        if (!audit.via.isEmpty())
            detail.insert(QStringLiteral("via"), audit.via);
        AuditLog(m_sql).record(audit.actor, QStringLiteral("campaign.approve"), QStringLiteral("campaign:%1").arg(id), detail, audit.atMs);
        madeChange = true;
        return after;
    });
    if (changed)
        *changed = madeChange;
    return campaign;
}

} // namespace lantern
