#include "console/connections/connectionprofile.h"

#include "core/errors.h"

#include <QRegularExpression>
#include <QUrl>

namespace lantern {

bool ConnectionProfile::isValidName(const QString &name)
{
    static const QRegularExpression validName(QStringLiteral("^[A-Za-z0-9_.-]{1,64}$"));
    return validName.match(name).hasMatch();
}

QString ConnectionProfile::withoutPassword(const QString &url)
{
    QUrl parsed(url.trimmed(), QUrl::StrictMode);
    if (!parsed.isValid() || parsed.password().isEmpty())
        return url.trimmed();
    parsed.setPassword(QString());
    return parsed.toString();
}

QString ConnectionProfile::passwordOf(const QString &url)
{
    const QUrl parsed(url.trimmed(), QUrl::StrictMode);
    return parsed.isValid() ? parsed.password(QUrl::FullyDecoded) : QString();
}

ProfileSecret ConnectionProfile::takeSecretsFromUrls()
{
    ProfileSecret secret{passwordOf(redisUrl), passwordOf(dbUrl)};
    redisUrl = withoutPassword(redisUrl);
    dbUrl = withoutPassword(dbUrl);
    return secret;
}

void ConnectionProfile::validate() const
{
    applyTo(Config(), {});
}

Config ConnectionProfile::applyTo(Config base, const ProfileSecret &secret) const
{
    if (!isValidName(name))
        throw InvalidInputError(tr("A profile name is 1 to 64 letters, digits, “_”, “.” or “-”."));
    base.redis = RedisUrl::parse(redisUrl.trimmed());
    if (!secret.redisPassword.isEmpty())
        base.redis.password = secret.redisPassword;
    if (dbUrl.trimmed().isEmpty())
        throw InvalidInputError(tr("The profile needs an SQL URL, such as mysql://user@host:3306/lantern or sqlite:///path/lantern.db."));
    base.db = DbUrl::parse(dbUrl.trimmed());
    if (!secret.dbPassword.isEmpty() && base.db.dialect == DbUrl::Dialect::MySql)
        base.db.password = secret.dbPassword;
    if (keyPrefix.isEmpty())
        throw InvalidInputError(tr("The key prefix cannot be empty (the default is “lt:”)."));
    base.keyPrefix = keyPrefix;
    if (!timeZone.isEmpty()) {
        const QTimeZone zone(timeZone.toUtf8());
        if (!zone.isValid())
            throw InvalidInputError(tr("“%1” is not a time zone; use a name such as Asia/Shanghai.").arg(timeZone));
        base.timeZone = zone;
    } else {
        base.timeZone = QTimeZone::systemTimeZone();
    }
    base.readOnly = readOnly;
    base.profile = name;
    return base;
}

ConnectionProfile ConnectionProfile::fromConfig(const QString &name, const Config &config)
{
    ConnectionProfile profile;
    profile.name = name;
    RedisUrl redis = config.redis;
    redis.password.clear();
    profile.redisUrl = redis.redacted();  // no password left to redact: the URL as typed
    DbUrl db = config.db;
    db.password.clear();
    profile.dbUrl = db.redacted();
    profile.keyPrefix = config.keyPrefix;
    profile.timeZone = QString::fromUtf8(config.timeZone.id());
    profile.readOnly = config.readOnly;
    return profile;
}

} // namespace lantern
