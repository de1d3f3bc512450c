#include "sql/configconnections.h"

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

} // namespace lantern
