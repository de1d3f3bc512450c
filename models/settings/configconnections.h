#pragma once

#include "settings/config.h"

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

/** A service's Redis and SQL connections, opened through openRedis/openSql on first use, in the
    thread that uses them, and closed with the object (so in that thread too). */
class LazyConnections final {
public:
    explicit LazyConnections(const Config &config);
    ~LazyConnections();
    Q_DISABLE_COPY_MOVE(LazyConnections)

    RedisClient &redis();
    SqlConnection &sql();
    /** After an outage: the next call opens a new one. */
    void dropRedis();
    void dropSql();

private:
    const Config &m_config;
    std::unique_ptr<RedisClient> m_redis;
    std::unique_ptr<SqlConnection> m_sql;
};

} // namespace lantern
