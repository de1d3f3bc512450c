#pragma once

#include "settings/config.h"

#include <QCoreApplication>
#include <QMetaType>
#include <QString>

namespace lantern {

/** The passwords of a profile: kept in the system keychain, or in memory for the session when
    there is none; never in a profile file. */
struct ProfileSecret {
    QString redisPassword;
    QString dbPassword;
    QString sentinelPassword;  // the sentinels' own (--sentinel-password)
    QString sshSecret;         // the SSH key's passphrase, or the SSH password

    bool isEmpty() const { return redisPassword.isEmpty() && dbPassword.isEmpty() && sentinelPassword.isEmpty() && sshSecret.isEmpty(); }
    bool operator==(const ProfileSecret &other) const = default;
};

/** A named set of servers the console can switch to: the Redis and SQL URLs (without
    passwords), the key prefix, the business time zone, whether every write is refused, and the
    TLS files and checks and the sentinels' user (docs/connect.md), under the names of lanternd's
    settings. Stored by ProfileStore as the same file `--profile NAME` reads. */
struct ConnectionProfile {
    Q_DECLARE_TR_FUNCTIONS(lantern::ConnectionProfile)

public:
    QString name;
    QString redisUrl = QStringLiteral("redis://127.0.0.1:6379");  // without a password
    QString dbUrl;                                               // without a password
    QString keyPrefix = QStringLiteral("lt:");
    QString timeZone;      // IANA id; empty: the system's
    bool readOnly = false;
    QString redisCa;       // redis-ca: PEM file of the CAs to trust; empty: the system's
    QString redisCert;     // redis-cert, redis-key: the client certificate for mutual TLS
    QString redisKey;
    QString redisSni;      // redis-sni: the name sent and checked instead of the host
    QString redisVerify = QStringLiteral("full");  // redis-verify: full, ca or none
    QString sentinelUser;  // sentinel-user: the sentinels' own account (redis-sentinel:// URLs)
    QString dbCa;          // db-ca, db-cert, db-key: TLS to MySQL/MariaDB
    QString dbCert;
    QString dbKey;
    QString sshHost;       // ssh-host: the SSH server the servers are reached through; empty: none
    int sshPort = 22;      // ssh-port
    QString sshUser;       // ssh-user
    QString sshAuth = QStringLiteral("agent");  // ssh-auth: agent, key or password
    QString sshKey;        // ssh-key: the private key file (auth key)

    bool operator==(const ConnectionProfile &other) const = default;

    /** 1-64 of A-Z a-z 0-9 _ . - (as --profile takes it). */
    static bool isValidName(const QString &name);
    /** Throws InvalidInputError, in words for people, for the first field that is wrong. */
    void validate() const;
    /** Moves passwords typed into the URLs into the returned secret; the URLs keep none. */
    ProfileSecret takeSecretsFromUrls();
    /** `base` (today, rules, ...) with this profile's servers, prefix, zone and access; the
        passwords come from `secret`. Throws InvalidInputError like validate(). */
    Config applyTo(Config base, const ProfileSecret &secret) const;
    /** The SSH tunnel's settings with its secret (disabled when there is no SSH host); throws
        InvalidInputError for a setting that is wrong. */
    SshOptions sshOptions(const ProfileSecret &secret) const;
    /** The profile that describes `config`'s connections (no passwords). */
    static ConnectionProfile fromConfig(const QString &name, const Config &config);

    /** `url` (a redis:// or mysql:// URL) without its password. */
    static QString withoutPassword(const QString &url);
    static QString passwordOf(const QString &url);
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::ProfileSecret)
