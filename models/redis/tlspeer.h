#pragma once

#include "redis/redistls.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QString>
#include <QStringList>

namespace lantern {

/** What a server's certificate says, in words for people: the TLS errors of RedisStream and the
    per-hop report of a connection test. */
struct TlsPeer {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisClient)

public:
    /** The certificate's subject, e.g. "CN=redis.example.com". */
    static QString subject(const X509 *certificate);
    /** The DNS names and IP addresses it is for (subject alternative names; the CN when it has none). */
    static QStringList names(const X509 *certificate);
    /** When it stops being valid (UTC); invalid when it cannot be read. */
    static QDateTime expiry(const X509 *certificate);

    /** "TLSv1.3, certificate CN=..., valid until 2027-01-01 00:00 UTC, verify full". */
    static QString summary(const QString &protocol, const X509 *certificate, RedisTlsOptions::Verify verify);
    /** Why a chain that failed OpenSSL's check (X509_V_ERR_*) is refused: untrusted, expired, ... */
    static QString explainUntrusted(long verifyResult, const X509 *certificate, const RedisTlsOptions &options);
    /** A certificate whose names do not include `expected` (both are named). */
    static QString explainNameMismatch(const X509 *certificate, const QString &expected);
};

} // namespace lantern
