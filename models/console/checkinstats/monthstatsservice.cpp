#include "console/checkinstats/monthstatsservice.h"

#include "checkin/keptmonthstats.h"
#include "core/errors.h"
#include "redis/redisclient.h"

namespace lantern {

MonthStatsService::MonthStatsService(Config config, QObject *parent)
    : QObject(parent), m_config(std::move(config)), m_keys(m_config.keyPrefix, m_config.shards)
{
    qRegisterMetaType<lantern::MonthStats>();
}

MonthStatsService::~MonthStatsService() = default;

void MonthStatsService::load(quint64 serial, QDate month)
{
    try {
        // The figures a worker keeps (one key) when they are there for today; else the blocks.
        const QDate today = m_config.today();
        if (const auto kept = KeptMonthStats::read(m_connections.redis(), m_keys, month, today)) {
            Q_EMIT loaded(serial, *kept);
            return;
        }
        Q_EMIT loaded(serial, MonthStatsReader(m_connections.redis(), m_keys).read(month, today));
    } catch (const LanternError &error) {
        m_connections.dropRedis();
        Q_EMIT loadFailed(serial, error.message());
    } catch (const std::exception &error) {
        m_connections.dropRedis();
        Q_EMIT loadFailed(serial, QString::fromLocal8Bit(error.what()));
    }
}

} // namespace lantern
