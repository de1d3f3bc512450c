#include "redis/redisrunwatch.h"

#include "redis/redisclient.h"
#include "redis/redisvalue.h"

#include <QByteArrayList>

#include <algorithm>

namespace lantern {

bool RedisRunWatch::changed(RedisClient &redis)
{
    // Every master's run_id: on a cluster a failover (a replica promoted) or a restart of any
    // master changes it, and only that master's campaigns may have rolled back.
    QByteArrayList servers;
    for (const auto &[master, info] : redis.onEveryMaster({"INFO", "server"})) {
        throwOnErrorReply(info);
        QByteArray runId;
        for (const QByteArray &line : info.toBytes().split('\n')) {
            if (line.startsWith("run_id:"))
                runId = line.mid(7).trimmed();
        }
        servers << master.text().toUtf8() + '=' + runId;
    }
    std::sort(servers.begin(), servers.end());
    m_seen = servers.join(' ');
    return m_seen != m_checked;
}

} // namespace lantern
