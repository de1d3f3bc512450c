#pragma once

#include "envelope/envelopesplitter.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace lantern {

enum class CampaignStatus { Draft, Live, Paused, Closed };

QString campaignStatusName(CampaignStatus status);
std::optional<CampaignStatus> campaignStatusFromName(const QString &name);

/** A red-envelope campaign as SQL keeps it (DESIGN §3). Money is int64 cents. */
struct Campaign {
    qint64 id = 0;
    QString name;
    qint64 totalCents = 0;
    qint64 count = 0;
    qint64 minCents = 1;
    SplitAlgorithm algorithm = SplitAlgorithm::DoubleMean;
    quint64 seed = 0;  // recorded so the split can be reproduced for an audit
    int maxAttempts = 9;
    int pools = 1;  // sub-pools in Redis (campaign create --pools K)
    QByteArray poolNames;  // "42,42.7,42.9" once a launch named them (CampaignPools::field); empty before
    CampaignStatus status = CampaignStatus::Draft;
    qint64 refundedCents = 0;
    qint64 createdAtMs = 0;
    // Four eyes (issue 25; stamped by the database from the accounts, never by a client):
    QString createdBy;           // the account that created it ('' on SQLite or before 0007)
    bool needsApproval = false;  // its total was above the bound `access install` set
    QString approvedBy;          // the other account that approved it; empty: not approved
    qint64 approvedAtMs = 0;

    bool awaitsApproval() const { return needsApproval && approvedBy.isEmpty(); }

    SplitSpec splitSpec() const { return {totalCents, count, minCents, algorithm, seed}; }
};

/** {"id","name","status","total_cents","count","min_cents","algorithm","seed","max_attempts",
    "refunded_cents"} (and "pools" when over one): what campaign commands print and their audit
    rows hold (DESIGN §6). */
QJsonObject campaignJson(const Campaign &campaign);

} // namespace lantern
