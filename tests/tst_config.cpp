// Configuration at the edge: URLs, dates, uids and the flag > environment > profile order.
#include "core/datetext.h"
#include "core/errors.h"
#include "redis/keyschema.h"
#include "settings/config.h"
#include "testsuite.h"

#include <QTemporaryDir>
#include <QTest>

namespace tst_config {

using namespace lantern;

class TestConfig : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void redisUrl_data();
    void redisUrl();
    void dbUrl_data();
    void dbUrl();
    void badValues_data();
    void badValues();
    void dates_data();
    void dates();
    void uids_data();
    void uids();
    void precedence();
    void profileFile();
    void keysShareTheUsersHashTag();
    void hotPathDateText_data();
    void hotPathDateText();
};

void TestConfig::redisUrl_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("password");
    QTest::addColumn<int>("db");
    QTest::newRow("host and port") << "redis://10.0.0.5:6380" << true << "10.0.0.5" << 6380 << "" << "" << 0;
    QTest::newRow("default port") << "redis://cache" << true << "cache" << 6379 << "" << "" << 0;
    QTest::newRow("password and db") << "redis://:s3cret@h:1/4" << true << "h" << 1 << "" << "s3cret" << 4;
    QTest::newRow("ACL user") << "redis://ops:pw%40x@h:2/0" << true << "h" << 2 << "ops" << "pw@x" << 0;
    QTest::newRow("wrong scheme") << "http://h:1" << false << "" << 0 << "" << "" << 0;
    QTest::newRow("db not a number") << "redis://h:1/x" << false << "" << 0 << "" << "" << 0;
    QTest::newRow("no host") << "redis://" << false << "" << 0 << "" << "" << 0;
}

void TestConfig::redisUrl()
{
    QFETCH(QString, text);
    QFETCH(bool, valid);
    if (!valid) {
        QVERIFY_THROWS_EXCEPTION(InvalidInputError, RedisUrl::parse(text));
        return;
    }
    const RedisUrl url = RedisUrl::parse(text);
    QTEST(url.host, "host");
    QTEST(url.port, "port");
    QTEST(url.user, "user");
    QTEST(url.password, "password");
    QTEST(url.db, "db");
    QVERIFY(!url.redacted().contains(QLatin1String("s3cret")));
}

void TestConfig::dbUrl_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<bool>("mysql");
    QTest::newRow("mysql with socket") << "mysql://root@127.0.0.1:3307/lt?unix_socket=/tmp/m.sock" << true << true;
    QTest::newRow("mysql with password") << "mysql://u:p@db:3306/lantern" << true << true;
    QTest::newRow("sqlite absolute") << "sqlite:///var/lib/lantern/l.db" << true << false;
    QTest::newRow("sqlite relative path refused") << "sqlite://relative.db" << false << false;
    QTest::newRow("mysql without database") << "mysql://u@h:1/" << false << true;
    QTest::newRow("mysql bad database name") << "mysql://u@h:1/a;drop" << false << true;
    QTest::newRow("mysql unknown parameter") << "mysql://u@h:1/x?ssl=1" << false << true;
    QTest::newRow("postgres not supported") << "postgres://u@h/x" << false << false;
}

void TestConfig::dbUrl()
{
    QFETCH(QString, text);
    QFETCH(bool, valid);
    QFETCH(bool, mysql);
    if (!valid) {
        QVERIFY_THROWS_EXCEPTION(InvalidInputError, DbUrl::parse(text));
        return;
    }
    const DbUrl url = DbUrl::parse(text);
    QCOMPARE(url.dialect == DbUrl::Dialect::MySql, mysql);
    QVERIFY(!url.redacted().contains(QLatin1String(":p@")));
}

void TestConfig::badValues_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("value");
    QTest::newRow("time zone unknown") << "tz" << "Mars/Olympus";
    QTest::newRow("streak policy unknown") << "streak-policy" << "weekly";
    QTest::newRow("rewards not numbers") << "rewards" << "10,x";
    QTest::newRow("rewards negative") << "rewards" << "10,-1";
    QTest::newRow("shards zero") << "shards" << "0";
    QTest::newRow("quota negative") << "makeup-quota" << "-1";
    QTest::newRow("make-up points not a bool") << "makeup-points" << "maybe";
    QTest::newRow("today malformed") << "today" << "2026-11-31";
}

void TestConfig::badValues()
{
    QFETCH(QString, name);
    QFETCH(QString, value);
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, Config::resolve({{name, value}}, QProcessEnvironment()));
}

void TestConfig::dates_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::newRow("ordinary day") << "2026-11-21" << true;
    QTest::newRow("leap day 2028") << "2028-02-29" << true;
    QTest::newRow("no leap day 2026") << "2026-02-29" << false;
    QTest::newRow("February 30th") << "2026-02-30" << false;
    QTest::newRow("month 13") << "2026-13-01" << false;
    QTest::newRow("single digits") << "2026-2-3" << false;
    QTest::newRow("words") << "yesterday" << false;
    QTest::newRow("trailing text") << "2026-11-21x" << false;
    QTest::newRow("empty") << "" << false;
}

void TestConfig::dates()
{
    QFETCH(QString, text);
    QFETCH(bool, valid);
    if (valid)
        QCOMPARE(parseDate(text), QDate::fromString(text, Qt::ISODate));
    else
        QVERIFY_THROWS_EXCEPTION(InvalidInputError, parseDate(text));
}

void TestConfig::uids_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("uid");  // 0 = invalid
    QTest::newRow("small") << "42" << qint64(42);
    QTest::newRow("int64 max") << "9223372036854775807" << std::numeric_limits<qint64>::max();
    QTest::newRow("overflow") << "9223372036854775808" << qint64(0);
    QTest::newRow("zero") << "0" << qint64(0);
    QTest::newRow("negative") << "-5" << qint64(0);
    QTest::newRow("plus sign") << "+5" << qint64(0);
    QTest::newRow("letters") << "abc" << qint64(0);
    QTest::newRow("space inside") << "4 2" << qint64(0);
    QTest::newRow("hex") << "0x10" << qint64(0);
}

void TestConfig::uids()
{
    QFETCH(QString, text);
    QFETCH(qint64, uid);
    if (uid > 0)
        QCOMPARE(parseUid(text), uid);
    else
        QVERIFY_THROWS_EXCEPTION(InvalidInputError, parseUid(text));
}

void TestConfig::precedence()
{
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("LANTERN_TODAY"), QStringLiteral("2026-01-02"));
    environment.insert(QStringLiteral("LANTERN_REDIS"), QStringLiteral("redis://envhost:1"));
    environment.insert(QStringLiteral("LANTERN_MAKEUP_QUOTA"), QStringLiteral("5"));

    const Config fromEnv = Config::resolve({}, environment);
    QCOMPARE(fromEnv.today(), QDate(2026, 1, 2));
    QCOMPARE(fromEnv.redis.host, QStringLiteral("envhost"));
    QCOMPARE(fromEnv.checkin.makeupQuota, 5);

    const Config fromFlags = Config::resolve({{QStringLiteral("today"), QStringLiteral("2026-03-04")},
                                              {QStringLiteral("redis"), QStringLiteral("redis://flaghost:2")}},
                                             environment);
    QCOMPARE(fromFlags.today(), QDate(2026, 3, 4));
    QCOMPARE(fromFlags.redis.host, QStringLiteral("flaghost"));
    QCOMPARE(fromFlags.checkin.makeupQuota, 5);

    const Config defaults = Config::resolve({}, QProcessEnvironment());
    QCOMPARE(defaults.checkin.rewards, (QList<int>{10, 20, 30, 50}));
    QCOMPARE(defaults.checkin.streakPolicy, StreakPolicy::Monthly);
    QCOMPARE(defaults.checkin.makeupQuota, 3);
    QVERIFY(!defaults.checkin.makeupGrantsPoints);
}

void TestConfig::profileFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("ops.conf"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("redis=redis://profilehost:3\nstreak-policy=rolling\nrewards=1,2\n");
    file.close();

    QProcessEnvironment environment;
    environment.insert(QStringLiteral("LANTERN_REWARDS"), QStringLiteral("7,8,9"));
    const Config config = Config::resolve({{QStringLiteral("config"), path}}, environment);
    QCOMPARE(config.redis.host, QStringLiteral("profilehost"));
    QCOMPARE(config.checkin.streakPolicy, StreakPolicy::Rolling);
    QCOMPARE(config.checkin.rewards, (QList<int>{7, 8, 9}));  // environment beats the profile

    QFile bad(dir.filePath(QStringLiteral("bad.conf")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("colour=blue\n");
    bad.close();
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, Config::resolve({{QStringLiteral("config"), bad.fileName()}}, QProcessEnvironment()));
}

void TestConfig::keysShareTheUsersHashTag()
{
    const KeySchema keys(QStringLiteral("lt:"), 16);
    const auto tag = [](const QByteArray &key) { return key.mid(key.indexOf('{'), key.indexOf('}') - key.indexOf('{') + 1); };
    const qint64 uid = 1234567;
    const QDate day(2026, 11, 21);
    const QByteArray expected = "{ck:" + QByteArray::number(uid % 16) + "}";
    QCOMPARE(tag(keys.signBits(uid, day)), expected);
    QCOMPARE(tag(keys.makeupBits(uid, day)), expected);
    QCOMPARE(tag(keys.daySet(keys.shardOf(uid), day)), expected);
    QCOMPARE(tag(keys.checkinQueue(keys.shardOf(uid))), expected);
    QCOMPARE(tag(keys.checkinBackup(keys.shardOf(uid), QStringLiteral("w1"))), expected);
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, KeySchema(QStringLiteral("bad{prefix}"), 16));
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, KeySchema::validateWorkerId(QStringLiteral("a b")));
}

void TestConfig::hotPathDateText_data()
{
    QTest::addColumn<QDate>("date");
    QTest::newRow("first day of the range") << QDate(2000, 1, 1);
    QTest::newRow("single-digit month and day") << QDate(2026, 2, 3);
    QTest::newRow("two-digit month and day") << QDate(2026, 11, 21);
    QTest::newRow("leap day") << QDate(2028, 2, 29);
    QTest::newRow("last day of the range") << QDate(2999, 12, 31);
}

void TestConfig::hotPathDateText()
{
    QFETCH(QDate, date);
    QCOMPARE(compactMonth(date), date.toString(u"yyyyMM").toLatin1());
    QCOMPARE(compactDay(date), date.toString(u"yyyyMMdd").toLatin1());
    QCOMPARE(isoDay(date), date.toString(Qt::ISODate).toLatin1());
}

LANTERN_TEST_SUITE(TestConfig);

} // namespace tst_config

#include "tst_config.moc"
