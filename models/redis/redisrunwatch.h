#pragma once

#include <QByteArray>

namespace lantern {

class RedisClient;

/** Tells when the Redis server behind a client is not the one last checked (its run_id
    changed: a restart or a failover), i.e. when its state may have rolled back. On a Redis
    Cluster, when any master is not the one last checked (a master restarted or a replica
    promoted). The first call reports a change too: a worker starting cannot know what happened
    before it. */
class RedisRunWatch final {
public:
    /** One INFO round trip per master. */
    bool changed(RedisClient &redis);
    /** The server seen by the last changed() has been checked; until then changed() stays true. */
    void checked() { m_checked = m_seen; }
    /** "host:port=run_id ..." of every master, as the last changed() saw them. */
    const QByteArray &seen() const { return m_seen; }

private:
    QByteArray m_seen;
    QByteArray m_checked;
};

} // namespace lantern
