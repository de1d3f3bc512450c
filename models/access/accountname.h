#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QString>

namespace lantern::access {

/** Names and passwords that go into statement text: CREATE USER, GRANT and SET DEFAULT ROLE take
    no placeholders for an account name, nor CREATE USER for a password (MariaDB 10.11 answers
    1064 to `IDENTIFIED BY ?`), so they are checked here before any text is built. */
class AccountName final {
    Q_DECLARE_TR_FUNCTIONS(lantern::access::AccountName)

public:
    static constexpr int MaxLength = 32;

    /** A lowercase letter, then up to 31 of a-z 0-9 _ (no quote, no '@'). Throws
        InvalidInputError otherwise. */
    static QString validated(const QString &name);
    /** 12 to 128 printable ASCII characters other than ' " \ and `. Throws InvalidInputError. */
    static QByteArray validatedPassword(const QByteArray &password);
    /** 24 characters of a-z A-Z 0-9 from the system's random generator (143 bits). */
    static QByteArray generatedPassword();

    /** MariaDB's mysql_native_password hash, "*" + hex(SHA1(SHA1(password))) uppercase: what
        `IDENTIFIED BY PASSWORD '...'` takes, so the password itself is never statement text. */
    static QByteArray nativePasswordHash(const QByteArray &password);
    /** Redis's "#<sha256 hex>" rule: the ACL user's password without the password in ACL text. */
    static QByteArray redisPasswordRule(const QByteArray &password);
};

} // namespace lantern::access
