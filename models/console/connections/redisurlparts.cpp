#include "console/connections/redisurlparts.h"

namespace lantern {

RedisUrlParts RedisUrlParts::split(const QString &url)
{
    RedisUrlParts parts;
    QString rest = url.trimmed();
    if (const qsizetype schemeEnd = rest.indexOf(QLatin1String("://")); schemeEnd >= 0) {
        const QString scheme = rest.left(schemeEnd).toLower();
        parts.tls = scheme.startsWith(QLatin1String("rediss"));
        parts.sentinel = scheme.endsWith(QLatin1String("-sentinel"));
        rest = rest.mid(schemeEnd + 3);
    }
    if (const qsizetype hash = rest.indexOf(QLatin1Char('#')); hash >= 0) {
        parts.master = rest.mid(hash + 1);
        rest.truncate(hash);
    }
    if (const qsizetype at = rest.lastIndexOf(QLatin1Char('@')); at >= 0) {
        parts.account = rest.left(at);
        rest = rest.mid(at + 1);
    }
    if (const qsizetype slash = rest.indexOf(QLatin1Char('/')); slash >= 0) {
        parts.db = rest.mid(slash + 1);
        rest.truncate(slash);
    }
    parts.hosts = rest;
    return parts;
}

QString RedisUrlParts::join() const
{
    QString url = tls ? QStringLiteral("rediss") : QStringLiteral("redis");
    if (sentinel)
        url += QStringLiteral("-sentinel");
    url += QStringLiteral("://");
    if (!account.isEmpty())
        url += account + QLatin1Char('@');
    url += hosts;
    if (!db.isEmpty())
        url += QLatin1Char('/') + db;
    if (sentinel)
        url += QLatin1Char('#') + master;
    return url;
}

} // namespace lantern
