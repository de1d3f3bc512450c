#pragma once

#include <QString>
#include <QtGlobal>

#include <vector>

namespace lantern {
class UserTokens;
}

namespace lantern::bench {

/** Writes a bearer file for bench/wrk/bearers.lua: one line per request, the bearer
    UserTokens::mintBearer gives each uid (valid until `expiresAtSeconds`), `attempts` lines per uid.
    With one attempt the lines keep the order of `uids`; with more, all lines are shuffled (from
    `seed`), so a user's attempts spread over the run. Returns the number of lines. Throws
    LanternError when the file cannot be written. */
qint64 writeBearerFile(const QString &path, const UserTokens &tokens, qint64 expiresAtSeconds, const std::vector<qint64> &uids, int attempts,
                       quint64 seed);

} // namespace lantern::bench
