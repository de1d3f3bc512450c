#pragma once

#include "core/config.h"

#include <memory>

namespace lantern {

class RedisClient;
class SqlConnection;

// Connections as a configuration asks for them: every console service and lanternd command
// opens its servers through these two, so a read-only profile (Config::readOnly) is enforced
// wherever commands are sent.

/** A Redis client for `config` (not yet connected); read-only when the config says so. */
std::unique_ptr<RedisClient> openRedis(const Config &config);
/** An SQL connection for this thread with the schema brought up to date; a read-only config
    opens it read-only and never migrates (that would write). */
std::unique_ptr<SqlConnection> openSql(const Config &config);

} // namespace lantern
