#include "redis/redisurl.h"

#include "core/errors.h"

#include <QStringList>
#include <QUrl>

namespace lantern {

namespace {

RedisUrl parseOneNode(const QString &text)
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
    result.port = url.port(6379);
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
    // redis://[userinfo@]h1:p1,h2:p2[/db]: each seed is parsed as a URL of its own, so a seed list
    // is validated exactly like one node.
    const QLatin1String scheme(text.startsWith(QLatin1String("rediss://")) ? "rediss://" : "redis://");
    if (!text.startsWith(scheme) || !text.contains(QLatin1Char(',')))
        return parseOneNode(text);
    const QString rest = text.mid(scheme.size());
    const qsizetype at = rest.lastIndexOf(QLatin1Char('@'));
    const qsizetype slash = rest.indexOf(QLatin1Char('/'), at + 1);
    const QString userInfo = rest.left(at + 1);  // "user:password@", or empty
    const QString nodes = rest.mid(at + 1, slash < 0 ? -1 : slash - at - 1);
    const QString path = slash < 0 ? QString() : rest.mid(slash);
    if (!nodes.contains(QLatin1Char(',')))  // the comma is elsewhere (a password): one node
        return parseOneNode(text);

    RedisUrl result;
    const QStringList seeds = nodes.split(QLatin1Char(','));
    for (qsizetype i = 0; i < seeds.size(); ++i) {
        if (seeds.at(i).trimmed().isEmpty())
            throw InvalidInputError(tr("invalid Redis URL '%1': seed %2 of the list is empty; expected "
                                       "redis://[user:password@]host:port,host:port,...")
                                            .arg(QString(scheme) + nodes)
                                            .arg(i + 1));
        const RedisUrl seed = parseOneNode(QString(scheme) + userInfo + seeds.at(i) + path);
        if (i == 0)
            result = seed;
        else
            result.moreSeeds.append({seed.host, seed.port});
    }
    if (result.db != 0)
        throw InvalidInputError(tr("invalid Redis URL '%1': a seed list names a Redis Cluster, which has only database 0")
                                        .arg(result.redacted()));
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
    return (tls.enabled ? QStringLiteral("rediss://") : QStringLiteral("redis://")) + auth + nodes.join(QLatin1Char(',')) + QLatin1Char('/') + QString::number(db);
}

} // namespace lantern
