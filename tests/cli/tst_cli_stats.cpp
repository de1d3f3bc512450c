// lanternd stats --month and migrate-redis (issue 11), real binary: the month's figures against a
// reference count of the check-ins and make-ups the test made; bad input refused with exit 2; a
// dry run that changes no key; the migration of old-layout keys with its progress on stderr,
// then calendars as the old keys said, and a second run that finds nothing.

#include "clitest.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "testservers.h"
#include "testsuite.h"

#include <QJsonArray>
#include <QMap>
#include <QSet>
#include <QTest>

namespace tst_cli_stats {

using namespace lantern::test::cli;

namespace {

const QDate Today(2026, 3, 5);

QString text(qint64 value)
{
    return QString::number(value);
}

} // namespace

class TestCliStats final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanupTestCase() { dropFreshDatabases(); }
    void statsMatchReference();
    void statsBadInput_data();
    void statsBadInput();
    void migrateRedis();
};

void TestCliStats::statsMatchReference()
{
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd(redisUrlText(), sql.url, lantern::test::uniquePrefix(), Today.toString(Qt::ISODate));
    QMap<QDate, QSet<qint64>> signedOn;
    QMap<QDate, int> makeups;
    // Dense uids in several shards, a sparse 13-digit one; 7 and 1000000000123 sign every day.
    const QList<qint64> uids{7, 12, 33, 70001, 1'000'000'000'123};
    for (const qint64 uid : uids) {
        for (int day = 1; day <= Today.day(); ++day) {
            if (uid != 7 && uid != 1'000'000'000'123 && (uid + day) % 3 == 0)
                continue;
            const QDate date(2026, 3, day);
            LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), text(uid), QStringLiteral("--today"),
                                             date.toString(Qt::ISODate)}));
            signedOn[date].insert(uid);
        }
    }
    // A make-up for 12 on a day it missed.
    for (int day = 1; day < Today.day(); ++day) {
        const QDate date(2026, 3, day);
        if (!signedOn[date].contains(12)) {
            LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("makeup"), QStringLiteral("--uid"), QStringLiteral("12"), QStringLiteral("--date"),
                                             date.toString(Qt::ISODate), QStringLiteral("--reason"), QStringLiteral("outage"),
                                             QStringLiteral("--operator"), QStringLiteral("carol")}));
            signedOn[date].insert(12);
            makeups[date] += 1;
            break;
        }
    }
    QVERIFY(!makeups.isEmpty());

    QJsonArray days;
    QSet<qint64> active;
    int everyDay = 0;
    for (int day = 1; day <= Today.day(); ++day) {
        const QDate date(2026, 3, day);
        days.append(QJsonObject{{QStringLiteral("date"), date.toString(Qt::ISODate)},
                                {QStringLiteral("checked_in"), qint64(signedOn[date].size())},
                                {QStringLiteral("makeups"), makeups.value(date)}});
        active.unite(signedOn[date]);
    }
    for (const qint64 uid : uids) {
        bool all = true;
        for (int day = 1; day <= Today.day(); ++day)
            all = all && signedOn[QDate(2026, 3, day)].contains(uid);
        everyDay += all;
    }
    QVERIFY(everyDay >= 2);
    const QJsonObject expected{{QStringLiteral("month"), QStringLiteral("2026-03")},
                               {QStringLiteral("days"), days},
                               {QStringLiteral("active_users"), qint64(active.size())},
                               {QStringLiteral("every_day_users"), everyDay}};
    LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("stats"), QStringLiteral("--month"), QStringLiteral("2026-03")}), expected);
    // Without --month: today's month.
    LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("stats")}), expected);
    // A month nobody signed.
    LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("stats"), QStringLiteral("--month"), QStringLiteral("2026-01")}),
                          (QJsonObject{{QStringLiteral("month"), QStringLiteral("2026-01")},
                                       {QStringLiteral("days"), [] {
                                            QJsonArray empty;
                                            for (int day = 1; day <= 31; ++day)
                                                empty.append(QJsonObject{{QStringLiteral("date"), QDate(2026, 1, day).toString(Qt::ISODate)},
                                                                         {QStringLiteral("checked_in"), 0},
                                                                         {QStringLiteral("makeups"), 0}});
                                            return empty;
                                        }()},
                                       {QStringLiteral("active_users"), 0},
                                       {QStringLiteral("every_day_users"), 0}}));
}

void TestCliStats::statsBadInput_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("month 13") << QStringList{QStringLiteral("stats"), QStringLiteral("--month"), QStringLiteral("2026-13")};
    QTest::newRow("a day, not a month") << QStringList{QStringLiteral("stats"), QStringLiteral("--month"), QStringLiteral("2026-03-01")};
    QTest::newRow("unknown option") << QStringList{QStringLiteral("stats"), QStringLiteral("--uid"), QStringLiteral("5")};
    QTest::newRow("migrate-redis: scan count 0") << QStringList{QStringLiteral("migrate-redis"), QStringLiteral("--scan-count"), QStringLiteral("0")};
    QTest::newRow("migrate-redis: unknown option") << QStringList{QStringLiteral("migrate-redis"), QStringLiteral("--month"), QStringLiteral("2026-03")};
}

void TestCliStats::statsBadInput()
{
    QFETCH(QStringList, arguments);
    const QString prefix = lantern::test::uniquePrefix();
    lantern::RedisClient redis(redisUrlOf());
    const RedisSnapshot before = snapshotRedis(redis, prefix.toUtf8());
    const Lanternd lanternd(redisUrlText(), freshSql(QStringLiteral("sqlite")).url, prefix, Today.toString(Qt::ISODate));
    const Result result = lanternd.run(arguments);
    QVERIFY2(result.exitCode == 2, result.describe().constData());
    QVERIFY2(result.out.isEmpty(), result.describe().constData());
    QVERIFY2(!result.err.isEmpty(), result.describe().constData());
    QCOMPARE(snapshotRedis(redis, prefix.toUtf8()), before);
}

void TestCliStats::migrateRedis()
{
    const QString prefix = lantern::test::uniquePrefix();
    const lantern::KeySchema keys(prefix);
    lantern::RedisClient redis(redisUrlOf());
    // The old layout, as the old checkin.lua left it: 42 signed 1..4 (3 a make-up), 1000000000007 signed 2 and 4.
    const QDate month(2026, 3, 1);
    for (const int day : {1, 2, 3, 4}) {
        redis.command({"SETBIT", keys.signBits(42, month), QByteArray::number(day - 1), "1"});
        redis.command({"SADD", keys.daySet(keys.shardOf(42), month.addDays(day - 1)), "42"});
    }
    redis.command({"SETBIT", keys.makeupBits(42, month), "2", "1"});
    for (const int day : {2, 4}) {
        redis.command({"SETBIT", keys.signBits(1'000'000'000'007, month), QByteArray::number(day - 1), "1"});
        redis.command({"SADD", keys.daySet(keys.shardOf(1'000'000'000'007), month.addDays(day - 1)), "1000000000007"});
    }
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd(redisUrlText(), sql.url, prefix, Today.toString(Qt::ISODate));

    const RedisSnapshot before = snapshotRedis(redis, prefix.toUtf8());
    LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("migrate-redis"), QStringLiteral("--dry-run")}),
                          (QJsonObject{{QStringLiteral("dry_run"), true},
                                       {QStringLiteral("user_months"), 2},
                                       {QStringLiteral("migrated"), 0},
                                       {QStringLiteral("day_sets"), 6},  // 42's shard: days 1-4; the other's: 2 and 4
                                       {QStringLiteral("day_sets_removed"), 0}}));
    QCOMPARE(snapshotRedis(redis, prefix.toUtf8()), before);

    const Result migrated = lanternd.run({QStringLiteral("migrate-redis"), QStringLiteral("--scan-count"), QStringLiteral("10")});
    LANTERND_COMPARE_JSON(migrated, (QJsonObject{{QStringLiteral("dry_run"), false},
                                                 {QStringLiteral("user_months"), 2},
                                                 {QStringLiteral("migrated"), 2},
                                                 {QStringLiteral("day_sets"), 6},
                                                 {QStringLiteral("day_sets_removed"), 6}}));
    QVERIFY2(migrated.err.contains("migrate-redis: 2 user-months found, 2 moved"), migrated.describe().constData());

    const Result calendar = lanternd.run({QStringLiteral("calendar"), QStringLiteral("--uid"), QStringLiteral("42"), QStringLiteral("--month"),
                                          QStringLiteral("2026-03")});
    LANTERND_VERIFY_OK(calendar);
    QCOMPARE(calendar.json().value(QStringLiteral("signed")).toArray(), (QJsonArray{1, 2, 3, 4}));
    QCOMPARE(calendar.json().value(QStringLiteral("makeup")).toArray(), (QJsonArray{3}));
    QCOMPARE(calendar.json().value(QStringLiteral("streak")).toInt(), 4);  // the 5th not signed yet: counted from the 4th
    const Result sparse = lanternd.run({QStringLiteral("calendar"), QStringLiteral("--uid"), QStringLiteral("1000000000007"),
                                        QStringLiteral("--month"), QStringLiteral("2026-03")});
    QCOMPARE(sparse.json().value(QStringLiteral("signed")).toArray(), (QJsonArray{2, 4}));

    LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("migrate-redis")}), (QJsonObject{{QStringLiteral("dry_run"), false},
                                                                                        {QStringLiteral("user_months"), 0},
                                                                                        {QStringLiteral("migrated"), 0},
                                                                                        {QStringLiteral("day_sets"), 0},
                                                                                        {QStringLiteral("day_sets_removed"), 0}}));
    deleteKeys(redis, prefix.toUtf8());
}

LANTERN_TEST_SUITE(TestCliStats);

} // namespace tst_cli_stats

#include "tst_cli_stats.moc"
