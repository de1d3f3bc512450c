#pragma once

#include "access/role.h"
#include "redis/redisurl.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QList>

namespace lantern {
class RedisClient;
}

namespace lantern::access {

/** What one change of ACL users did: on how many nodes, and on how many it was saved to the
    node's aclfile (ACL SAVE) so that it survives a restart. */
struct RedisAclOutcome {
    int nodes = 0;
    int saved = 0;
};

/** The Redis side of access: an ACL user per operator with its role's rules, set on every node
    (on a cluster every master and every replica: ACL users are not replicated). Needs an
    administrative Redis account (ACL, CLUSTER NODES, SCRIPT LOAD). */
class RedisAccounts final {
    Q_DECLARE_TR_FUNCTIONS(lantern::access::RedisAccounts)

public:
    RedisAccounts(RedisClient &admin, QByteArray prefix);

    /** Every node: the cluster's masters and replicas (CLUSTER NODES), or the one server. */
    QList<RedisEndpoint> nodes();

    /** Creates or replaces the user: reset, on, the password's hash, the role's rules. */
    RedisAclOutcome setUser(const QString &name, Role role, const QByteArray &password);
    RedisAclOutcome deleteUser(const QString &name);
    /** Loads Lantern's Lua scripts on every master, so operators (who may not SCRIPT LOAD) find
        them; returns how many scripts. */
    int loadScripts();

private:
    RedisAclOutcome onEveryNode(const QByteArrayList &command);

    RedisClient &m_admin;
    QByteArray m_prefix;
};

} // namespace lantern::access
