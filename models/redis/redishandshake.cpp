#include "redis/redishandshake.h"

#include "redis/rediserror.h"

namespace lantern {

RedisHandshake::RedisHandshake(const RedisUrl &url, const QList<QByteArrayList> &probes) : m_url(url)
{
    if (!url.password.isEmpty()) {
        QByteArrayList auth{QByteArrayLiteral("AUTH")};
        if (!url.user.isEmpty())
            auth << url.user.toUtf8();
        auth << url.password.toUtf8();
        m_commands << auth;
    }
    m_firstProbe = m_commands.size();
    m_probes = probes.size();
    m_commands << probes;
    if (url.db != 0)
        m_commands << QByteArrayList{QByteArrayLiteral("SELECT"), QByteArray::number(url.db)};
}

std::vector<RedisValue> RedisHandshake::judge(std::vector<RedisValue> replies, const RedisEndpoint &node) const
{
    std::vector<RedisValue> probeReplies;
    for (qsizetype i = 0; i < qsizetype(replies.size()); ++i) {
        RedisValue &reply = replies[size_t(i)];
        if (i >= m_firstProbe && i < m_firstProbe + m_probes) {
            probeReplies.push_back(std::move(reply));
            continue;
        }
        if (!reply.isError())
            continue;
        if (const auto state = RedisNotReadyError::stateOf(reply.string))
            throw RedisNotReadyError::at(*state, node.host, node.port);  // SELECT during a long script: -BUSY
        if (reply.string.contains("DB index is out of range"))
            throw RedisUrlMismatchError(tr("invalid Redis URL: %1 has no database %2 (Redis at %3)").arg(m_url.redacted()).arg(m_url.db).arg(node.text()));
        if (reply.string.contains("not allowed in cluster mode"))
            throw RedisUrlMismatchError(tr("invalid Redis URL: %1 is a Redis Cluster node, and a cluster has only database 0; "
                                           "leave the database out of the URL")
                                                .arg(m_url.redacted()));
        throw RedisIoError(tr("Redis at %1 rejected the connection: %2").arg(node.text(), QString::fromUtf8(reply.string)));
    }
    return probeReplies;
}

} // namespace lantern
