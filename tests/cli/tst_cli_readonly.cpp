// lanternd with the read-only setting (--read-only true, LANTERN_READ_ONLY, or read-only=true in
// a profile): every command that would write is refused at the connection with exit 4 and a
// message that says so, and writes nothing to Redis or SQL; reads still work.
#include "clitest.h"

#include "redis/redisclient.h"
#include "testservers.h"
#include "testsuite.h"

#include <QJsonArray>
#include <QTest>

namespace tst_cli_readonly {

using namespace lantern;
using namespace lantern::test;
using namespace lantern::test::cli;

namespace {

const QString Today = QStringLiteral("2025-03-10");
const QStringList Tables{QStringLiteral("checkin_log"), QStringLiteral("points_ledger"), QStringLiteral("audit_log"),
                         QStringLiteral("schema_version")};

} // namespace

class TestCliReadOnly final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanupTestCase() { dropFreshDatabases(); }

    void writesAreRefused_data();
    void writesAreRefused();
    void readsStillWork_data();
    void readsStillWork();
};

void TestCliReadOnly::writesAreRefused_data()
{
    QTest::addColumn<QString>("dialect");
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<bool>("viaEnvironment");
    for (const QString &dialect : dialects()) {
        const auto row = [&](const char *name) -> QTestData & {
            return QTest::newRow(qPrintable(dialect + QStringLiteral(": ") + QLatin1String(name)));
        };
        row("checkin today (the Redis script) -> refused, exit 4")
                << dialect << QStringList{QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("42")} << false;
        row("checkin with LANTERN_READ_ONLY=true -> refused, exit 4")
                << dialect << QStringList{QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("43")} << true;
        row("back-dated checkin (audit row first) -> refused, exit 4")
                << dialect
                << QStringList{QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("42"), QStringLiteral("--date"),
                               QStringLiteral("2025-03-08")}
                << false;
        row("makeup -> refused, exit 4") << dialect
                                        << QStringList{QStringLiteral("makeup"), QStringLiteral("--uid"), QStringLiteral("42"),
                                                       QStringLiteral("--date"), QStringLiteral("2025-03-08"), QStringLiteral("--reason"),
                                                       QStringLiteral("outage"), QStringLiteral("--operator"), QStringLiteral("alice")}
                                        << false;
        row("migrate -> refused, exit 4") << dialect << QStringList{QStringLiteral("migrate")} << false;
    }
}

void TestCliReadOnly::writesAreRefused()
{
    QFETCH(QString, dialect);
    QFETCH(QStringList, arguments);
    QFETCH(bool, viaEnvironment);
    const SqlTarget sql = freshSql(dialect);
    const QString prefix = lantern::test::uniquePrefix();
    Lanternd lanternd(redisUrlText(), sql.url, prefix, Today);
    // Something to protect: a migrated schema and one check-in, written read-write.
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("migrate")}));
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("42"), QStringLiteral("--date"),
                                     QStringLiteral("2025-03-09")}));
    RedisClient redis(redisUrlOf());
    const RedisSnapshot redisBefore = snapshotRedis(redis, prefix.toUtf8());
    const SqlRowsSnapshot sqlBefore = snapshotSqlRows(sql.db, Tables);
    QVERIFY(!redisBefore.keys.isEmpty());

    if (viaEnvironment)
        lanternd.extraEnv.insert(QStringLiteral("LANTERN_READ_ONLY"), QStringLiteral("true"));
    else
        arguments << QStringLiteral("--read-only") << QStringLiteral("true");
    const Result result = lanternd.run(arguments);
    QVERIFY2(result.exitCode == 4, result.describe().constData());
    QVERIFY2(result.out.isEmpty(), result.describe().constData());
    QVERIFY2(result.err.contains("read-only"), result.describe().constData());
    QVERIFY2(result.err.contains("was not sent") || result.err.contains("was not run"), result.describe().constData());

    const RedisSnapshot redisAfter = snapshotRedis(redis, prefix.toUtf8());
    QVERIFY2(redisAfter.keys == redisBefore.keys, redisBefore.describeChange(redisAfter).constData());
    const SqlRowsSnapshot sqlAfter = snapshotSqlRows(sql.db, Tables);
    QVERIFY2(sqlAfter == sqlBefore, sqlBefore.describeChange(sqlAfter).constData());
    deleteKeys(redis, prefix.toUtf8());
}

void TestCliReadOnly::readsStillWork_data()
{
    QTest::addColumn<QString>("dialect");
    for (const QString &dialect : dialects())
        QTest::newRow(qPrintable(dialect + QStringLiteral(": calendar read-only shows the signed day"))) << dialect;
}

void TestCliReadOnly::readsStillWork()
{
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const QString prefix = lantern::test::uniquePrefix();
    const Lanternd lanternd(redisUrlText(), sql.url, prefix, Today);
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("migrate")}));  // read-only never migrates
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("7")}));
    const Result shown = lanternd.run({QStringLiteral("calendar"), QStringLiteral("--uid"), QStringLiteral("7"), QStringLiteral("--month"),
                                       QStringLiteral("2025-03"), QStringLiteral("--read-only"), QStringLiteral("true")});
    LANTERND_VERIFY_OK(shown);
    QCOMPARE(shown.json().value(QStringLiteral("signed")).toArray(), QJsonArray{10});
    RedisClient redis(redisUrlOf());
    deleteKeys(redis, prefix.toUtf8());
}

LANTERN_TEST_SUITE(TestCliReadOnly);

} // namespace tst_cli_readonly

#include "tst_cli_readonly.moc"
