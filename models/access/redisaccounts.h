#pragma once

#include "access/role.h"
#include "redis/datanodes.h"
#include "redis/redisurl.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QList>

#include <memory>
#include <vector>

namespace lantern {
class RedisClient;
class RedisConnection;
} // namespace lantern

namespace lantern::access {

/** One node a change of ACL users was written on, and whether it saved it to its aclfile
    (ACL SAVE) so that it survives a restart. */
struct RedisAclWrite {
    DataNode node;
    bool saved = false;
};

/** The Redis side of access: an ACL user per operator with its role's rules, set on every data
    node (DataNodes: a cluster's masters and replicas, a master and its replicas, behind Sentinel
    or not; ACL users are not replicated). Needs an administrative Redis account (ACL, ROLE,
    CLUSTER NODES, SCRIPT LOAD). */
class RedisAccounts final {
    Q_DECLARE_TR_FUNCTIONS(lantern::access::RedisAccounts)

public:
    RedisAccounts(RedisClient &admin, QByteArray prefix);
    ~RedisAccounts();
    RedisAccounts(RedisAccounts &&) noexcept;
    RedisAccounts &operator=(RedisAccounts &&) = delete;

    /** Finds every data node and connects to each (the admin URL's AUTH). Throws, naming the
        node, when one cannot be reached: called before anything is written anywhere, so that an
        unreachable node leaves MariaDB and every Redis node as they were. */
    void reachEveryNode();
    /** Creates or replaces the user: reset, on, the password's hash, the role's rules. */
    QList<RedisAclWrite> setUser(const QString &name, Role role, const QByteArray &password);
    QList<RedisAclWrite> deleteUser(const QString &name);
    /** Loads Lantern's Lua scripts on every master, so operators (who may not SCRIPT LOAD) find
        them; returns how many scripts. */
    int loadScripts();

private:
    /** `command` then ACL SAVE on every node; a node that fails stops it, the error naming the
        nodes written and those not. */
    QList<RedisAclWrite> onEveryNode(const QByteArrayList &command);

    RedisClient &m_admin;
    QByteArray m_prefix;
    QList<DataNode> m_nodes;
    std::vector<std::unique_ptr<RedisConnection>> m_connections;  // one per m_nodes entry, once reached
};

} // namespace lantern::access
