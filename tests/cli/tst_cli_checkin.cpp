// lanternd check-in commands end to end (DESIGN §4, §6): the real binary against the private
// Redis and both SQL dialects; exact JSON shapes and values, then what landed in SQL.

#include "clitest.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QJsonArray>
#include <QSqlQuery>
#include <QTest>

namespace tst_cli_checkin {

using namespace lantern::test::cli;
using lantern::SqlConnection;

namespace {
/** What `work` reports for payout queues when no campaign has tasks. */
QJsonObject noPayouts()
{
    return {{QStringLiteral("processed"), 0},
            {QStringLiteral("persisted"), 0},
            {QStringLiteral("paid"), 0},
            {QStringLiteral("retried"), 0},
            {QStringLiteral("dead_lettered"), 0}};
}


QJsonObject outcome(qint64 uid, const QString &date, const QString &kind, bool already, int streak, int monthCount, int points)
{
    return {{QStringLiteral("uid"), uid},       {QStringLiteral("date"), date},
            {QStringLiteral("kind"), kind},     {QStringLiteral("already"), already},
            {QStringLiteral("streak"), streak}, {QStringLiteral("month_count"), monthCount},
            {QStringLiteral("points"), points}};
}

QJsonArray days(std::initializer_list<int> list)
{
    QJsonArray array;
    for (int day : list)
        array.append(day);
    return array;
}

QJsonObject calendar(qint64 uid, const QString &month, const QJsonArray &signedDays, const QJsonArray &makeupDays, int monthCount,
                     int streak, int longest, qint64 balance)
{
    return {{QStringLiteral("uid"), uid},
            {QStringLiteral("month"), month},
            {QStringLiteral("signed"), signedDays},
            {QStringLiteral("makeup"), makeupDays},
            {QStringLiteral("month_count"), monthCount},
            {QStringLiteral("streak"), streak},
            {QStringLiteral("longest"), longest},
            {QStringLiteral("points_balance"), balance}};
}

QString march(int day)
{
    return QStringLiteral("2026-03-%1").arg(day, 2, 10, QLatin1Char('0'));
}

void addDialectRows(const char *what)
{
    QTest::addColumn<QString>("dialect");
    for (const QString &dialect : dialects())
        QTest::newRow(qPrintable(dialect + QStringLiteral(": ") + QLatin1String(what))) << dialect;
}

} // namespace

class TestCliCheckin final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanupTestCase() { dropFreshDatabases(); }

    void migrate_data() { addDialectRows("fresh database -> latest schema, twice"); }
    void migrate()
    {
        QFETCH(QString, dialect);
        const SqlTarget sql = freshSql(dialect);
        const Lanternd lanternd(redisUrlText(), sql.url, lantern::test::uniquePrefix());
        const QJsonObject expected{{QStringLiteral("schema_version"), lantern::Migrator::latestVersion()}};
        QVERIFY(lantern::Migrator::latestVersion() >= 1);
        LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("migrate")}), expected);
        LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("migrate")}), expected);  // idempotent
        QCOMPARE(snapshotSql(sql.db), (SqlSnapshot{0, 0, 0, 0}));
    }

    void scriptedMonth_data() { addDialectRows("days 1,2,3,5,6 + make-up of 4 -> streak 6, balance 90"); }
    void scriptedMonth()
    {
        QFETCH(QString, dialect);
        const SqlTarget sql = freshSql(dialect);
        const QString prefix = lantern::test::uniquePrefix();
        Lanternd lanternd(redisUrlText(), sql.url, prefix);
        const qint64 uid = 42;
        const QString uidText = QString::number(uid);
        const auto checkin = [&](int day) {
            return lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), uidText, QStringLiteral("--today"), march(day)});
        };

        LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("calendar"), QStringLiteral("--uid"), uidText, QStringLiteral("--month"),
                                            QStringLiteral("2026-03"), QStringLiteral("--today"), march(1)}),
                              calendar(uid, QStringLiteral("2026-03"), {}, {}, 0, 0, 0, 0));

        LANTERND_COMPARE_JSON(checkin(1), outcome(uid, march(1), QStringLiteral("normal"), false, 1, 1, 10));
        LANTERND_COMPARE_JSON(checkin(2), outcome(uid, march(2), QStringLiteral("normal"), false, 2, 2, 20));
        LANTERND_COMPARE_JSON(checkin(3), outcome(uid, march(3), QStringLiteral("normal"), false, 3, 3, 30));
        // Day 4 missed: the streak and the reward table start over.
        LANTERND_COMPARE_JSON(checkin(5), outcome(uid, march(5), QStringLiteral("normal"), false, 1, 4, 10));
        LANTERND_COMPARE_JSON(checkin(6), outcome(uid, march(6), QStringLiteral("normal"), false, 2, 5, 20));

        // Support fills day 4: the streak as of today is whole again, and no points are granted.
        LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("makeup"), QStringLiteral("--uid"), uidText, QStringLiteral("--date"), march(4),
                                            QStringLiteral("--reason"), QStringLiteral("app outage on the 4th"),
                                            QStringLiteral("--operator"), QStringLiteral("alice"), QStringLiteral("--today"), march(6)}),
                              outcome(uid, march(4), QStringLiteral("makeup"), false, 6, 6, 0));

        // Nothing persisted yet: the balance is SQL's, and the workers have not run.
        lanternd.defaults.insert(QStringLiteral("today"), march(6));
        const QStringList showMarch{QStringLiteral("calendar"), QStringLiteral("--uid"), uidText, QStringLiteral("--month"),
                                    QStringLiteral("2026-03")};
        LANTERND_COMPARE_JSON(lanternd.run(showMarch),
                              calendar(uid, QStringLiteral("2026-03"), days({1, 2, 3, 4, 5, 6}), days({4}), 6, 6, 6, 0));

        const Result work = lanternd.run({QStringLiteral("work"), QStringLiteral("--once"), QStringLiteral("--id"), QStringLiteral("w1")});
        LANTERND_COMPARE_JSON(work, (QJsonObject{{QStringLiteral("worker"), QStringLiteral("w1")},
                                                 {QStringLiteral("processed"), 6},
                                                 {QStringLiteral("persisted"), 6},
                                                 {QStringLiteral("dead_lettered"), 0},
                                                 {QStringLiteral("payouts"), noPayouts()}}));
        LANTERND_COMPARE_JSON(lanternd.run(showMarch),
                              calendar(uid, QStringLiteral("2026-03"), days({1, 2, 3, 4, 5, 6}), days({4}), 6, 6, 6, 10 + 20 + 30 + 10 + 20));

        // Signing today again: reported, nothing changes, still exit 0.
        LANTERND_COMPARE_JSON(checkin(6), outcome(uid, march(6), QStringLiteral("normal"), true, 6, 6, 0));
        LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("work"), QStringLiteral("--once"), QStringLiteral("--id"), QStringLiteral("w1")}),
                              (QJsonObject{{QStringLiteral("worker"), QStringLiteral("w1")},
                                           {QStringLiteral("processed"), 0},
                                           {QStringLiteral("persisted"), 0},
                                           {QStringLiteral("dead_lettered"), 0},
                                           {QStringLiteral("payouts"), noPayouts()}}));

        // What SQL holds: six log rows, five grants (none for the make-up), one audit row.
        QCOMPARE(snapshotSql(sql.db), (SqlSnapshot{6, 5, 1, 90}));
        SqlConnection connection(sql.db);
        QSqlQuery makeup = connection.exec(QStringLiteral("SELECT kind, points, operator, reason FROM checkin_log WHERE uid = ? AND day = ?"),
                                           {uid, march(4)});
        QVERIFY(makeup.next());
        QCOMPARE(makeup.value(0).toString(), QStringLiteral("makeup"));
        QCOMPARE(makeup.value(1).toInt(), 0);
        QCOMPARE(makeup.value(2).toString(), QStringLiteral("alice"));
        QCOMPARE(makeup.value(3).toString(), QStringLiteral("app outage on the 4th"));
        QSqlQuery grants = connection.exec(QStringLiteral("SELECT ref, delta FROM points_ledger WHERE uid = ? ORDER BY ref"), {uid});
        QStringList ledger;
        while (grants.next())
            ledger << grants.value(0).toString() + QLatin1Char('=') + grants.value(1).toString();
        QCOMPARE(ledger, (QStringList{QStringLiteral("checkin:42:2026-03-01=10"), QStringLiteral("checkin:42:2026-03-02=20"),
                                      QStringLiteral("checkin:42:2026-03-03=30"), QStringLiteral("checkin:42:2026-03-05=10"),
                                      QStringLiteral("checkin:42:2026-03-06=20")}));
        QSqlQuery audit = connection.exec(QStringLiteral("SELECT actor, action, target FROM audit_log"));
        QVERIFY(audit.next());
        QCOMPARE(audit.value(0).toString(), QStringLiteral("alice"));
        QCOMPARE(audit.value(1).toString(), QStringLiteral("checkin.makeup"));
        QCOMPARE(audit.value(2).toString(), QStringLiteral("uid:42"));

        // The streak counts back from yesterday while today is unsigned, and is 0 after a gap.
        lanternd.defaults.insert(QStringLiteral("today"), march(7));
        QCOMPARE(lanternd.run(showMarch).json().value(QStringLiteral("streak")).toInt(-1), 6);
        lanternd.defaults.insert(QStringLiteral("today"), march(8));
        QCOMPARE(lanternd.run(showMarch).json().value(QStringLiteral("streak")).toInt(-1), 0);
        // Without --month, calendar shows today's month.
        const Result thisMonth = lanternd.run({QStringLiteral("calendar"), QStringLiteral("--uid"), uidText});
        LANTERND_VERIFY_OK(thisMonth);
        QCOMPARE(thisMonth.json().value(QStringLiteral("month")).toString(), QStringLiteral("2026-03"));
        QCOMPARE(thisMonth.json().value(QStringLiteral("month_count")).toInt(), 6);
    }

    void streakRewards_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QStringList>("dates");  // each signed with --today = that date
        QTest::addColumn<QList<int>>("points");
        QTest::addColumn<QList<int>>("streaks");
        for (const QString &dialect : dialects()) {
            const auto row = [&dialect](const char *name) -> QTestData & { return QTest::newRow(qPrintable(dialect + QStringLiteral(": ") + QLatin1String(name))); };
            row("default table 10/20/30/50, day 5 stays at 50")
                    << dialect << QStringList{} << QStringList{march(1), march(2), march(3), march(4), march(5)}
                    << QList<int>{10, 20, 30, 50, 50} << QList<int>{1, 2, 3, 4, 5};
            row("gap restarts the reward table")
                    << dialect << QStringList{} << QStringList{march(10), march(11), march(13), march(14)} << QList<int>{10, 20, 10, 20}
                    << QList<int>{1, 2, 1, 2};
            row("monthly policy restarts the streak on the 1st")
                    << dialect << QStringList{} << QStringList{QStringLiteral("2026-02-27"), QStringLiteral("2026-02-28"), march(1)}
                    << QList<int>{10, 20, 10} << QList<int>{1, 2, 1};
            row("rolling policy carries the streak over the 1st")
                    << dialect << QStringList{QStringLiteral("--streak-policy"), QStringLiteral("rolling")}
                    << QStringList{QStringLiteral("2026-02-27"), QStringLiteral("2026-02-28"), march(1), march(2)}
                    << QList<int>{10, 20, 30, 50} << QList<int>{1, 2, 3, 4};
            row("--rewards table, its last entry repeats")
                    << dialect << QStringList{QStringLiteral("--rewards"), QStringLiteral("5,7")} << QStringList{march(1), march(2), march(3)}
                    << QList<int>{5, 7, 7} << QList<int>{1, 2, 3};
        }
    }
    void streakRewards()
    {
        QFETCH(QString, dialect);
        QFETCH(QStringList, options);
        QFETCH(QStringList, dates);
        QFETCH(QList<int>, points);
        QFETCH(QList<int>, streaks);
        const SqlTarget sql = freshSql(dialect);
        const Lanternd lanternd(redisUrlText(), sql.url, lantern::test::uniquePrefix());
        const qint64 uid = 9001;
        int total = 0;
        for (qsizetype i = 0; i < dates.size(); ++i) {
            const Result result = lanternd.run(QStringList{QStringLiteral("checkin"), QStringLiteral("--uid"), QString::number(uid),
                                                          QStringLiteral("--today"), dates.at(i)}
                                               + options);
            const int monthCount = static_cast<int>(std::count_if(dates.cbegin(), dates.cbegin() + i + 1, [&](const QString &d) {
                return d.left(7) == dates.at(i).left(7);
            }));
            LANTERND_COMPARE_JSON(result, outcome(uid, dates.at(i), QStringLiteral("normal"), false, streaks.at(i), monthCount, points.at(i)));
            total += points.at(i);
        }
        const Result work = lanternd.run({QStringLiteral("work"), QStringLiteral("--once")});
        LANTERND_VERIFY_OK(work);
        QCOMPARE(work.json().value(QStringLiteral("persisted")).toInt(), dates.size());
        const Result shown = lanternd.run(QStringList{QStringLiteral("calendar"), QStringLiteral("--uid"), QString::number(uid),
                                                      QStringLiteral("--today"), dates.last()}
                                          + options);
        LANTERND_VERIFY_OK(shown);
        QCOMPARE(shown.json().value(QStringLiteral("points_balance")).toInteger(-1), qint64(total));
        QCOMPARE(shown.json().value(QStringLiteral("streak")).toInt(-1), streaks.last());
        QCOMPARE(snapshotSql(sql.db), (SqlSnapshot{dates.size(), dates.size(), 0, total}));
    }

    void makeupOfSignedDay_data() { addDialectRows("make-up of a signed day -> already, no points, no audit"); }
    void makeupOfSignedDay()
    {
        QFETCH(QString, dialect);
        const SqlTarget sql = freshSql(dialect);
        const Lanternd lanternd(redisUrlText(), sql.url, lantern::test::uniquePrefix(), march(10));
        LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("5"), QStringLiteral("--today"), march(9)}));
        LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("5")}));
        LANTERND_COMPARE_JSON(lanternd.run({QStringLiteral("makeup"), QStringLiteral("--uid"), QStringLiteral("5"), QStringLiteral("--date"),
                                            march(9), QStringLiteral("--reason"), QStringLiteral("double click"), QStringLiteral("--operator"),
                                            QStringLiteral("bob")}),
                              outcome(5, march(9), QStringLiteral("makeup"), true, 2, 2, 0));
        const Result shown = lanternd.run({QStringLiteral("calendar"), QStringLiteral("--uid"), QStringLiteral("5")});
        QCOMPARE(shown.json().value(QStringLiteral("makeup")).toArray(), QJsonArray());
        QCOMPARE(snapshotSql(sql.db).audit, 0);
    }

    void concurrentCheckins_data() { addDialectRows("8 processes sign one user at once -> one reward"); }
    void concurrentCheckins()
    {
        QFETCH(QString, dialect);
        const SqlTarget sql = freshSql(dialect);
        const Lanternd lanternd(redisUrlText(), sql.url, lantern::test::uniquePrefix(), march(10));
        const QList<QStringList> runs(8, {QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("4242")});
        int granted = 0;
        for (const Result &result : lanternd.runConcurrently(runs)) {
            LANTERND_VERIFY_OK(result);
            const bool already = result.json().value(QStringLiteral("already")).toBool();
            QCOMPARE(result.json().value(QStringLiteral("points")).toInt(-1), already ? 0 : 10);
            granted += already ? 0 : 1;
        }
        QCOMPARE(granted, 1);
        LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("work"), QStringLiteral("--once")}));
        QCOMPARE(snapshotSql(sql.db), (SqlSnapshot{1, 1, 0, 10}));
    }

    void concurrentMakeupsRespectQuota_data() { addDialectRows("6 make-ups at once, quota 3 -> 3 granted, 3 refused (exit 4)"); }
    void concurrentMakeupsRespectQuota()
    {
        QFETCH(QString, dialect);
        const SqlTarget sql = freshSql(dialect);
        const Lanternd lanternd(redisUrlText(), sql.url, lantern::test::uniquePrefix(), march(10));
        LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("migrate")}));
        QList<QStringList> runs;
        for (int day = 1; day <= 6; ++day)
            runs << QStringList{QStringLiteral("makeup"), QStringLiteral("--uid"),    QStringLiteral("77"),
                                QStringLiteral("--date"), march(day),                 QStringLiteral("--reason"),
                                QStringLiteral("batch"),  QStringLiteral("--operator"), QStringLiteral("dave")};
        int granted = 0;
        int refused = 0;
        for (const Result &result : lanternd.runConcurrently(runs)) {
            if (result.exitCode == 4 && result.out.isEmpty() && result.err.contains("quota")) {
                ++refused;
                continue;
            }
            LANTERND_VERIFY_OK(result);
            QCOMPARE(result.json().value(QStringLiteral("already")).toBool(true), false);
            ++granted;
        }
        QCOMPARE(granted, 3);
        QCOMPARE(refused, 3);
        const Result shown = lanternd.run({QStringLiteral("calendar"), QStringLiteral("--uid"), QStringLiteral("77")});
        QCOMPARE(shown.json().value(QStringLiteral("makeup")).toArray().size(), 3);
        QCOMPARE(snapshotSql(sql.db).audit, 3);
    }
};

LANTERN_TEST_SUITE(TestCliCheckin);

} // namespace tst_cli_checkin

#include "tst_cli_checkin.moc"
