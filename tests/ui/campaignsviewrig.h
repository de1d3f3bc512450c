#pragma once

#include "campaigns/campaignsview.h"
#include "console/campaigns/campaignconsoleservice.h"
#include "console/campaigns/campaignpreviewer.h"
#include "console/common/dedicatedthread.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "settings/config.h"
#include "sql/sqlconnection.h"

#include <QSize>

#include <memory>
#include <optional>

namespace lantern::test {

/** The Campaigns view as the suites drive it: the harness's Redis and a fresh SQLite file under
    a prefix of their own, the view's service and split previewer on threads of their own, and
    the suite's own clients of both servers for what it checks. */
struct CampaignsViewRig {
    Config config;
    std::unique_ptr<KeySchema> keys;
    std::unique_ptr<RedisClient> redis;
    std::unique_ptr<SqlConnection> sql;
    std::unique_ptr<DedicatedThread<CampaignConsoleService>> service;
    std::unique_ptr<DedicatedThread<CampaignPreviewer>> previewer;
    std::unique_ptr<ui::CampaignsView> view;

    /** Connects, migrates, starts the threads and makes the view (not shown: the suite sets it up
        first). `config` is the harness's, with the time zone given, on `db` when given (a
        migrated database: an operator account may not migrate) instead of a fresh SQLite file,
        under `prefix` when given (consoles sharing campaigns) instead of one of its own. */
    void start(const QTimeZone &zone = QTimeZone::systemTimeZone(), const std::optional<DbUrl> &db = std::nullopt, const QString &prefix = {});
    /** Attaches the view to its service, shows it at `size` and waits for its first page;
        fails the test (QTest::currentTestFailed()) when the page does not come. */
    void show(QSize size, int timeoutMs);
    /** The view first, then the service (it closes its connections in its own thread). */
    void stop();
};

} // namespace lantern::test
