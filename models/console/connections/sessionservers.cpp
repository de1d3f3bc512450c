#include "console/connections/sessionservers.h"

#include <QFileInfo>
#include <QHostAddress>

namespace lantern {

namespace {
bool isLoopback(const QString &host)
{
    return host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0 || QHostAddress(host).isLoopback();
}
} // namespace

bool sharesServers(const Config &candidate, const Config &session)
{
    const RedisUrl &own = session.redis;
    const bool sameHost = candidate.redis.host == own.host || (isLoopback(candidate.redis.host) && isLoopback(own.host));
    const bool sameRedis = candidate.redis.port == own.port && sameHost && own.port != 0;
    const bool sameFile = candidate.db.dialect == DbUrl::Dialect::Sqlite && session.db.dialect == DbUrl::Dialect::Sqlite
                          && QFileInfo(candidate.db.path).absoluteFilePath() == QFileInfo(session.db.path).absoluteFilePath();
    return sameRedis || sameFile;
}

} // namespace lantern
