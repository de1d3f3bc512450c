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

RedisAccounts::~RedisAccounts() = default;
RedisAccounts::RedisAccounts(RedisAccounts &&) noexcept = default;

void RedisAccounts::reachEveryNode()
{
    if (!m_connections.empty())
        return;
    m_nodes = DataNodes::find(m_admin, RedisOptions{});
    std::vector<std::unique_ptr<RedisConnection>> connections;
    for (const DataNode &node : std::as_const(m_nodes)) {
        auto connection = std::make_unique<RedisConnection>(node.endpoint, m_admin.url(), RedisOptions{});
        try {
            connection->open();
        } catch (const UnavailableError &error) {
            throw RedisIoError(tr("cannot reach the Redis node %1, so no account was changed anywhere: %2%3")
                                       .arg(node.text(), error.message(),
                                            m_admin.url().isSentinel() && !node.master
                                                    ? tr(" (a replica the sentinels still list after it is gone for good is forgotten with "
                                                         "SENTINEL RESET %1)")
                                                              .arg(m_admin.url().sentinelMaster)
                                                    : QString()));
        }
        connections.push_back(std::move(connection));
    }
    m_connections = std::move(connections);
}

QList<RedisAclWrite> RedisAccounts::onEveryNode(const QByteArrayList &command)
{
    reachEveryNode();
    QList<RedisAclWrite> written;
    for (size_t i = 0; i < m_connections.size(); ++i) {
        const DataNode &node = m_nodes.at(qsizetype(i));
        QString failure;
        bool replied = false;  // the node refused the command (else: it stopped answering)
        RedisAclWrite write{node};
        try {
            RedisConnection &connection = *m_connections[i];
            connection.append(command);
            connection.append({QByteArrayLiteral("ACL"), QByteArrayLiteral("SAVE")});
            const RedisValue changed = connection.read();
            const RedisValue saved = connection.read();
            if (changed.isError()) {
                failure = QString::fromUtf8(changed.string);
                replied = true;
            }
            write.saved = !saved.isError();  // else: no aclfile on this node (docs/security.md: how ACLs persist)
        } catch (const UnavailableError &error) {
            failure = error.message();
        }
        if (!failure.isEmpty()) {
            QStringList done;
            QStringList left;
            for (const RedisAclWrite &before : std::as_const(written))
                done << before.node.text();
            for (size_t j = i; j < m_connections.size(); ++j)
                left << m_nodes.at(qsizetype(j)).text();
            const QString message = tr("%1 failed on %2: %3. Written on: %4; not on: %5")
                                            .arg(QString::fromLatin1(command.mid(0, 2).join(' ')), node.text(), failure,
                                                 done.isEmpty() ? tr("no node") : done.join(QStringLiteral(", ")), left.join(QStringLiteral(", ")));
            if (replied)
                throw RedisReplyError(message);
            throw RedisIoError(message);
        }
        written.append(write);
    }
    return written;
}

QList<RedisAclWrite> RedisAccounts::setUser(const QString &name, Role role, const QByteArray &password)
{
    QByteArrayList command{QByteArrayLiteral("ACL"), QByteArrayLiteral("SETUSER"), AccountName::validated(name).toLatin1(),
                           QByteArrayLiteral("reset"), QByteArrayLiteral("on"), AccountName::redisPasswordRule(password)};
    command << RoleRights::redisRules(role, m_prefix);
    return onEveryNode(command);
}

QList<RedisAclWrite> RedisAccounts::deleteUser(const QString &name)
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
