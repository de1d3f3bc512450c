#include "redis/redisurl.h"

#include "core/errors.h"

#include <QUrl>

namespace lantern {

RedisUrl RedisUrl::parse(const QString &text)
{
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || url.scheme() != QLatin1String("redis") || url.host().isEmpty())
        throw InvalidInputError(tr("invalid Redis URL '%1': expected redis://[user:password@]host:port[/db]")
                                        .arg(url.isValid() ? url.toDisplayString(QUrl::RemovePassword) : text));
    RedisUrl result;
    result.host = url.host();
    result.port = url.port(6379);
    if (result.port <= 0 || result.port > 65535)
        throw InvalidInputError(tr("invalid Redis port in '%1'").arg(url.toDisplayString(QUrl::RemovePassword)));
    result.user = url.userName(QUrl::FullyDecoded);
    result.password = url.password(QUrl::FullyDecoded);
    const QString path = url.path();
    if (!path.isEmpty() && path != QLatin1String("/")) {
        bool ok = false;
        result.db = path.mid(1).toInt(&ok);
        if (!ok || result.db < 0)
            throw InvalidInputError(tr("invalid Redis database number '%1' in URL").arg(path.mid(1)));
    }
    return result;
}

QString RedisUrl::redacted() const
{
    QString auth;
    if (!user.isEmpty() || !password.isEmpty())
        auth = user + (password.isEmpty() ? QString() : QStringLiteral(":***")) + QLatin1Char('@');
    return QStringLiteral("redis://") + auth + host + QLatin1Char(':') + QString::number(port) + QLatin1Char('/')
            + QString::number(db);
}

} // namespace lantern
