// Read-only connections (the read-only setting): a RedisClient that sends only reads and an
// SqlConnection that runs only SELECTs, refused before anything reaches the server, and the
// server told as well (MySQL session READ ONLY, SQLite file opened read-only).
#include "core/errors.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "settings/config.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QSqlError>
#include <QTest>

namespace tst_readonly {

using namespace lantern;

namespace {

RedisOptions readOnly()
{
    RedisOptions options;
    options.readOnly = true;
    return options;
}

QByteArrayList args(const char *text)
{
    QByteArrayList list;
    for (const QByteArray &part : QByteArray(text).split(' '))
        list << part;
    return list;
}

qint64 auditRows(SqlConnection &sql)
{
    QSqlQuery query = sql.exec(QStringLiteral("SELECT COUNT(*) FROM audit_log"));
    return query.next() ? query.value(0).toLongLong() : -1;
}

} // namespace

class TestReadOnly final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void configSetting_data();
    void configSetting();

    void redisRefusesWrites_data();
    void redisRefusesWrites();
    void redisAllowsReads_data();
    void redisAllowsReads();
    void redisPipelineWithOneWriteSendsNothing();
    void readWriteClientIsUnchanged();

    void sqlRefusesChanges_data();
    void sqlRefusesChanges();
    void sqlAllowsSelect_data();
    void sqlAllowsSelect();
    void sqlServerRefusesAWriteThatBypassesTheCheck_data();
    void sqlServerRefusesAWriteThatBypassesTheCheck();
    void readOnlySqliteNeverCreatesAFile();

private:
    QByteArray key(const char *name) const { return m_prefix + name; }
    void dialects();

    RedisUrl m_redis;
    QByteArray m_prefix;
};

void TestReadOnly::initTestCase()
{
    m_redis = test::redisUrl();
    m_prefix = test::uniquePrefix().toUtf8();
    RedisClient writer(m_redis);
    writer.command({"SET", key("string"), "hello"});
    writer.command({"HSET", key("hash"), "field", "value"});
    writer.command({"RPUSH", key("list"), "a", "b"});
    writer.command({"SETBIT", key("bits"), "3", "1"});
    writer.command({"SADD", key("set"), "10001"});
}

void TestReadOnly::configSetting_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<bool>("expected");
    QTest::newRow("true") << QStringLiteral("true") << true << true;
    QTest::newRow("yes") << QStringLiteral("yes") << true << true;
    QTest::newRow("false") << QStringLiteral("false") << true << false;
    QTest::newRow("0") << QStringLiteral("0") << true << false;
    QTest::newRow("garbage is refused, naming the switch") << QStringLiteral("maybe") << false << false;
}

void TestReadOnly::configSetting()
{
    QFETCH(QString, value);
    QFETCH(bool, valid);
    QFETCH(bool, expected);
    QVERIFY(Config::settingNames().contains(QStringLiteral("read-only")));
    QVERIFY(!Config::resolve({}, QProcessEnvironment()).readOnly);  // default: read-write
    try {
        const Config config = Config::resolve({{QStringLiteral("read-only"), value}}, QProcessEnvironment());
        QVERIFY(valid);
        QCOMPARE(config.readOnly, expected);
    } catch (const InvalidInputError &error) {
        QVERIFY2(!valid, qPrintable(error.message()));
        QVERIFY(error.message().contains(QLatin1String("read-only")));
    }
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("LANTERN_READ_ONLY"), QStringLiteral("true"));
    QVERIFY(Config::resolve({}, environment).readOnly);
}

void TestReadOnly::redisRefusesWrites_data()
{
    QTest::addColumn<QByteArrayList>("command");
    QTest::newRow("SET") << args("SET {k}string changed");
    QTest::newRow("DEL") << args("DEL {k}string");
    QTest::newRow("UNLINK") << args("UNLINK {k}string");
    QTest::newRow("HSET") << args("HSET {k}hash field changed");
    QTest::newRow("LPUSH") << args("LPUSH {k}list c");
    QTest::newRow("LMOVE") << args("LMOVE {k}list {k}other LEFT RIGHT");
    QTest::newRow("SETBIT") << args("SETBIT {k}bits 4 1");
    QTest::newRow("BITFIELD with SET") << args("BITFIELD {k}bits GET u8 0 SET u8 0 255");
    QTest::newRow("BITFIELD with INCRBY") << args("BITFIELD {k}bits INCRBY u8 0 1");
    QTest::newRow("EXPIRE") << args("EXPIRE {k}string 1");
    QTest::newRow("EVAL") << args("EVAL return 1 0");
    QTest::newRow("EVALSHA") << args("EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db 0");
    QTest::newRow("SCRIPT LOAD") << args("SCRIPT LOAD return");
    QTest::newRow("FLUSHDB") << args("FLUSHDB");
    QTest::newRow("lower-case del") << args("del {k}string");
    QTest::newRow("KEYS is not on the read list either") << args("KEYS *");
}

void TestReadOnly::redisRefusesWrites()
{
    QFETCH(QByteArrayList, command);
    for (QByteArray &arg : command)
        arg.replace("{k}", m_prefix);
    RedisClient writer(m_redis);
    const QByteArray before = writer.command({"DUMP", key("string")}).toBytes();
    const QByteArray bitsBefore = writer.command({"GET", key("bits")}).toBytes();

    RedisClient client(m_redis, readOnly());
    QVERIFY(client.isReadOnly());
    try {
        client.command(command);
        QFAIL("a read-only client sent a write");
    } catch (const RedisReadOnlyError &error) {
        // A refusal (exit 4), saying what and why.
        QVERIFY(dynamic_cast<const RefusedError *>(&error));
        QVERIFY2(error.message().contains(QString::fromUtf8(command.first().toUpper())), qPrintable(error.message()));
        QVERIFY2(error.message().contains(QLatin1String("read-only")), qPrintable(error.message()));
    }
    QCOMPARE(client.roundTrips(), quint64(0));  // nothing was sent
    QVERIFY(!client.isConnected());
    QCOMPARE(writer.command({"DUMP", key("string")}).toBytes(), before);
    QCOMPARE(writer.command({"GET", key("bits")}).toBytes(), bitsBefore);
    QCOMPARE(writer.command({"EXISTS", key("other")}).toInteger(), 0LL);
}

void TestReadOnly::redisAllowsReads_data()
{
    QTest::addColumn<QByteArrayList>("command");
    QTest::newRow("PING") << args("PING");
    QTest::newRow("GET") << args("GET {k}string");
    QTest::newRow("MGET") << args("MGET {k}string {k}none");
    QTest::newRow("HGETALL") << args("HGETALL {k}hash");
    QTest::newRow("HMGET") << args("HMGET {k}hash field");
    QTest::newRow("LRANGE") << args("LRANGE {k}list 0 -1");
    QTest::newRow("LLEN") << args("LLEN {k}list");
    QTest::newRow("SISMEMBER") << args("SISMEMBER {k}set 10001");
    QTest::newRow("SCAN") << args("SCAN 0 MATCH {k}* COUNT 100");
    QTest::newRow("TTL") << args("TTL {k}string");
    QTest::newRow("TYPE") << args("TYPE {k}hash");
    QTest::newRow("EXISTS") << args("EXISTS {k}string");
    QTest::newRow("INFO") << args("INFO server");
    QTest::newRow("GETBIT") << args("GETBIT {k}bits 3");
    QTest::newRow("BITCOUNT") << args("BITCOUNT {k}bits");
    QTest::newRow("BITFIELD_RO") << args("BITFIELD_RO {k}bits GET u8 0");
    QTest::newRow("BITFIELD with GETs only (the calendar read)") << args("BITFIELD {k}bits GET u8 0 GET u4 0");
}

void TestReadOnly::redisAllowsReads()
{
    QFETCH(QByteArrayList, command);
    for (QByteArray &arg : command)
        arg.replace("{k}", m_prefix);
    RedisClient client(m_redis, readOnly());
    client.command(command);  // throws if refused
    QCOMPARE(client.roundTrips(), quint64(1));
    QCOMPARE(client.command({"GET", key("string")}).toBytes(), QByteArray("hello"));
}

void TestReadOnly::redisPipelineWithOneWriteSendsNothing()
{
    RedisClient client(m_redis, readOnly());
    QVERIFY_THROWS_EXCEPTION(RedisReadOnlyError, client.pipeline({{"GET", key("string")}, {"SET", key("fresh"), "x"}, {"PING"}}));
    QCOMPARE(client.roundTrips(), quint64(0));
    QCOMPARE(RedisClient(m_redis).command({"EXISTS", key("fresh")}).toInteger(), 0LL);
}

void TestReadOnly::readWriteClientIsUnchanged()
{
    RedisClient client(m_redis);
    QVERIFY(!client.isReadOnly());
    client.command({"SET", key("written"), "yes"});
    QCOMPARE(client.command({"GET", key("written")}).toBytes(), QByteArray("yes"));
    client.command({"DEL", key("written")});
}

void TestReadOnly::dialects()
{
    QTest::addColumn<DbUrl>("url");
    for (const auto &[name, url] : test::sqlDialects()) {
        test::resetTables(url);
        QTest::newRow(qPrintable(name)) << url;
    }
}

void TestReadOnly::sqlRefusesChanges_data()
{
    dialects();
}

void TestReadOnly::sqlRefusesChanges()
{
    QFETCH(DbUrl, url);
    {
        SqlConnection writer(url);
        writer.exec(QStringLiteral("INSERT INTO audit_log (at_ms, actor, action, target, detail) VALUES (1, 'a', 'x', 't', '{}')"));
    }
    SqlConnection sql(url, SqlAccess::ReadOnly);
    QVERIFY(sql.isReadOnly());
    const QStringList statements{
            QStringLiteral("INSERT INTO audit_log (at_ms, actor, action, target, detail) VALUES (2, 'b', 'y', 't', '{}')"),
            QStringLiteral("  update audit_log SET actor = 'mallory'"),
            QStringLiteral("DELETE FROM audit_log"),
            QStringLiteral("DROP TABLE audit_log"),
            QStringLiteral("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)"),
            QStringLiteral("REPLACE INTO audit_log (id, at_ms, actor, action, target, detail) VALUES (1, 1, 'a', 'x', 't', '{}')"),
            QStringLiteral("WITH doomed AS (SELECT id FROM audit_log) DELETE FROM audit_log"),
            QStringLiteral("SELECT * FROM audit_log INTO OUTFILE '/tmp/lantern-readonly-leak'"),
    };
    for (const QString &statement : statements) {
        try {
            sql.exec(statement);
            QFAIL(qPrintable(QStringLiteral("a read-only connection ran: ") + statement));
        } catch (const SqlReadOnlyError &error) {
            QVERIFY(dynamic_cast<const RefusedError *>(&error));
            QVERIFY2(error.message().contains(QLatin1String("only SELECT")), qPrintable(error.message()));
        }
    }
    QCOMPARE(auditRows(sql), 1);
    QSqlQuery actor = sql.exec(QStringLiteral("SELECT actor FROM audit_log"));
    QVERIFY(actor.next());
    QCOMPARE(actor.value(0).toString(), QStringLiteral("a"));
    // A transaction is fine: it reads.
    sql.transaction([&] { QCOMPARE(auditRows(sql), 1); });
    // Migrations write, so a read-only connection cannot run them.
    QVERIFY_THROWS_EXCEPTION(SqlReadOnlyError, Migrator(sql).currentVersion());
}

void TestReadOnly::sqlAllowsSelect_data()
{
    dialects();
}

void TestReadOnly::sqlAllowsSelect()
{
    QFETCH(DbUrl, url);
    SqlConnection sql(url, SqlAccess::ReadOnly);
    QSqlQuery one = sql.exec(QStringLiteral("SELECT 1"));
    QVERIFY(one.next());
    QCOMPARE(one.value(0).toInt(), 1);
    QSqlQuery bound = sql.exec(QStringLiteral("select COUNT(*) FROM audit_log WHERE at_ms > ?"), {0});
    QVERIFY(bound.next());
    QSqlQuery lowerCase = sql.exec(QStringLiteral("\n  select 2"));
    QVERIFY(lowerCase.next());
    QCOMPARE(lowerCase.value(0).toInt(), 2);
}

void TestReadOnly::sqlServerRefusesAWriteThatBypassesTheCheck_data()
{
    dialects();
}

void TestReadOnly::sqlServerRefusesAWriteThatBypassesTheCheck()
{
    QFETCH(DbUrl, url);
    SqlConnection sql(url, SqlAccess::ReadOnly);
    const qint64 before = auditRows(sql);
    // Straight through Qt Sql, past exec()'s check: the server itself says no.
    QSqlQuery query(sql.database());
    QVERIFY(!query.exec(QStringLiteral("INSERT INTO audit_log (at_ms, actor, action, target, detail) VALUES (3, 'c', 'z', 't', '{}')")));
    const QString error = query.lastError().text();
    QVERIFY2(error.contains(QLatin1String("READ ONLY"), Qt::CaseInsensitive) || error.contains(QLatin1String("readonly"), Qt::CaseInsensitive),
             qPrintable(error));
    QCOMPARE(auditRows(sql), before);
}

void TestReadOnly::readOnlySqliteNeverCreatesAFile()
{
    DbUrl url = test::sqliteUrl();
    url.path += QStringLiteral(".missing.db");
    QVERIFY(!QFile::exists(url.path));
    QVERIFY_THROWS_EXCEPTION(SqlUnavailableError, SqlConnection(url, SqlAccess::ReadOnly));
    QVERIFY(!QFile::exists(url.path));
}

LANTERN_TEST_SUITE(TestReadOnly);

} // namespace tst_readonly

#include "tst_readonly.moc"
