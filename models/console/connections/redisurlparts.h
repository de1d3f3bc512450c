#pragma once

#include <QString>

namespace lantern {

/** A Redis URL as the profile form edits it, piece by piece: the scheme's two switches (TLS,
    Sentinel), the account, the hosts, the database and the Sentinel master's name. Splitting and
    joining keep the text as typed (no validation: RedisUrl::parse does that), so that the URL
    field and the TLS and Sentinel fields can show one URL both ways. */
struct RedisUrlParts {
    bool tls = false;       // rediss:// or rediss-sentinel://
    bool sentinel = false;  // redis-sentinel:// or rediss-sentinel://
    QString account;        // "user", "user:password", ":password" (before '@'); empty: none
    QString hosts;          // "host:port" or "h1:p1,h2:p2" (the sentinels, through Sentinel)
    QString db;             // the digits after '/'; empty: none
    QString master;         // after '#': the master's name at the sentinels

    static RedisUrlParts split(const QString &url);
    QString join() const;
    bool operator==(const RedisUrlParts &other) const = default;
};

} // namespace lantern
