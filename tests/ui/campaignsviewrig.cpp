#include "campaignsviewrig.h"

#include "common/messagebanner.h"
#include "sql/migrator.h"
#include "testservers.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

namespace lantern::test {

void CampaignsViewRig::start(const QTimeZone &zone, const std::optional<DbUrl> &db, const QString &prefix)
{
    QStandardPaths::setTestModeEnabled(true);
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    config.redis = redisUrl();
    config.db = db.value_or(sqliteUrl());
    config.keyPrefix = prefix.isEmpty() ? uniquePrefix() : prefix;
    config.timeZone = zone;
    QVERIFY(config.timeZone.isValid());
    keys = std::make_unique<KeySchema>(config.keyPrefix, config.shards);
    redis = std::make_unique<RedisClient>(config.redis);
    sql = std::make_unique<SqlConnection>(config.db);
    if (!db)
        Migrator(*sql).migrate();
    service = std::make_unique<DedicatedThread<CampaignConsoleService>>(QStringLiteral("campaigns"), config);
    previewer = std::make_unique<DedicatedThread<CampaignPreviewer>>(QStringLiteral("split-preview"));
    QVERIFY(service->get()->thread() != QThread::currentThread());
    QVERIFY(previewer->get()->thread() != QThread::currentThread());
    view = std::make_unique<ui::CampaignsView>();
}

void CampaignsViewRig::show(QSize size, int timeoutMs)
{
    QSignalSpy pages(view.get(), &ui::CampaignsView::pageShown);
    QSignalSpy failed(view.get(), &ui::CampaignsView::failed);
    view->setService(service->get(), previewer->get());
    view->resize(size);
    view->show();
    QVERIFY(QTest::qWaitForWindowExposed(view.get()));
    QTRY_VERIFY_WITH_TIMEOUT(!pages.isEmpty() || !failed.isEmpty(), timeoutMs);
    QVERIFY2(failed.isEmpty(), qPrintable(view->banner()->text()));
}

void CampaignsViewRig::stop()
{
    view.reset();
    service.reset();
    previewer.reset();
}

} // namespace lantern::test
