#pragma once

#include "access/role.h"

#include <QCoreApplication>
#include <QString>

#include <optional>

namespace lantern {
class SqlConnection;
}

namespace lantern::access {

/** Who a connection is, as the database authenticated it: the account's name and, when its
    active role is one of Lantern's, that role. An account without one (a single shared account,
    root, SQLite) has no role: Lantern checks nothing and the servers decide. */
struct AccountIdentity {
    Q_DECLARE_TR_FUNCTIONS(lantern::access::AccountIdentity)

public:
    QString account;
    std::optional<Role> role;

    /** "alice (support)", or "alice" without a Lantern role. */
    QString text() const;
    /** Whether Lantern's own check lets this account do `action` (always without a role). */
    bool allows(Action action) const { return !role || Roles::allows(*role, action); }
    /** "the account alice (support) may not launch campaigns". */
    QString refusal(Action action) const;

    /** MariaDB/MySQL: SELECT USER(), CURRENT_ROLE(). SQLite: an empty account, no role. */
    static AccountIdentity of(SqlConnection &connection);
    /** "`lantern_support`@`%`" (MySQL 8), "lantern_support" (MariaDB), NULL or "NONE": the role
        (Roles::sqlRole of Lantern's database `database`). */
    static std::optional<Role> parseCurrentRole(const QString &text, const QString &database);
};

} // namespace lantern::access
