#pragma once

#include "settings/config.h"

namespace lantern {

/** Whether `candidate` would put the session on a server of `session`'s: the same Redis (host
    and port, any loopback spelling counting as one host) or the same SQLite file. The Connections
    view refuses such a profile while the session is a sandbox, whose servers end with it. */
bool sharesServers(const Config &candidate, const Config &session);

} // namespace lantern
