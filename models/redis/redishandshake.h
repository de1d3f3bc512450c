#pragma once

#include "redis/redisurl.h"
#include "redis/redisvalue.h"

#include <QByteArrayList>
#include <QCoreApplication>
#include <QList>

#include <vector>

namespace lantern {

/** The commands that open every connection to a Redis node, and what their replies mean: AUTH
    with the URL's credentials, the caller's probes (CLUSTER SLOTS on connect), SELECT of the
    URL's database; all in one round trip. The one set-up of the blocking client and of the event
    loops' pipe, so both say the same thing of a wrong password or a missing database. */
class RedisHandshake final {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisClient)

public:
    explicit RedisHandshake(const RedisUrl &url, const QList<QByteArrayList> &probes = {});

    /** Every command, in order: what goes out ahead of anything else on a new connection. */
    const QList<QByteArrayList> &commands() const { return m_commands; }
    /** The probes' replies (error replies as values), given the replies to commands(). Throws for
        a refused AUTH or SELECT: RedisNotReadyError (a server that cannot serve yet: -LOADING,
        -BUSY), RedisUrlMismatchError (a database the server lacks, a database on a cluster node),
        RedisIoError (a wrong password, any other refusal). */
    std::vector<RedisValue> judge(std::vector<RedisValue> replies, const RedisEndpoint &node) const;

private:
    RedisUrl m_url;
    QList<QByteArrayList> m_commands;
    qsizetype m_firstProbe = 0;
    qsizetype m_probes = 0;
};

} // namespace lantern
