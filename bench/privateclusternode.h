#pragma once

#include "redis/redisurl.h"

#include <QProcess>
#include <QString>

namespace lantern::bench {

/** A 1-master Redis Cluster without a replica, started by the bench for its own use: one
    `redis-server --cluster-enabled yes` in `workDir` on a free port at most 55535 whose bus port
    (+10000) is free too, every slot given to it (CLUSTER ADDSLOTSRANGE 0 16383), ready once it
    reports cluster_state:ok. The same persistence settings as scripts/services' single server
    (no RDB, no AOF). Stopped (SHUTDOWN NOSAVE, then SIGKILL) when it goes out of scope. */
class PrivateClusterNode final {
public:
    explicit PrivateClusterNode(const QString &workDir);
    ~PrivateClusterNode();
    Q_DISABLE_COPY_MOVE(PrivateClusterNode)

    RedisUrl url() const { return RedisUrl::parse(QStringLiteral("redis://127.0.0.1:%1").arg(m_port)); }
    int port() const { return m_port; }
    /** The redis-server command line, as the report prints it. */
    QString commandLine() const { return m_commandLine; }

private:
    /** Starts redis-server on `port`; false if it exited before answering (the port was taken). */
    bool start(const QString &workDir, int port);
    void assignEverySlot();

    QProcess m_process;
    QString m_commandLine;
    int m_port = 0;
};

} // namespace lantern::bench
