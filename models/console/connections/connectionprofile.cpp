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
    ProfileSecret secret{passwordOf(redisUrl), passwordOf(dbUrl), {}, {}};
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
    // The profile's TLS and sentinel settings replace the session's: a profile is self-contained.
    const bool tls = base.redis.tls.enabled;
    base.redis.tls = RedisTlsOptions{};
    base.redis.tls.enabled = tls;
    base.redis.tls.caFile = redisCa.trimmed();
    base.redis.tls.certFile = redisCert.trimmed();
    base.redis.tls.keyFile = redisKey.trimmed();
    base.redis.tls.serverName = redisSni.trimmed();
    base.redis.tls.verify = RedisTlsOptions::parseVerify(redisVerify.isEmpty() ? QStringLiteral("full") : redisVerify, tr("the profile's verify mode"));
    base.redis.tls.check();
    base.redis.sentinelUser = sentinelUser.trimmed();
    base.redis.sentinelPassword = secret.sentinelPassword;
    if (!base.redis.isSentinel() && (!base.redis.sentinelUser.isEmpty() || !base.redis.sentinelPassword.isEmpty()))
        throw InvalidInputError(tr("Sentinel credentials are for a Redis found through Sentinel (a redis-sentinel:// URL)."));
    if (dbUrl.trimmed().isEmpty())
        throw InvalidInputError(tr("The profile needs an SQL URL, such as mysql://user@host:3306/lantern or sqlite:///path/lantern.db."));
    base.db = DbUrl::parse(dbUrl.trimmed());
    if (!secret.dbPassword.isEmpty() && base.db.dialect == DbUrl::Dialect::MySql)
        base.db.password = secret.dbPassword;
    base.db.tls = DbTlsOptions{dbCa.trimmed(), dbCert.trimmed(), dbKey.trimmed()};
    base.db.checkTls();
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
    base.ssh = sshOptions(secret);
    return base;
}

SshOptions ConnectionProfile::sshOptions(const ProfileSecret &secret) const
{
    SshOptions ssh;
    if (sshHost.trimmed().isEmpty())
        return ssh;
    ssh.host = sshHost.trimmed();
    ssh.port = sshPort;
    ssh.user = sshUser.trimmed();
    bool known = false;
    ssh.auth = SshOptions::parseAuth(sshAuth, &known);
    ssh.keyFile = sshKey.trimmed();
    ssh.secret = secret.sshSecret;
    if (!known)
        throw InvalidInputError(tr("“%1” is not a way to log in to SSH: agent, key or password.").arg(sshAuth));
    if (ssh.port < 1 || ssh.port > 65535)
        throw InvalidInputError(tr("The SSH port is 1 to 65535 (usually 22)."));
    if (ssh.user.isEmpty())
        throw InvalidInputError(tr("The SSH tunnel needs the user to log in as."));
    if (ssh.auth == SshOptions::Auth::Key && ssh.keyFile.isEmpty())
        throw InvalidInputError(tr("Choose the SSH private key file (or log in with the agent or a password)."));
    return ssh;
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
    profile.redisCa = config.redis.tls.caFile;
    profile.redisCert = config.redis.tls.certFile;
    profile.redisKey = config.redis.tls.keyFile;
    profile.redisSni = config.redis.tls.serverName;
    profile.redisVerify = RedisTlsOptions::verifyName(config.redis.tls.verify);
    profile.sentinelUser = config.redis.sentinelUser;
    profile.dbCa = config.db.tls.caFile;
    profile.dbCert = config.db.tls.certFile;
    profile.dbKey = config.db.tls.keyFile;
    profile.sshHost = config.ssh.host;
    profile.sshPort = config.ssh.port;
    profile.sshUser = config.ssh.user;
    profile.sshAuth = SshOptions::authName(config.ssh.auth);
    profile.sshKey = config.ssh.keyFile;
    return profile;
}

} // namespace lantern
