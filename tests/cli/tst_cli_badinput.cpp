// lanternd refuses bad input as DESIGN §6 says: the documented exit code (2 invalid input,
// 3 Redis/SQL unreachable, 4 refused by a business rule), a message on stderr, nothing on stdout,
// and nothing written anywhere. "Nothing written" is checked, not assumed: every key under the
// test's prefix (with its DUMP), the Redis key count and the SQL row counts are compared before
// and after each run.
//
// This suite keeps its keys in Redis logical database 11, which no other suite uses, so DBSIZE
// stays meaningful while other suites run in parallel on database 0.

#include "clitest.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QDir>
#include <QJsonArray>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

namespace tst_cli_badinput {

using namespace lantern::test::cli;

namespace {

constexpr int RedisDatabase = 11;
const QString Today = QStringLiteral("2026-03-10");

/** State prepared before the run under test. */
enum class Setup {
    Baseline,      // uid 42 signed the 8th and 9th, uid 7 got a make-up of the 5th, all persisted
    ThreeMakeups,  // Baseline + uid 42 used this month's quota: make-ups of the 1st, 2nd and 3rd
};

QStringList args(std::initializer_list<const char *> list)
{
    QStringList result;
    for (const char *item : list)
        result << QString::fromUtf8(item);
    return result;
}

QStringList makeup(const char *date)
{
    return args({"makeup", "--uid", "42", "--date", date, "--reason", "ticket 1234", "--operator", "alice"});
}

} // namespace

class TestCliBadInput final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanupTestCase() { dropFreshDatabases(); }
    /** Database 11 is this suite's alone: leave it as empty as it was found. */
    void cleanup()
    {
        lantern::RedisClient redis(redisUrlOf(RedisDatabase));
        deleteKeys(redis, m_prefix.toUtf8());
    }

    void refusedWithoutSideEffects_data();
    void refusedWithoutSideEffects();

    void invalidInputCreatesNoSqliteFile_data();
    void invalidInputCreatesNoSqliteFile();

    void makeupAuditFailureGrantsNothing_data();
    void makeupAuditFailureGrantsNothing();

private:
    /** A fresh key prefix for the current row, remembered for cleanup(). */
    QString newPrefix()
    {
        m_prefix = lantern::test::uniquePrefix();
        return m_prefix;
    }

    QString m_prefix = QStringLiteral("unused-prefix:");
};

void TestCliBadInput::refusedWithoutSideEffects_data()
{
    QTest::addColumn<QString>("dialect");
    QTest::addColumn<Setup>("setup");
    QTest::addColumn<QStringList>("arguments");  // --redis/--db/--prefix/--today added when absent
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("stderrHas");      // the message names the actual problem

    for (const QString &dialect : dialects()) {
        const auto row = [&dialect](const char *name, const QStringList &arguments, int exitCode, const char *stderrHas,
                                    Setup setup = Setup::Baseline) {
            QTest::newRow(qPrintable(dialect + QStringLiteral(": ") + QString::fromUtf8(name)))
                    << dialect << setup << arguments << exitCode << QString::fromUtf8(stderrHas);
        };
        const QString deadSql = unreachableSqlUrl(dialect);
        const char *deadSqlMessage = dialect == QLatin1String("mysql") ? "cannot open database" : "cannot create the database directory";
        const QString deadRedis = unreachableRedisUrl();

        // --- the user ---
        row("checkin: non-numeric uid", args({"checkin", "--uid", "abc"}), 2, "invalid uid");
        row("checkin: negative uid", args({"checkin", "--uid", "-7"}), 2, "invalid uid");
        row("checkin: zero uid", args({"checkin", "--uid", "0"}), 2, "invalid uid");
        row("checkin: uid with a space inside", args({"checkin", "--uid", "4 2"}), 2, "invalid uid");
        row("checkin: uid with a leading space", args({"checkin", "--uid", " 42"}), 2, "invalid uid");
        row("checkin: uid past int64", args({"checkin", "--uid", "9223372036854775808"}), 2, "invalid uid");
        row("checkin: uid in exponent form", args({"checkin", "--uid", "4e2"}), 2, "invalid uid");
        row("checkin: missing --uid", args({"checkin"}), 2, "missing --uid");
        row("checkin: both --uid and --token", args({"checkin", "--uid", "42", "--token", "abc"}), 2, "not both");
        row("makeup: non-numeric uid", args({"makeup", "--uid", "x42", "--date", "2026-03-04", "--reason", "r", "--operator", "o"}), 2,
            "invalid uid");
        row("makeup: missing --uid", args({"makeup", "--date", "2026-03-04", "--reason", "r", "--operator", "o"}), 2, "missing --uid");
        row("calendar: zero uid", args({"calendar", "--uid", "0"}), 2, "invalid uid");

        // --- dates ---
        row("checkin: month 13", args({"checkin", "--uid", "42", "--date", "2026-13-01"}), 2, "invalid date");
        row("checkin: February 30", args({"checkin", "--uid", "42", "--date", "2026-02-30"}), 2, "invalid date");
        row("checkin: unpadded 2026-2-3", args({"checkin", "--uid", "42", "--date", "2026-2-3"}), 2, "invalid date");
        row("checkin: the word yesterday", args({"checkin", "--uid", "42", "--date", "yesterday"}), 2, "invalid date");
        row("checkin: date after today", args({"checkin", "--uid", "42", "--date", "2026-03-11"}), 2, "after today");
        row("makeup: month 13", makeup("2026-13-01"), 2, "invalid date");
        row("makeup: February 30", makeup("2026-02-30"), 2, "invalid date");
        row("makeup: unpadded 2026-3-4", makeup("2026-3-4"), 2, "invalid date");
        row("makeup: the word yesterday", makeup("yesterday"), 2, "invalid date");
        row("calendar: month 13", args({"calendar", "--uid", "42", "--month", "2026-13"}), 2, "invalid month");
        row("calendar: unpadded month 2026-3", args({"calendar", "--uid", "42", "--month", "2026-3"}), 2, "invalid month");
        row("reconcile: February 30", args({"reconcile", "--date", "2026-02-30"}), 2, "invalid date");
        row("reconcile: date after today", args({"reconcile", "--date", "2026-03-11"}), 2, "after today");
        row("reconcile: missing --date", args({"reconcile"}), 2, "missing --date");

        // --- the clock override ---
        row("checkin: --today unpadded 2026-3-10", args({"checkin", "--uid", "42", "--today", "2026-3-10"}), 2, "--today");
        row("checkin: --today February 30", args({"checkin", "--uid", "42", "--today", "2026-02-30"}), 2, "--today");
        row("makeup: --today as a word", makeup("2026-03-04") << QStringLiteral("--today") << QStringLiteral("today"), 2, "--today");

        // --- make-up rules ---
        row("makeup: of today (exit 2)", makeup("2026-03-10"), 2, "it is today");
        row("makeup: in the future (exit 2)", makeup("2026-03-11"), 2, "in the future");
        row("makeup: previous month, outside the default window (exit 4)", makeup("2026-02-28"), 4, "refused");
        row("makeup: 8 days back with a 7-day window (exit 4)", makeup("2026-03-02") << QStringLiteral("--makeup-window-days") << QStringLiteral("7"),
            4, "refused");
        row("makeup: 4th of the month over the quota of 3 (exit 4, quota unchanged)", makeup("2026-03-04"), 4, "quota", Setup::ThreeMakeups);
        row("makeup: missing --reason", args({"makeup", "--uid", "42", "--date", "2026-03-04", "--operator", "alice"}), 2, "--reason");
        row("makeup: missing --operator", args({"makeup", "--uid", "42", "--date", "2026-03-04", "--reason", "ticket"}), 2, "--operator");
        row("makeup: blank --reason", args({"makeup", "--uid", "42", "--date", "2026-03-04", "--reason", "  ", "--operator", "alice"}), 2,
            "--reason");
        row("makeup: blank --operator", args({"makeup", "--uid", "42", "--date", "2026-03-04", "--reason", "ticket", "--operator", ""}), 2,
            "--operator");
        row("makeup: missing --date", args({"makeup", "--uid", "42", "--reason", "ticket", "--operator", "alice"}), 2, "missing --date");

        // --- the command line itself ---
        row("checkin: unknown option --colour", args({"checkin", "--uid", "42", "--colour", "red"}), 2, "unknown option");
        row("checkin: unknown single-dash option -v", args({"checkin", "--uid", "42", "-v"}), 2, "unknown option");
        row("checkin: --uid given twice", args({"checkin", "--uid", "42", "--uid", "43"}), 2, "given twice");
        row("makeup: another command's option --month", makeup("2026-03-04") << QStringLiteral("--month") << QStringLiteral("2026-03"), 2,
            "unknown option");
        row("queues: stray --uid", args({"queues", "--uid", "42"}), 2, "unknown option");
        row("unknown command checkout", args({"checkout", "--uid", "42"}), 2, "unknown command");
        row("no command, only global options", QStringList{}, 2, "usage");
        row("work: --once=yes (a switch takes no value)", args({"work", "--once=yes"}), 2, "takes no value");
        row("work: worker id with a space", args({"work", "--once", "--id", "a b"}), 2, "invalid worker id");
        row("work: --batch 0", args({"work", "--once", "--batch", "0"}), 2, "invalid --batch");
        row("recover: worker id with a slash", args({"recover", "--worker", "a/b"}), 2, "invalid worker id");

        // --- connections: malformed URLs are invalid input ---
        row("checkin: --redis with an http scheme", args({"checkin", "--uid", "42", "--redis", "http://127.0.0.1:6379"}), 2, "invalid Redis URL");
        row("checkin: --redis port not a number", args({"checkin", "--uid", "42", "--redis", "redis://127.0.0.1:port"}), 2, "invalid Redis URL");
        row("checkin: --db with a postgres scheme", args({"checkin", "--uid", "42", "--db", "postgres://u@h/db"}), 2, "invalid database URL");
        row("makeup: --db SQLite path not absolute", makeup("2026-03-04") << QStringLiteral("--db") << QStringLiteral("sqlite://relative.db"), 2,
            "invalid database URL");

        // --- connections: unreachable servers exit 3 and leave nothing half-written ---
        row("checkin: Redis unreachable (exit 3)", args({"checkin", "--uid", "42", "--redis"}) << deadRedis, 3, "unreachable");
        row("makeup: Redis unreachable (exit 3)", makeup("2026-03-04") << QStringLiteral("--redis") << deadRedis, 3, "unreachable");
        row("makeup: SQL unreachable (exit 3, Redis untouched)", makeup("2026-03-04") << QStringLiteral("--db") << deadSql, 3, deadSqlMessage);
        row("calendar: Redis unreachable (exit 3)", args({"calendar", "--uid", "42", "--redis"}) << deadRedis, 3, "unreachable");
        row("calendar: SQL unreachable (exit 3)", args({"calendar", "--uid", "42", "--db"}) << deadSql, 3, deadSqlMessage);
        row("reconcile: Redis unreachable (exit 3)", args({"reconcile", "--date", "2026-03-09", "--redis"}) << deadRedis, 3, "unreachable");
        row("reconcile: SQL unreachable (exit 3)", args({"reconcile", "--date", "2026-03-09", "--db"}) << deadSql, 3, deadSqlMessage);
        row("queues: Redis unreachable (exit 3)", args({"queues", "--redis"}) << deadRedis, 3, "unreachable");
        row("recover: SQL unreachable (exit 3)", args({"recover", "--db"}) << deadSql, 3, deadSqlMessage);
        row("migrate: SQL unreachable (exit 3)", args({"migrate", "--db"}) << deadSql, 3, deadSqlMessage);
        row("work --once: SQL unreachable (exit 3, no worker registered)", args({"work", "--once", "--id", "w-nosql", "--db"}) << deadSql, 3,
            deadSqlMessage);
    }
}

void TestCliBadInput::refusedWithoutSideEffects()
{
    QFETCH(QString, dialect);
    QFETCH(Setup, setup);
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, stderrHas);

    const SqlTarget sql = freshSql(dialect);
    const QString prefix = newPrefix();
    const Lanternd lanternd(redisUrlText(RedisDatabase), sql.url, prefix, Today);
    const auto checkinOn = [&](const char *day) {
        return lanternd.run(args({"checkin", "--uid", "42", "--today", day}));
    };
    LANTERND_VERIFY_OK(checkinOn("2026-03-08"));
    LANTERND_VERIFY_OK(checkinOn("2026-03-09"));
    LANTERND_VERIFY_OK(lanternd.run(args({"makeup", "--uid", "7", "--date", "2026-03-05", "--reason", "setup", "--operator", "setup"})));
    if (setup == Setup::ThreeMakeups) {
        for (const char *day : {"2026-03-01", "2026-03-02", "2026-03-03"})
            LANTERND_VERIFY_OK(lanternd.run(makeup(day)));
    }
    LANTERND_VERIFY_OK(lanternd.run(args({"work", "--once", "--id", "setup"})));

    lantern::RedisClient redis(redisUrlOf(RedisDatabase));
    const RedisSnapshot redisBefore = snapshotRedis(redis, prefix.toUtf8());
    const SqlSnapshot sqlBefore = snapshotSql(sql.db);
    QVERIFY2(redisBefore.keys.size() >= 4, redisBefore.describeChange(redisBefore).constData());
    QCOMPARE(sqlBefore.checkins, setup == Setup::ThreeMakeups ? 6 : 3);

    const Result result = lanternd.run(arguments);

    QVERIFY2(result.exitCode == exitCode, result.describe().constData());
    QVERIFY2(result.out.isEmpty(), result.describe().constData());
    QVERIFY2(QString::fromUtf8(result.err).contains(stderrHas), result.describe().constData());

    const RedisSnapshot redisAfter = snapshotRedis(redis, prefix.toUtf8());
    QVERIFY2(redisAfter == redisBefore, redisBefore.describeChange(redisAfter).constData());
    const SqlSnapshot sqlAfter = snapshotSql(sql.db);
    QVERIFY2(sqlAfter == sqlBefore, QByteArray(sqlBefore.describe() + " -> " + sqlAfter.describe()).constData());

    if (setup == Setup::ThreeMakeups) {
        // The refused make-up left the quota as it was: still exactly the three granted days.
        const Result shown = lanternd.run(args({"calendar", "--uid", "42"}));
        LANTERND_VERIFY_OK(shown);
        QCOMPARE(shown.json().value(QStringLiteral("makeup")).toArray(), (QJsonArray{1, 2, 3}));
    }
}

void TestCliBadInput::invalidInputCreatesNoSqliteFile_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::newRow("makeup: February 30") << makeup("2026-02-30") << 2;
    QTest::newRow("makeup: previous month (exit 4)") << makeup("2026-02-28") << 4;
    QTest::newRow("makeup: missing --operator") << args({"makeup", "--uid", "42", "--date", "2026-03-04", "--reason", "r"}) << 2;
    QTest::newRow("calendar: month 13") << args({"calendar", "--uid", "42", "--month", "2026-13"}) << 2;
    QTest::newRow("reconcile: date after today") << args({"reconcile", "--date", "2026-03-11"}) << 2;
    QTest::newRow("recover: invalid worker id") << args({"recover", "--worker", "a b"}) << 2;
}

void TestCliBadInput::invalidInputCreatesNoSqliteFile()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString dbDir = dir.filePath(QStringLiteral("lantern"));
    const Lanternd lanternd(redisUrlText(RedisDatabase), QStringLiteral("sqlite://") + dbDir + QStringLiteral("/lantern.db"),
                            newPrefix(), Today);
    const Result result = lanternd.run(arguments);
    QVERIFY2(result.exitCode == exitCode && result.out.isEmpty() && !result.err.isEmpty(), result.describe().constData());
    QVERIFY2(!QDir(dbDir).exists(), "the refused command created the database directory");
}

void TestCliBadInput::makeupAuditFailureGrantsNothing_data()
{
    QTest::addColumn<QString>("dialect");
    for (const QString &dialect : dialects())
        QTest::newRow(qPrintable(dialect + QStringLiteral(": audit_log refuses the row -> no make-up in Redis"))) << dialect;
}

void TestCliBadInput::makeupAuditFailureGrantsNothing()
{
    // SQL is reachable but the audit insert fails (a trigger stands in for a full disk, a lost
    // connection or a revoked grant). A make-up is an operator action that must be audited, so
    // the command must fail without granting it: DESIGN §6, "nothing half-written".
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const QString prefix = newPrefix();
    const Lanternd lanternd(redisUrlText(RedisDatabase), sql.url, prefix, Today);
    LANTERND_VERIFY_OK(lanternd.run(args({"checkin", "--uid", "42"})));
    LANTERND_VERIFY_OK(lanternd.run(args({"migrate"})));
    {
        lantern::SqlConnection connection(sql.db);
        QSqlQuery trigger(connection.database());
        const QString ddl = dialect == QLatin1String("mysql")
                ? QStringLiteral("CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW "
                                 "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'audit refused by test trigger'")
                : QStringLiteral("CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log "
                                 "BEGIN SELECT RAISE(ABORT, 'audit refused by test trigger'); END");
        QVERIFY2(trigger.exec(ddl), qPrintable(trigger.lastError().text()));
    }
    lantern::RedisClient redis(redisUrlOf(RedisDatabase));
    const RedisSnapshot redisBefore = snapshotRedis(redis, prefix.toUtf8());
    const SqlSnapshot sqlBefore = snapshotSql(sql.db);

    const Result result = lanternd.run(makeup("2026-03-04"));

    QVERIFY2(result.exitCode == 1 || result.exitCode == 3, result.describe().constData());
    QVERIFY2(result.out.isEmpty(), result.describe().constData());
    QVERIFY2(result.err.contains("audit refused by test trigger"), result.describe().constData());
    QCOMPARE(snapshotSql(sql.db), sqlBefore);
    const RedisSnapshot redisAfter = snapshotRedis(redis, prefix.toUtf8());
    QVERIFY2(redisAfter == redisBefore, redisBefore.describeChange(redisAfter).constData());
}

LANTERN_TEST_SUITE(TestCliBadInput);

} // namespace tst_cli_badinput

#include "tst_cli_badinput.moc"
