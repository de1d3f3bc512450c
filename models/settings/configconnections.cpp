#include "settings/configconnections.h"

#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"

namespace lantern {

std::unique_ptr<RedisClient> openRedis(const Config &config)
{
    RedisOptions options;
    options.readOnly = config.readOnly;
    return std::make_unique<RedisClient>(config.redis, options);
}

std::unique_ptr<SqlConnection> openSql(const Config &config)
{
    if (config.readOnly)
        return std::make_unique<SqlConnection>(config.db, SqlAccess::ReadOnly);
    return openMigrated(config.db);
}

LazyConnections::LazyConnections(const Config &config) : m_config(config)
{
}

LazyConnections::~LazyConnections() = default;

RedisClient &LazyConnections::redis()
{
    if (!m_redis)
        m_redis = openRedis(m_config);
    return *m_redis;
}

SqlConnection &LazyConnections::sql()
{
    if (!m_sql)
        m_sql = openSql(m_config);
    return *m_sql;
}

void LazyConnections::dropRedis()
{
    m_redis.reset();
}

void LazyConnections::dropSql()
{
    m_sql.reset();
}

} // namespace lantern
