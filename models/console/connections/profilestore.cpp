#include "console/connections/profilestore.h"

#include "core/errors.h"

#include <QDir>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>

#include <utility>

namespace lantern {

namespace {
const QString Suffix = QStringLiteral(".conf");

/** The profile's optional settings, each under lanternd's name for it (Config::settingNames()),
    written only when set. */
constexpr std::pair<const char *, QString ConnectionProfile::*> OptionalSettings[] = {
        {"redis-ca", &ConnectionProfile::redisCa},         {"redis-cert", &ConnectionProfile::redisCert},
        {"redis-key", &ConnectionProfile::redisKey},       {"redis-sni", &ConnectionProfile::redisSni},
        {"sentinel-user", &ConnectionProfile::sentinelUser}, {"db-ca", &ConnectionProfile::dbCa},
        {"db-cert", &ConnectionProfile::dbCert},           {"db-key", &ConnectionProfile::dbKey},
        {"ssh-host", &ConnectionProfile::sshHost},         {"ssh-user", &ConnectionProfile::sshUser},
        {"ssh-key", &ConnectionProfile::sshKey},
};
} // namespace

ProfileStore::ProfileStore(QString directory) : m_directory(std::move(directory)) {}

QString ProfileStore::defaultDirectory()
{
    // The same place Config::resolve reads --profile NAME from.
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + QStringLiteral("/lantern/profiles");
}

QString ProfileStore::fileOf(const QString &name) const
{
    return m_directory + QLatin1Char('/') + name + Suffix;
}

QList<ConnectionProfile> ProfileStore::list() const
{
    QList<ConnectionProfile> profiles;
    const QDir dir(m_directory);
    for (const QString &file : dir.entryList({QStringLiteral("*.conf")}, QDir::Files | QDir::Readable, QDir::Name)) {
        ConnectionProfile profile;
        profile.name = file.chopped(Suffix.size());
        if (!ConnectionProfile::isValidName(profile.name))
            continue;
        const QSettings settings(dir.filePath(file), QSettings::IniFormat);
        profile.redisUrl = settings.value(QStringLiteral("redis"), profile.redisUrl).toString();
        profile.dbUrl = settings.value(QStringLiteral("db")).toString();
        profile.keyPrefix = settings.value(QStringLiteral("prefix"), profile.keyPrefix).toString();
        profile.timeZone = settings.value(QStringLiteral("tz")).toString();
        const QString readOnly = settings.value(QStringLiteral("read-only")).toString().trimmed().toLower();
        profile.readOnly = readOnly == QLatin1String("true") || readOnly == QLatin1String("1") || readOnly == QLatin1String("yes");
        for (const auto &[key, field] : OptionalSettings)
            profile.*field = settings.value(QLatin1String(key)).toString();
        profile.redisVerify = settings.value(QStringLiteral("redis-verify"), profile.redisVerify).toString();
        profile.sshPort = settings.value(QStringLiteral("ssh-port"), profile.sshPort).toInt();
        profile.sshAuth = settings.value(QStringLiteral("ssh-auth"), profile.sshAuth).toString();
        profiles << profile;
    }
    return profiles;
}

void ProfileStore::save(const ConnectionProfile &profile) const
{
    if (!ConnectionProfile::isValidName(profile.name))
        throw InvalidInputError(tr("A profile name is 1 to 64 letters, digits, “_”, “.” or “-”."));
    if (!QDir().mkpath(m_directory))
        throw InvalidInputError(tr("Cannot create the folder %1 for connection profiles.").arg(m_directory));
    QSettings settings(fileOf(profile.name), QSettings::IniFormat);
    settings.clear();
    settings.setValue(QStringLiteral("redis"), ConnectionProfile::withoutPassword(profile.redisUrl));
    settings.setValue(QStringLiteral("db"), ConnectionProfile::withoutPassword(profile.dbUrl));
    settings.setValue(QStringLiteral("prefix"), profile.keyPrefix);
    if (!profile.timeZone.isEmpty())
        settings.setValue(QStringLiteral("tz"), profile.timeZone);
    settings.setValue(QStringLiteral("read-only"), profile.readOnly ? QStringLiteral("true") : QStringLiteral("false"));
    for (const auto &[key, field] : OptionalSettings) {
        if (!(profile.*field).trimmed().isEmpty())
            settings.setValue(QLatin1String(key), (profile.*field).trimmed());
    }
    if (!profile.redisVerify.isEmpty() && profile.redisVerify != QLatin1String("full"))
        settings.setValue(QStringLiteral("redis-verify"), profile.redisVerify);
    if (!profile.sshHost.trimmed().isEmpty()) {
        settings.setValue(QStringLiteral("ssh-port"), profile.sshPort);
        settings.setValue(QStringLiteral("ssh-auth"), profile.sshAuth);
    }
    settings.sync();
    if (settings.status() != QSettings::NoError)
        throw InvalidInputError(tr("Cannot write the profile file %1.").arg(fileOf(profile.name)));
}

bool ProfileStore::remove(const QString &name) const
{
    return ConnectionProfile::isValidName(name) && QFile::remove(fileOf(name));
}

} // namespace lantern
