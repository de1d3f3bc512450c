#pragma once

#include "redis/redistls.h"

#include <QDateTime>
#include <QString>
#include <QStringList>

namespace lantern {

// What a server's certificate says, in words for people: the TLS errors of RedisStream and the
// per-hop report of a connection test.

/** The certificate's subject, e.g. "CN=redis.example.com". */
QString certificateSubject(const X509 *certificate);
/** The DNS names and IP addresses it is for (subject alternative names; the CN when it has none). */
QStringList certificateNames(const X509 *certificate);
/** When it stops being valid (UTC); invalid when it cannot be read. */
QDateTime certificateExpiry(const X509 *certificate);

/** "TLSv1.3, CN=..., valid until 2027-01-01, verify full". */
QString tlsSummary(const QString &protocol, const X509 *certificate, RedisTlsOptions::Verify verify);
/** Why a chain that failed OpenSSL's check (X509_V_ERR_*) is refused: untrusted, expired, ... */
QString explainUntrusted(long verifyResult, const X509 *certificate, const RedisTlsOptions &options);
/** A certificate whose names do not include `expected` (both are named). */
QString explainNameMismatch(const X509 *certificate, const QString &expected);

} // namespace lantern
