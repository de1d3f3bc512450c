// lanternd configuration from the command line and the environment (DESIGN §5, §6): global
// options anywhere on the line, LANTERN_* variables, and a flag always beating its variable; the
// language of stderr messages (LANG or --lang), which never touches the JSON on stdout.

#include "clitest.h"
#include "testservers.h"
#include "testsuite.h"

#include <QTimeZone>
#include <QTest>

#include <algorithm>

namespace tst_cli_options {

using namespace lantern::test::cli;

namespace {

const QString Today = QStringLiteral("2026-03-06");

QStringList args(std::initializer_list<const char *> list)
{
    QStringList result;
    for (const char *item : list)
        result << QString::fromUtf8(item);
    return result;
}

/** Whether `text` holds a CJK ideograph (a message in Chinese). */
bool hasHan(const QByteArray &text)
{
    const QString decoded = QString::fromUtf8(text);
    return std::any_of(decoded.cbegin(), decoded.cend(), [](QChar c) { return c.unicode() >= 0x4E00 && c.unicode() <= 0x9FFF; });
}

/** Keys under `prefix` in the test Redis. */
qsizetype keyCount(lantern::RedisClient &redis, const QString &prefix)
{
    return snapshotRedis(redis, prefix.toUtf8()).keys.size();
}

} // namespace

class TestCliOptions final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanupTestCase() { dropFreshDatabases(); }

    void globalOptionsAnywhere_data();
    void globalOptionsAnywhere();

    void environmentSettings_data();
    void environmentSettings();

    void flagBeatsEnvironment_data();
    void flagBeatsEnvironment();

    void badEnvironment_data();
    void badEnvironment();

    void timeZoneDecidesToday_data();
    void timeZoneDecidesToday();

    void tokenRoundTrip();

    void messageLanguage_data();
    void messageLanguage();
    void jsonIgnoresLanguage();
};

void TestCliOptions::globalOptionsAnywhere_data()
{
    QTest::addColumn<QString>("dialect");
    QTest::addColumn<QString>("layout");
    for (const QString &dialect : dialects()) {
        for (const char *layout : {"all before the command", "all after the command", "split around the command's own options",
                                   "as --name=value"})
            QTest::newRow(qPrintable(dialect + QStringLiteral(": ") + QLatin1String(layout))) << dialect << QString::fromUtf8(layout);
    }
}

void TestCliOptions::globalOptionsAnywhere()
{
    QFETCH(QString, dialect);
    QFETCH(QString, layout);
    const SqlTarget sql = freshSql(dialect);
    const QString prefix = lantern::test::uniquePrefix();
    const QString redisUrl = redisUrlText();

    // `command` is the command and its own options; the globals go where the layout says.
    const auto line = [&](const QStringList &command) -> QStringList {
        const QStringList globals{QStringLiteral("--redis"), redisUrl, QStringLiteral("--db"), sql.url,
                                  QStringLiteral("--prefix"), prefix, QStringLiteral("--today"), Today};
        if (layout.startsWith(QLatin1String("all before")))
            return globals + command;
        if (layout.startsWith(QLatin1String("all after")))
            return command + globals;
        if (layout.startsWith(QLatin1String("split")))
            return globals.mid(0, 2) + command.mid(0, 1) + globals.mid(2, 2) + command.mid(1) + globals.mid(4);
        QStringList joined{QStringLiteral("--redis=") + redisUrl};
        joined << command.first();
        for (qsizetype i = 1; i < command.size(); ++i) {
            const bool hasValue = i + 1 < command.size() && !command.at(i + 1).startsWith(QLatin1String("--"));
            joined << (hasValue ? command.at(i) + QLatin1Char('=') + command.at(i + 1) : command.at(i));
            i += hasValue ? 1 : 0;
        }
        joined << QStringLiteral("--db=") + sql.url << QStringLiteral("--prefix=") + prefix << QStringLiteral("--today=") + Today;
        return joined;
    };
    const Lanternd lanternd;  // no defaults: every option comes from `line`

    const Result checkin = lanternd.run(line(args({"checkin", "--uid", "42"})));
    LANTERND_VERIFY_OK(checkin);
    QCOMPARE(checkin.json().value(QStringLiteral("date")).toString(), Today);
    QCOMPARE(checkin.json().value(QStringLiteral("uid")).toInteger(), 42);
    lantern::RedisClient redis(lantern::test::redisUrl());
    QCOMPARE(redis.command({QByteArrayLiteral("EXISTS"), prefix.toUtf8() + "{ck:10}:mb:0:202603"}).toInteger(), 1);  // uid 42: shard 10, block 0

    const Result work = lanternd.run(line(args({"work", "--id", "w-opt", "--once"})));
    LANTERND_VERIFY_OK(work);
    QCOMPARE(work.json().value(QStringLiteral("persisted")).toInt(), 1);
    QCOMPARE(snapshotSql(sql.db).checkins, 1);

    const Result shown = lanternd.run(line(args({"calendar", "--uid", "42", "--month", "2026-03"})));
    LANTERND_VERIFY_OK(shown);
    QCOMPARE(shown.json().value(QStringLiteral("points_balance")).toInteger(), 10);
}

void TestCliOptions::environmentSettings_data()
{
    QTest::addColumn<QString>("dialect");
    for (const QString &dialect : dialects())
        QTest::newRow(qPrintable(dialect + QStringLiteral(": LANTERN_REDIS, LANTERN_DB, LANTERN_TODAY, LANTERN_PREFIX alone"))) << dialect;
}

void TestCliOptions::environmentSettings()
{
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const QString prefix = lantern::test::uniquePrefix();
    Lanternd lanternd;
    lanternd.extraEnv.insert(QStringLiteral("LANTERN_REDIS"), redisUrlText());
    lanternd.extraEnv.insert(QStringLiteral("LANTERN_DB"), sql.url);
    lanternd.extraEnv.insert(QStringLiteral("LANTERN_TODAY"), Today);
    lanternd.extraEnv.insert(QStringLiteral("LANTERN_PREFIX"), prefix);

    const Result checkin = lanternd.run(args({"checkin", "--uid", "42"}));
    LANTERND_VERIFY_OK(checkin);
    QCOMPARE(checkin.json().value(QStringLiteral("date")).toString(), Today);
    lantern::RedisClient redis(lantern::test::redisUrl());
    QVERIFY(keyCount(redis, prefix) > 0);
    LANTERND_VERIFY_OK(lanternd.run(args({"work", "--once"})));
    QCOMPARE(snapshotSql(sql.db), (SqlSnapshot{1, 1, 0, 10}));

    // LANTERN_TODAY is the business day for the make-up rules too: the 6th is today, the 5th is not.
    const Result today = lanternd.run(args({"makeup", "--uid", "43", "--date", "2026-03-06", "--reason", "r", "--operator", "o"}));
    QVERIFY2(today.exitCode == 2 && today.out.isEmpty(), today.describe().constData());
    LANTERND_VERIFY_OK(lanternd.run(args({"makeup", "--uid", "43", "--date", "2026-03-05", "--reason", "r", "--operator", "o"})));
}

void TestCliOptions::flagBeatsEnvironment_data()
{
    QTest::addColumn<QString>("dialect");
    QTest::addColumn<QString>("setting");  // the one LANTERN_* variable set to a decoy
    for (const QString &dialect : dialects()) {
        for (const char *setting : {"redis", "db", "today", "prefix"})
            QTest::newRow(qPrintable(QStringLiteral("%1: --%2 beats LANTERN_%3").arg(dialect, QLatin1String(setting), QString::fromLatin1(setting).toUpper())))
                    << dialect << QString::fromUtf8(setting);
    }
}

void TestCliOptions::flagBeatsEnvironment()
{
    QFETCH(QString, dialect);
    QFETCH(QString, setting);
    const SqlTarget sql = freshSql(dialect);
    const SqlTarget decoySql = freshSql(dialect);
    const QString prefix = lantern::test::uniquePrefix();
    const QString decoyPrefix = lantern::test::uniquePrefix();
    Lanternd lanternd(redisUrlText(), sql.url, prefix, Today);
    // Migrated, so "no rows" can be counted; nothing else may ever land there.
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("migrate"), QStringLiteral("--db"), decoySql.url}));

    const QHash<QString, QString> decoys{{QStringLiteral("redis"), unreachableRedisUrl()},
                                         {QStringLiteral("db"), decoySql.url},
                                         {QStringLiteral("today"), QStringLiteral("2026-03-05")},
                                         {QStringLiteral("prefix"), decoyPrefix}};
    lanternd.extraEnv.insert(QStringLiteral("LANTERN_") + setting.toUpper(), decoys.value(setting));

    const Result checkin = lanternd.run(args({"checkin", "--uid", "42"}));
    LANTERND_VERIFY_OK(checkin);
    QCOMPARE(checkin.json().value(QStringLiteral("date")).toString(), Today);
    LANTERND_VERIFY_OK(lanternd.run(args({"work", "--once"})));

    lantern::RedisClient redis(lantern::test::redisUrl());
    QVERIFY(keyCount(redis, prefix) > 0);
    QCOMPARE(keyCount(redis, decoyPrefix), 0);
    QCOMPARE(snapshotSql(sql.db).checkins, 1);
    QCOMPARE(snapshotSql(decoySql.db), (SqlSnapshot{0, 0, 0, 0}));
}

void TestCliOptions::badEnvironment_data()
{
    QTest::addColumn<QString>("variable");
    QTest::addColumn<QString>("value");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("stderrHas");
    QTest::newRow("LANTERN_TODAY unpadded 2026-3-6") << QStringLiteral("LANTERN_TODAY") << QStringLiteral("2026-3-6") << 2 << QStringLiteral("2026-3-6");
    QTest::newRow("LANTERN_TODAY February 30") << QStringLiteral("LANTERN_TODAY") << QStringLiteral("2026-02-30") << 2 << QStringLiteral("2026-02-30");
    QTest::newRow("LANTERN_REDIS with an http scheme") << QStringLiteral("LANTERN_REDIS") << QStringLiteral("http://127.0.0.1:1") << 2
                                                       << QStringLiteral("invalid Redis URL");
    QTest::newRow("LANTERN_DB with a postgres scheme") << QStringLiteral("LANTERN_DB") << QStringLiteral("postgres://u@h/db") << 2
                                                       << QStringLiteral("invalid database URL");
    QTest::newRow("LANTERN_REDIS unreachable (exit 3)") << QStringLiteral("LANTERN_REDIS") << unreachableRedisUrl() << 3
                                                        << QStringLiteral("unreachable");
}

void TestCliOptions::badEnvironment()
{
    QFETCH(QString, variable);
    QFETCH(QString, value);
    QFETCH(int, exitCode);
    QFETCH(QString, stderrHas);
    const QString prefix = lantern::test::uniquePrefix();
    Lanternd lanternd;
    lanternd.defaults.insert(QStringLiteral("prefix"), prefix);
    lanternd.extraEnv.insert(QStringLiteral("LANTERN_REDIS"), redisUrlText());
    lanternd.extraEnv.insert(QStringLiteral("LANTERN_DB"), freshSql(QStringLiteral("sqlite")).url);
    lanternd.extraEnv.insert(QStringLiteral("LANTERN_TODAY"), Today);
    lanternd.extraEnv.insert(variable, value);

    const Result result = lanternd.run(args({"checkin", "--uid", "42"}));
    QVERIFY2(result.exitCode == exitCode, result.describe().constData());
    QVERIFY2(result.out.isEmpty(), result.describe().constData());
    QVERIFY2(QString::fromUtf8(result.err).contains(stderrHas), result.describe().constData());
    lantern::RedisClient redis(lantern::test::redisUrl());
    QCOMPARE(keyCount(redis, prefix), 0);
}

void TestCliOptions::timeZoneDecidesToday_data()
{
    QTest::addColumn<QString>("zone");
    // 25 hours apart: whatever the clock says, these two are on different calendar days.
    QTest::newRow("--tz Pacific/Kiritimati (UTC+14)") << QStringLiteral("Pacific/Kiritimati");
    QTest::newRow("--tz Pacific/Pago_Pago (UTC-11)") << QStringLiteral("Pacific/Pago_Pago");
}

void TestCliOptions::timeZoneDecidesToday()
{
    QFETCH(QString, zone);
    const QTimeZone timeZone(zone.toUtf8());
    QVERIFY(timeZone.isValid());
    Lanternd lanternd(redisUrlText(), freshSql(QStringLiteral("sqlite")).url, lantern::test::uniquePrefix());
    const QDate before = QDateTime::currentDateTimeUtc().toTimeZone(timeZone).date();
    const Result result = lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("42"), QStringLiteral("--tz"), zone});
    const QDate after = QDateTime::currentDateTimeUtc().toTimeZone(timeZone).date();
    LANTERND_VERIFY_OK(result);
    const QDate signedDay = QDate::fromString(result.json().value(QStringLiteral("date")).toString(), Qt::ISODate);
    QVERIFY2(signedDay == before || signedDay == after, result.out.constData());

    const Result unknown = lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("42"), QStringLiteral("--tz"),
                                         QStringLiteral("Mars/Olympus_Mons")});
    QVERIFY2(unknown.exitCode == 2 && unknown.out.isEmpty() && unknown.err.contains("time zone"), unknown.describe().constData());
}

void TestCliOptions::tokenRoundTrip()
{
    const QString prefix = lantern::test::uniquePrefix();
    Lanternd lanternd(redisUrlText(), freshSql(QStringLiteral("sqlite")).url, prefix, Today);

    const Result noSecret = lanternd.run(args({"token", "--uid", "42"}));
    QVERIFY2(noSecret.exitCode == 2 && noSecret.out.isEmpty() && noSecret.err.contains("secret"), noSecret.describe().constData());

    lanternd.extraEnv.insert(QStringLiteral("LANTERN_TOKEN_SECRET"), QStringLiteral("test-secret"));
    const Result minted = lanternd.run(args({"token", "--uid", "42", "--ttl-s", "600"}));
    LANTERND_VERIFY_OK(minted);
    QCOMPARE(sortedKeys(minted.json()), args({"bearer", "expires_at", "token", "uid"}));
    QCOMPARE(minted.json().value(QStringLiteral("uid")).toInteger(), 42);
    const QString token = minted.json().value(QStringLiteral("token")).toString();
    QVERIFY(!token.isEmpty());
    QVERIFY(!token.contains(QStringLiteral("42")));
    const QDateTime expires = QDateTime::fromString(minted.json().value(QStringLiteral("expires_at")).toString(), Qt::ISODate);
    QVERIFY(expires.isValid());
    QVERIFY(qAbs(QDateTime::currentDateTimeUtc().secsTo(expires) - 600) < 60);

    // The public token stands for the uid wherever --uid is accepted.
    const Result checkin = lanternd.run(QStringList{QStringLiteral("checkin"), QStringLiteral("--token"), token});
    LANTERND_VERIFY_OK(checkin);
    QCOMPARE(checkin.json().value(QStringLiteral("uid")).toInteger(), 42);
    const Result shown = lanternd.run(QStringList{QStringLiteral("calendar"), QStringLiteral("--token"), token});
    LANTERND_VERIFY_OK(shown);
    QCOMPARE(shown.json().value(QStringLiteral("uid")).toInteger(), 42);
    QCOMPARE(shown.json().value(QStringLiteral("month_count")).toInt(), 1);

    // Another salt makes another token, which this deployment does not know.
    const Result otherSalt = lanternd.run(args({"token", "--uid", "42", "--token-salt", "other"}));
    LANTERND_VERIFY_OK(otherSalt);
    QVERIFY(otherSalt.json().value(QStringLiteral("token")).toString() != token);
    const Result forged = lanternd.run(QStringList{QStringLiteral("checkin"), QStringLiteral("--token"), token + QStringLiteral("x")});
    QVERIFY2(forged.exitCode == 2 && forged.out.isEmpty(), forged.describe().constData());
}

void TestCliOptions::messageLanguage_data()
{
    QTest::addColumn<QString>("lang");  // LANG of the child
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<bool>("chinese");
    QTest::addColumn<QString>("stderrHas");
    const QStringList badUid = args({"checkin", "--uid", "abc"});
    const QStringList oldMakeup = args({"makeup", "--uid", "1", "--date", "2020-01-01", "--reason", "r", "--operator", "o"});
    QTest::newRow("--lang zh_CN: bad uid in Chinese, exit 2") << QStringLiteral("C") << args({"--lang", "zh_CN"}) + badUid << 2 << true
                                                            << QStringLiteral("abc");
    QTest::newRow("LANG=zh_CN.UTF-8: bad uid in Chinese, exit 2") << QStringLiteral("zh_CN.UTF-8") << badUid << 2 << true << QStringLiteral("abc");
    QTest::newRow("LANG=C: bad uid in English, exit 2") << QStringLiteral("C") << badUid << 2 << false << QStringLiteral("invalid uid 'abc'");
    QTest::newRow("LANG=zh_CN.UTF-8 with --lang=en: English") << QStringLiteral("zh_CN.UTF-8") << badUid + args({"--lang=en"}) << 2 << false
                                                              << QStringLiteral("invalid uid 'abc'");
    QTest::newRow("--lang zh_CN: make-up outside the window refused in Chinese, exit 4")
            << QStringLiteral("C") << oldMakeup + args({"--lang", "zh_CN"}) << 4 << true << QStringLiteral("2020-01-01");
}

void TestCliOptions::messageLanguage()
{
    QFETCH(QString, lang);
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(bool, chinese);
    QFETCH(QString, stderrHas);
    Lanternd lanternd;  // rejected before Redis or SQL is contacted
    lanternd.defaults.insert(QStringLiteral("today"), Today);
    lanternd.extraEnv.insert(QStringLiteral("LANG"), lang);

    const Result result = lanternd.run(arguments);
    QVERIFY2(result.exitCode == exitCode && result.out.isEmpty(), result.describe().constData());
    QVERIFY2(QString::fromUtf8(result.err).contains(stderrHas), result.describe().constData());
    QVERIFY2(hasHan(result.err) == chinese, result.describe().constData());
    if (chinese)
        QVERIFY2(!result.err.contains("invalid") && !result.err.contains("refused"), result.describe().constData());
}

void TestCliOptions::jsonIgnoresLanguage()
{
    Lanternd lanternd(redisUrlText(), freshSql(QStringLiteral("sqlite")).url, lantern::test::uniquePrefix(), Today);
    lanternd.extraEnv.insert(QStringLiteral("LANG"), QStringLiteral("zh_CN.UTF-8"));
    const Result checkin = lanternd.run(args({"checkin", "--uid", "42", "--lang", "zh_CN"}));
    LANTERND_COMPARE_JSON(checkin, (QJsonObject{{QStringLiteral("uid"), 42},
                                                {QStringLiteral("date"), Today},
                                                {QStringLiteral("kind"), QStringLiteral("normal")},
                                                {QStringLiteral("already"), false},
                                                {QStringLiteral("streak"), 1},
                                                {QStringLiteral("month_count"), 1},
                                                {QStringLiteral("points"), 10}}));
    QVERIFY2(checkin.err.isEmpty(), checkin.describe().constData());
}

LANTERN_TEST_SUITE(TestCliOptions);

} // namespace tst_cli_options

#include "tst_cli_options.moc"
