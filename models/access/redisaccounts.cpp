#include "access/redisaccounts.h"

#include "access/accountname.h"
#include "access/rolerights.h"
#include "redis/rediserror.h"
#include "redis/redisclient.h"
#include "redis/redisconnection.h"

#include <QDir>
#include <QFile>

namespace lantern::access {

RedisAccounts::RedisAccounts(RedisClient &admin, QByteArray prefix) : m_admin(admin), m_prefix(std::move(prefix))
{
}

QList<RedisEndpoint> RedisAccounts::nodes()
{
    m_admin.ensureConnected();
    if (!m_admin.isCluster())
        return {RedisEndpoint{m_admin.url().host, m_admin.url().port}};
    // "<id> <host>:<port>@<bus>[,<hostname>] <flags> ..." per line, replicas included.
    const RedisValue reply = m_admin.onMaster(m_admin.clusterMasters().constFirst(), {QByteArrayLiteral("CLUSTER"), QByteArrayLiteral("NODES")});
    if (reply.isError())
        throw RedisReplyError(QString::fromUtf8(reply.string));
    QList<RedisEndpoint> endpoints;
    for (const QByteArray &line : reply.toBytes().split('\n')) {
        const QByteArrayList fields = line.split(' ');
        if (fields.size() < 3 || fields.at(2).contains("noaddr"))
            continue;
        const QByteArray address = fields.at(1).split('@').constFirst();
        const qsizetype colon = address.lastIndexOf(':');
        if (colon <= 0)
            continue;
        endpoints.append({QString::fromLatin1(address.left(colon)), address.mid(colon + 1).toInt()});
    }
    return endpoints;
}

RedisAclOutcome RedisAccounts::onEveryNode(const QByteArrayList &command)
{
    RedisAclOutcome outcome;
    for (const RedisEndpoint &node : nodes()) {
        RedisConnection connection(node, m_admin.url(), RedisOptions{});
        connection.open();
        connection.append(command);
        connection.append({QByteArrayLiteral("ACL"), QByteArrayLiteral("SAVE")});
        const RedisValue changed = connection.read();
        const RedisValue saved = connection.read();
        if (changed.isError())
            throw RedisReplyError(tr("%1 on %2: %3").arg(QString::fromLatin1(command.mid(0, 2).join(' ')), node.text(),
                                                           QString::fromUtf8(changed.string)));
        ++outcome.nodes;
        if (!saved.isError())
            ++outcome.saved;  // else: no aclfile on this node (docs/security.md: how ACLs persist)
    }
    return outcome;
}

RedisAclOutcome RedisAccounts::setUser(const QString &name, Role role, const QByteArray &password)
{
    QByteArrayList command{QByteArrayLiteral("ACL"), QByteArrayLiteral("SETUSER"), AccountName::validated(name).toLatin1(),
                           QByteArrayLiteral("reset"), QByteArrayLiteral("on"), AccountName::redisPasswordRule(password)};
    command << RoleRights::redisRules(role, m_prefix);
    return onEveryNode(command);
}

RedisAclOutcome RedisAccounts::deleteUser(const QString &name)
{
    return onEveryNode({QByteArrayLiteral("ACL"), QByteArrayLiteral("DELUSER"), AccountName::validated(name).toLatin1()});
}

int RedisAccounts::loadScripts()
{
    const QDir dir(QStringLiteral(":/lua"));
    const QStringList files = dir.entryList(QDir::Files, QDir::Name);
    for (const QString &file : files) {
        QFile script(dir.filePath(file));
        if (!script.open(QIODevice::ReadOnly))
            throw std::logic_error("Lua script resource unreadable: " + file.toStdString());
        for (const auto &[master, reply] : m_admin.onEveryMaster({QByteArrayLiteral("SCRIPT"), QByteArrayLiteral("LOAD"), script.readAll()})) {
            if (reply.isError())
                throw RedisReplyError(tr("SCRIPT LOAD on %1: %2").arg(master.text(), QString::fromUtf8(reply.string)));
        }
    }
    return int(files.size());
}

} // namespace lantern::access
