#pragma once

#include <QCoreApplication>
#include <QList>
#include <QString>

#include <optional>

namespace lantern::access {

/** The jobs Lantern knows (DESIGN §8): each is a MariaDB role and a Redis ACL rule set. */
enum class Role { Viewer, Support, Manager, Oncall, Worker, Api, Admin };

/** What an account is allowed to ask for; each lanternd command and console action is one. */
enum class Action {
    None,             // touches no server (token)
    Read,             // show, list, verify, queues, calendar, stats
    Checkin,          // a user's own check-in (the API's job)
    Grab,             // a user's own grab (the API's job)
    Makeup,
    CampaignCreate,
    CampaignApprove,
    CampaignLaunch,
    CampaignPause,
    CampaignResume,
    CampaignClose,
    CampaignSchedule,
    CampaignRepair,
    Recover,
    DeadLetters,
    Reconcile,
    Switch,
    Work,
    Serve,
    Migrate,
    Accounts,
};

class Roles final {
    Q_DECLARE_TR_FUNCTIONS(lantern::access::Roles)

public:
    static QList<Role> all();
    /** "viewer", "support", ... as typed on the command line and shown to people. */
    static QString name(Role role);
    static std::optional<Role> fromName(const QString &name);
    /** The MariaDB role of Lantern's database `database`: "lantern_viewer" for database
        "lantern", so two Lantern databases on one server keep their rights apart. */
    static QString sqlRole(Role role, const QString &database);
    static std::optional<Role> fromSqlRole(const QString &sqlRole, const QString &database);
    /** Operators are people; worker, api and admin are the services and the set-up. */
    static bool isOperator(Role role);

    /** "launch campaigns": what "the account alice (support) may not %1" says. */
    static QString actionText(Action action);
    /** The action of a lanternd command ("campaign launch"); nullopt for one the table lacks. */
    static std::optional<Action> actionOfCommand(const QString &words);
    static bool allows(Role role, Action action);
    static QList<Action> actionsOf(Role role);
};

} // namespace lantern::access
