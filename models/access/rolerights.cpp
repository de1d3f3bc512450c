#include "access/rolerights.h"

#include <QStringList>

namespace lantern::access {

namespace {

const QString All = QStringLiteral("*");

QList<SqlGrant> readAll()
{
    return {{QStringLiteral("SELECT"), All}};
}

/** The columns a campaign's transitions change (status, the refund, the pools' names chosen
    at the first launch); never its amounts, its creator or its approver. */
SqlGrant campaignTransitions()
{
    return {QStringLiteral("UPDATE (status, refunded_cents, pool_names)"), QStringLiteral("campaign")};
}

/** What a drain, a recovery and a reconcile write: the ledger of check-ins and of payouts. */
QList<SqlGrant> ledgerWrites()
{
    return {{QStringLiteral("INSERT"), QStringLiteral("checkin_log")},
            {QStringLiteral("INSERT"), QStringLiteral("points_ledger")},
            {QStringLiteral("INSERT"), QStringLiteral("grab")},
            {QStringLiteral("INSERT"), QStringLiteral("grab_refused")},
            {QStringLiteral("INSERT, UPDATE"), QStringLiteral("payout")},
            {QStringLiteral("INSERT, UPDATE"), QStringLiteral("ledger_tally")}};
}

/** A launch records the split its envelope rows make (a resumed launch writes it again). */
SqlGrant splitRecord()
{
    return {QStringLiteral("INSERT, UPDATE"), QStringLiteral("envelope_split")};
}

const SqlGrant AuditInsert{QStringLiteral("INSERT"), QStringLiteral("audit_log")};

/** Redis commands every account needs to connect and find its way (a cluster's slot map, the
    server's clock) and to read; KEYS, and everything @dangerous, never. */
QByteArrayList connectAndRead()
{
    return {"resetchannels", "-@all", "+ping", "+time", "+cluster|slots", "+select", "+@read", "+bitfield", "+evalsha_ro",
            "-@dangerous"};
}

/** Writes through Lantern's scripts and its own commands, within the key patterns given. */
QByteArrayList scriptedWrites()
{
    return {"+@write", "+@transaction", "+evalsha", "-@dangerous"};
}

} // namespace

QList<SqlGrant> RoleRights::sqlGrants(Role role)
{
    QList<SqlGrant> grants = readAll();
    switch (role) {
    case Role::Viewer:
        break;
    case Role::Support:
        grants << SqlGrant{QStringLiteral("INSERT"), QStringLiteral("checkin_log")}
               << SqlGrant{QStringLiteral("INSERT"), QStringLiteral("points_ledger")} << AuditInsert;
        break;
    case Role::Manager:
        grants << SqlGrant{QStringLiteral("INSERT"), QStringLiteral("campaign")}
               << SqlGrant{QStringLiteral("UPDATE (status, refunded_cents, pool_names, approved_by, approved_at_ms)"), QStringLiteral("campaign")}
               << SqlGrant{QStringLiteral("INSERT"), QStringLiteral("envelope")} << splitRecord()
               << SqlGrant{QStringLiteral("INSERT, UPDATE, DELETE"), QStringLiteral("campaign_schedule")} << AuditInsert;
        break;
    case Role::Oncall:
        grants << ledgerWrites() << campaignTransitions() << AuditInsert;
        break;
    case Role::Worker:
        grants << ledgerWrites() << campaignTransitions() << SqlGrant{QStringLiteral("INSERT"), QStringLiteral("envelope")} << splitRecord()
               << SqlGrant{QStringLiteral("UPDATE"), QStringLiteral("campaign_schedule")} << AuditInsert;
        break;
    case Role::Api:
        break;
    case Role::Admin:
        grants = {{QStringLiteral("ALL PRIVILEGES"), All}};
        break;
    }
    return grants;
}

QByteArrayList RoleRights::redisRules(Role role, const QByteArray &prefix)
{
    const QByteArray checkins = prefix + "{ck:*";
    const QByteArray campaigns = prefix + "{cp:*";
    QByteArrayList rules = connectAndRead();
    rules << "%R~" + prefix + '*';
    switch (role) {
    case Role::Viewer:
        break;
    case Role::Support:
        rules << scriptedWrites() << "~" + checkins;
        break;
    case Role::Manager:
        rules << scriptedWrites() << "~" + campaigns << "~" + prefix + "campaigns";
        break;
    case Role::Oncall:
        rules << scriptedWrites() << "~" + campaigns << "~" + checkins << "~" + prefix + "campaigns" << "~" + prefix + "switches";
        break;
    case Role::Worker:
    case Role::Api:
    case Role::Admin:
        // The services load Lantern's scripts after a restart (docs/security.md) and read the
        // server's persistence settings (INFO); operators may do neither.
        rules << scriptedWrites() << "+@blocking" << "+script|load" << "+info" << "~" + prefix + '*';
        break;
    }
    // A client that finds the master through Redis Sentinel asks each node it connects to for
    // its ROLE (redis.io "Sentinel clients"); ROLE is @dangerous by category, and says no more
    // than the replication role, offsets and replica addresses. Last, after every -@dangerous.
    rules << "+role";
    return rules;
}

QString RoleRights::markdownTable()
{
    QString text = QStringLiteral("| role | may | MariaDB grants (role `<database>_<role>`, on Lantern's database) | Redis ACL rules (prefix `lt:`) |\n"
                                  "|---|---|---|---|\n");
    for (Role role : Roles::all()) {
        QStringList actions;
        for (Action action : Roles::actionsOf(role))
            actions << Roles::actionText(action);
        if (role == Role::Admin)
            actions << QStringLiteral("every action above, and migrations (accounts: the server's administrative account, see below)");
        QStringList grants;
        for (const SqlGrant &grant : sqlGrants(role))
            grants << QStringLiteral("%1 ON %2").arg(grant.privileges, grant.table == All ? QStringLiteral("`*`") : grant.table);
        const QByteArrayList rules = redisRules(role, QByteArrayLiteral("lt:"));
        text += QStringLiteral("| %1 | %2 | %3 | `%4` |\n")
                        .arg(Roles::name(role), actions.join(QStringLiteral(", ")), grants.join(QStringLiteral("; ")),
                             QString::fromLatin1(rules.join(' ')).replace(QLatin1Char('|'), QLatin1String("\\|")));
    }
    return text;
}

} // namespace lantern::access
