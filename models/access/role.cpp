#include "access/role.h"

#include <QHash>

#include <algorithm>

namespace lantern::access {

namespace {

struct RoleEntry {
    Role role;
    const char *name;
    QList<Action> actions;
};

/** Who may do what: the one table the grants, the ACL rules, the refusals and docs/security.md
    follow (rolerights.cpp holds what each action needs on the servers). */
const QList<RoleEntry> &table()
{
    static const QList<RoleEntry> entries{
            {Role::Viewer, "viewer", {Action::Read}},
            {Role::Support, "support", {Action::Read, Action::Makeup}},
            {Role::Manager, "manager",
             {Action::Read, Action::CampaignCreate, Action::CampaignApprove, Action::CampaignLaunch, Action::CampaignPause,
              Action::CampaignResume, Action::CampaignClose, Action::CampaignSchedule}},
            {Role::Oncall, "oncall",
             {Action::Read, Action::Recover, Action::DeadLetters, Action::Reconcile, Action::Switch, Action::CampaignPause,
              Action::CampaignRepair}},
            {Role::Worker, "worker", {Action::Read, Action::Work}},
            {Role::Api, "api", {Action::Read, Action::Serve, Action::Checkin, Action::Grab}},
            // Everything but accounts (allows()): MariaDB's SET DEFAULT ROLE ... FOR another account
            // needs UPDATE on the mysql schema, as good as the server's root; that account does it.
            {Role::Admin, "admin", {}},
    };
    return entries;
}

const RoleEntry &entryOf(Role role)
{
    const auto &entries = table();
    return *std::find_if(entries.cbegin(), entries.cend(), [role](const RoleEntry &entry) { return entry.role == role; });
}

} // namespace

QList<Role> Roles::all()
{
    QList<Role> roles;
    for (const RoleEntry &entry : table())
        roles << entry.role;
    return roles;
}

QString Roles::name(Role role)
{
    return QLatin1String(entryOf(role).name);
}

std::optional<Role> Roles::fromName(const QString &name)
{
    for (const RoleEntry &entry : table()) {
        if (name == QLatin1String(entry.name))
            return entry.role;
    }
    return std::nullopt;
}

QString Roles::sqlRole(Role role, const QString &database)
{
    return database + QLatin1Char('_') + name(role);
}

std::optional<Role> Roles::fromSqlRole(const QString &sqlRole, const QString &database)
{
    if (!sqlRole.startsWith(database + QLatin1Char('_')))
        return std::nullopt;
    return fromName(sqlRole.mid(database.size() + 1));
}

bool Roles::isOperator(Role role)
{
    return role == Role::Viewer || role == Role::Support || role == Role::Manager || role == Role::Oncall;
}

QString Roles::actionText(Action action)
{
    switch (action) {
    case Action::None: return tr("run this command");
    case Action::Read: return tr("read Lantern's data");
    case Action::Checkin: return tr("check users in");
    case Action::Grab: return tr("grab envelopes");
    case Action::Makeup: return tr("grant make-up check-ins");
    case Action::CampaignCreate: return tr("create campaigns");
    case Action::CampaignApprove: return tr("approve campaigns");
    case Action::CampaignLaunch: return tr("launch campaigns");
    case Action::CampaignPause: return tr("pause campaigns");
    case Action::CampaignResume: return tr("resume campaigns");
    case Action::CampaignClose: return tr("close campaigns");
    case Action::CampaignSchedule: return tr("schedule campaigns");
    case Action::CampaignRepair: return tr("repair campaigns");
    case Action::Recover: return tr("recover workers' tasks");
    case Action::DeadLetters: return tr("handle dead letters");
    case Action::Reconcile: return tr("reconcile check-ins");
    case Action::Switch: return tr("turn API features on or off");
    case Action::Work: return tr("run workers");
    case Action::Serve: return tr("serve the API");
    case Action::Migrate: return tr("migrate the schema");
    case Action::Accounts: return tr("manage accounts");
    }
    return {};
}

std::optional<Action> Roles::actionOfCommand(const QString &words)
{
    static const QHash<QString, Action> commands{
            {QStringLiteral("migrate"), Action::Migrate},
            {QStringLiteral("migrate-redis"), Action::Migrate},
            {QStringLiteral("checkin"), Action::Checkin},
            {QStringLiteral("makeup"), Action::Makeup},
            {QStringLiteral("calendar"), Action::Read},
            {QStringLiteral("reconcile"), Action::Reconcile},
            {QStringLiteral("stats"), Action::Read},
            {QStringLiteral("work"), Action::Work},
            {QStringLiteral("queues"), Action::Read},
            {QStringLiteral("recover"), Action::Recover},
            {QStringLiteral("token"), Action::None},
            {QStringLiteral("campaign create"), Action::CampaignCreate},
            {QStringLiteral("campaign approve"), Action::CampaignApprove},
            {QStringLiteral("campaign launch"), Action::CampaignLaunch},
            {QStringLiteral("campaign pause"), Action::CampaignPause},
            {QStringLiteral("campaign resume"), Action::CampaignResume},
            {QStringLiteral("campaign close"), Action::CampaignClose},
            {QStringLiteral("campaign show"), Action::Read},
            {QStringLiteral("campaign schedule"), Action::CampaignSchedule},
            {QStringLiteral("campaign list"), Action::Read},
            {QStringLiteral("campaign repair"), Action::CampaignRepair},
            {QStringLiteral("grab"), Action::Grab},
            {QStringLiteral("verify"), Action::Read},
            {QStringLiteral("serve"), Action::Serve},
            {QStringLiteral("switch"), Action::Switch},
            {QStringLiteral("access install"), Action::Accounts},
            {QStringLiteral("operator add"), Action::Accounts},
            {QStringLiteral("operator list"), Action::Accounts},
            {QStringLiteral("operator remove"), Action::Accounts},
            {QStringLiteral("operator rotate"), Action::Accounts},
            {QStringLiteral("operator set-role"), Action::Accounts},
    };
    const auto it = commands.constFind(words);
    if (it == commands.cend())
        return std::nullopt;
    return *it;
}

bool Roles::allows(Role role, Action action)
{
    if (role == Role::Admin)
        return action != Action::Accounts;
    return action == Action::None || entryOf(role).actions.contains(action);
}

QList<Action> Roles::actionsOf(Role role)
{
    return entryOf(role).actions;
}

} // namespace lantern::access
