#pragma once

#include "access/role.h"

#include <QByteArrayList>
#include <QCoreApplication>
#include <QList>
#include <QString>

namespace lantern::access {

/** One GRANT of a role: `privileges` ("SELECT", "UPDATE (status, refunded_cents)") on `table`
    of Lantern's database, or on every table of it when `table` is "*". Constant text: no value
    from outside goes into it. */
struct SqlGrant {
    QString privileges;
    QString table;
};

/** What each role holds on the servers: the MariaDB grants and the Redis ACL rules. The
    installer, `operator add` and docs/security.md's table are all made from these lists. */
class RoleRights final {
    Q_DECLARE_TR_FUNCTIONS(lantern::access::RoleRights)

public:
    static QList<SqlGrant> sqlGrants(Role role);
    /** The ACL SETUSER rules after "reset on #<password hash>", for keys under `prefix`. */
    static QByteArrayList redisRules(Role role, const QByteArray &prefix);
    /** docs/security.md's rights table (Markdown), for the default prefix "lt:". */
    static QString markdownTable();
};

} // namespace lantern::access
