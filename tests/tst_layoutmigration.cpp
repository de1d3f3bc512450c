// `lanternd migrate-redis` (issue 11) on one redis-server: the old layout moves to the blocks
// while check-ins keep arriving (tests/support/layoutmigrationscenario.h).
#include "layoutmigrationscenario.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "testservers.h"
#include "testsuite.h"

#include <QTest>

namespace tst_layoutmigration {

using namespace lantern;

class TestLayoutMigration : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void migratesWhileCheckinsArrive();

private:
    RedisUrl m_redisUrl;
};

void TestLayoutMigration::initTestCase()
{
    m_redisUrl = test::redisUrl();
}

void TestLayoutMigration::migratesWhileCheckinsArrive()
{
    RedisClient redis(m_redisUrl);
    const KeySchema keys(test::uniquePrefix(), 4);
    test::migratesWhileCheckinsArrive(redis, keys);
}

LANTERN_TEST_SUITE(TestLayoutMigration);

} // namespace tst_layoutmigration

#include "tst_layoutmigration.moc"
