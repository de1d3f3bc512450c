#include "redis/redisurl.h"

#include "core/errors.h"

#include <QStringList>
#include <QUrl>

namespace lantern {

namespace {

constexpr int SentinelPort = 26379;

RedisUrl parseOneNode(const QString &text, int defaultPort = 6379)
{
    const QUrl url(text, QUrl::StrictMode);
    const bool tls = url.scheme() == QLatin1String("rediss");
    if (!url.isValid() || (url.scheme() != QLatin1String("redis") && !tls) || url.host().isEmpty())
        throw InvalidInputError(RedisUrl::tr("invalid Redis URL '%1': expected redis://[user:password@]host:port[/db] "
                                             "(rediss:// for TLS)")
                                        .arg(url.isValid() ? url.toDisplayString(QUrl::RemovePassword) : text));
    RedisUrl result;
    result.tls.enabled = tls;
    result.host = url.host();
    result.port = url.port(defaultPort);
    if (result.port <= 0 || result.port > 65535)
        throw InvalidInputError(RedisUrl::tr("invalid Redis port in '%1'").arg(url.toDisplayString(QUrl::RemovePassword)));
    result.user = url.userName(QUrl::FullyDecoded);
    result.password = url.password(QUrl::FullyDecoded);
    const QString path = url.path();
    if (!path.isEmpty() && path != QLatin1String("/")) {
        bool ok = false;
        result.db = path.mid(1).toInt(&ok);
        if (!ok || result.db < 0)
            throw InvalidInputError(RedisUrl::tr("invalid Redis database number '%1' in URL").arg(path.mid(1)));
    }
    return result;
}

} // namespace

QString RedisEndpoint::text() const
{
    return (host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host) + QLatin1Char(':')
            + QString::number(port);
}

RedisUrl RedisUrl::parse(const QString &text)
{
    // redis-sentinel://[userinfo@]s1:p1,s2:p2[/db]#MASTER (Lettuce's form): the sentinels as a
    // seed list, the credentials and database the data nodes'.
    for (const char *sentinelScheme : {"redis-sentinel://", "rediss-sentinel://"}) {
        if (!text.startsWith(QLatin1String(sentinelScheme)))
            continue;
        const qsizetype hash = text.lastIndexOf(QLatin1Char('#'));
        const QString master = hash < 0 ? QString() : QUrl::fromPercentEncoding(text.mid(hash + 1).toUtf8());
        if (master.isEmpty())
            throw InvalidInputError(tr("invalid Redis Sentinel URL '%1': expected redis-sentinel://[user:password@]host:port"
                                       "[,host:port...][/db]#MASTER, naming the master after '#'")
                                            .arg(text.left(hash < 0 ? text.size() : hash)));
        const bool tls = QLatin1String(sentinelScheme).startsWith(QLatin1String("rediss"));
        RedisUrl result = parseNodes((tls ? QStringLiteral("rediss://") : QStringLiteral("redis://"))
                                             + text.mid(qsizetype(qstrlen(sentinelScheme)), hash - qsizetype(qstrlen(sentinelScheme))),
                                     SentinelPort);
        result.sentinelMaster = master;
        return result;
    }
    RedisUrl result = parseNodes(text, 6379);
    if (result.isSeedList() && result.db != 0)
        throw InvalidInputError(tr("invalid Redis URL '%1': a seed list names a Redis Cluster, which has only database 0")
                                        .arg(result.redacted()));
    return result;
}

RedisUrl RedisUrl::parseNodes(const QString &text, int defaultPort)
{
    // scheme://[userinfo@]h1:p1,h2:p2[/db]: each node is parsed as a URL of its own, so a list is
    // validated exactly like one node.
    const QLatin1String scheme(text.startsWith(QLatin1String("rediss://")) ? "rediss://" : "redis://");
    if (!text.startsWith(scheme) || !text.contains(QLatin1Char(',')))
        return parseOneNode(text, defaultPort);
    const QString rest = text.mid(scheme.size());
    const qsizetype at = rest.lastIndexOf(QLatin1Char('@'));
    const qsizetype slash = rest.indexOf(QLatin1Char('/'), at + 1);
    const QString userInfo = rest.left(at + 1);  // "user:password@", or empty
    const QString nodes = rest.mid(at + 1, slash < 0 ? -1 : slash - at - 1);
    const QString path = slash < 0 ? QString() : rest.mid(slash);
    if (!nodes.contains(QLatin1Char(',')))  // the comma is elsewhere (a password): one node
        return parseOneNode(text, defaultPort);

    RedisUrl result;
    const QStringList seeds = nodes.split(QLatin1Char(','));
    for (qsizetype i = 0; i < seeds.size(); ++i) {
        if (seeds.at(i).trimmed().isEmpty())
            throw InvalidInputError(tr("invalid Redis URL '%1': seed %2 of the list is empty; expected "
                                       "redis://[user:password@]host:port,host:port,...")
                                            .arg(QString(scheme) + nodes)
                                            .arg(i + 1));
        const RedisUrl seed = parseOneNode(QString(scheme) + userInfo + seeds.at(i) + path, defaultPort);
        if (i == 0)
            result = seed;
        else
            result.moreSeeds.append({seed.host, seed.port});
    }
    return result;
}

QList<RedisEndpoint> RedisUrl::seeds() const
{
    QList<RedisEndpoint> all{{host, port}};
    all.append(moreSeeds);
    return all;
}

QString RedisUrl::redacted() const
{
    QString auth;
    if (!user.isEmpty() || !password.isEmpty())
        auth = user + (password.isEmpty() ? QString() : QStringLiteral(":***")) + QLatin1Char('@');
    QStringList nodes;
    for (const RedisEndpoint &seed : seeds())
        nodes << seed.text();
    const QString scheme = QLatin1String(tls.enabled ? "rediss" : "redis") + QLatin1String(isSentinel() ? "-sentinel://" : "://");
    return scheme + auth + nodes.join(QLatin1Char(',')) + QLatin1Char('/') + QString::number(db)
            + (isSentinel() ? QLatin1Char('#') + sentinelMaster : QString());
}

} // namespace lantern
