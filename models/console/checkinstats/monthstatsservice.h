#pragma once

#include "checkin/monthstats.h"
#include "redis/keyschema.h"
#include "settings/config.h"
#include "settings/configconnections.h"

#include <QObject>

namespace lantern {

/** The console's month statistics (MonthStatsReader), on a thread of its own (DedicatedThread):
    talk to it through queued calls of load(); the answer comes back as a queued signal carrying
    the request's serial. Its Redis connection is opened in that thread on first use. */
class MonthStatsService final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MonthStatsService)

public:
    explicit MonthStatsService(Config config, QObject *parent = nullptr);
    ~MonthStatsService() override;

    const Config &config() const { return m_config; }

public Q_SLOTS:
    void load(quint64 serial, QDate month);

Q_SIGNALS:
    void loaded(quint64 serial, const lantern::MonthStats &stats);
    /** `message`: what went wrong, translated where Lantern raised it. */
    void loadFailed(quint64 serial, const QString &message);

private:
    Config m_config;
    KeySchema m_keys;
    LazyConnections m_connections{m_config};
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::MonthStats)
