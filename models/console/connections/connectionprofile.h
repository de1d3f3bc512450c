#pragma once

#include "core/config.h"

#include <QCoreApplication>
#include <QMetaType>
#include <QString>

namespace lantern {

/** The passwords of a profile: kept in the system keychain, or in memory for the session when
    there is none; never in a profile file. */
struct ProfileSecret {
    QString redisPassword;
    QString dbPassword;

    bool isEmpty() const { return redisPassword.isEmpty() && dbPassword.isEmpty(); }
    bool operator==(const ProfileSecret &other) const = default;
};

/** A named set of servers the console can switch to: the Redis and SQL URLs (without
    passwords), the key prefix, the business time zone and whether every write is refused.
    Stored by ProfileStore as the same file `--profile NAME` reads. */
struct ConnectionProfile {
    Q_DECLARE_TR_FUNCTIONS(lantern::ConnectionProfile)

public:
    QString name;
    QString redisUrl = QStringLiteral("redis://127.0.0.1:6379");  // without a password
    QString dbUrl;                                               // without a password
    QString keyPrefix = QStringLiteral("lt:");
    QString timeZone;      // IANA id; empty: the system's
    bool readOnly = false;

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
    /** The profile that describes `config`'s connections (no passwords). */
    static ConnectionProfile fromConfig(const QString &name, const Config &config);

    /** `url` (a redis:// or mysql:// URL) without its password. */
    static QString withoutPassword(const QString &url);
    static QString passwordOf(const QString &url);
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::ProfileSecret)
