// The SQL layer on both dialects: versioned migrations, a connection per thread, prepared
// statements, idempotent persistence on business keys, and typed errors.
#include "checkin/checkinentry.h"
#include "checkin/checkinstore.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QTest>
#include <QThread>

#include <atomic>

namespace tst_sql {

using namespace lantern;

namespace {
CheckinEntry entry(qint64 uid, QDate day, int points, const QString &kind = QStringLiteral("normal"))
{
    CheckinEntry e;
    e.uid = uid;
    e.date = day;
    e.kind = kind;
    e.points = points;
    e.atMs = 1700000000000;
    if (kind == QLatin1String("makeup")) {
        e.operatorName = QStringLiteral("alice");
        e.reason = QStringLiteral("it's \"quoted\"; DROP TABLE checkin_log; --");
    }
    return e;
}

qint64 count(SqlConnection &sql, const QString &table)
{
    QSqlQuery query = sql.exec(QStringLiteral("SELECT COUNT(*) FROM ") + table);
    return query.next() ? query.value(0).toLongLong() : -1;
}
} // namespace

class TestSql : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void dialects_data();
    void migrationsAreVersionedAndIdempotent_data() { dialects_data(); }
    void migrationsAreVersionedAndIdempotent();
    void concurrentMigratorsAgree_data() { dialects_data(); }
    void concurrentMigratorsAgree();
    void persistIsIdempotentOnBusinessKeys_data() { dialects_data(); }
    void persistIsIdempotentOnBusinessKeys();
    void connectionPerThread_data() { dialects_data(); }
    void connectionPerThread();
    void unreachableMySqlIsUnavailable();
    void constraintViolationIsSqlError_data() { dialects_data(); }
    void constraintViolationIsSqlError();
    void writeKeepsItsStatementsPrepared_data() { dialects_data(); }
    void writeKeepsItsStatementsPrepared();
};

void TestSql::dialects_data()
{
    QTest::addColumn<DbUrl>("url");
    for (const auto &[name, url] : test::sqlDialects())
        QTest::newRow(qPrintable(name)) << url;
}

void TestSql::migrationsAreVersionedAndIdempotent()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    SqlConnection sql(url);
    Migrator migrator(sql);
    QVERIFY(Migrator::latestVersion() >= 1);
    QCOMPARE(migrator.migrate(), Migrator::latestVersion());
    QCOMPARE(migrator.migrate(), Migrator::latestVersion());
    QCOMPARE(migrator.currentVersion(), Migrator::latestVersion());
    QCOMPARE(count(sql, QStringLiteral("schema_version")), qint64(Migrator::latestVersion()));
    QCOMPARE(count(sql, QStringLiteral("checkin_log")), 0);
}

void TestSql::concurrentMigratorsAgree()
{
    QFETCH(DbUrl, url);
    std::atomic_int agreed{0};
    QList<QThread *> threads;
    for (int i = 0; i < 4; ++i) {
        threads << QThread::create([&url, &agreed] {
            SqlConnection sql(url);
            if (Migrator(sql).migrate() == Migrator::latestVersion())
                ++agreed;
        });
        threads.back()->start();
    }
    for (QThread *thread : threads) {
        QVERIFY(thread->wait(30000));
        delete thread;
    }
    QCOMPARE(agreed.load(), 4);
}

void TestSql::persistIsIdempotentOnBusinessKeys()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    SqlConnection sql(url);
    CheckinStore store(sql);
    const QDate day(2026, 11, 21);
    QList<CheckinEntry> entries;
    for (qint64 uid = 1; uid <= 600; ++uid)  // more than one multi-row chunk
        entries << entry(uid, day, uid % 4 == 0 ? 0 : 10, uid % 4 == 0 ? QStringLiteral("makeup") : QStringLiteral("normal"));

    QCOMPARE(store.persist(entries), 600);
    QCOMPARE(count(sql, QStringLiteral("checkin_log")), 600);
    QCOMPARE(count(sql, QStringLiteral("points_ledger")), 450);  // make-ups grant nothing
    QCOMPARE(store.pointsBalance(1), 10);

    // Replaying the same entries, and a conflicting duplicate, changes nothing.
    QCOMPARE(store.persist(entries), 0);
    QCOMPARE(store.persist({entry(1, day, 50)}), 0);
    QCOMPARE(count(sql, QStringLiteral("checkin_log")), 600);
    QCOMPARE(count(sql, QStringLiteral("points_ledger")), 450);
    QCOMPARE(store.pointsBalance(1), 10);
    QVERIFY(store.hasLog(4, day));
    QCOMPARE(store.uidsOn(day).size(), 600);

    // Prepared statements store hostile text literally.
    QSqlQuery reason = sql.exec(QStringLiteral("SELECT reason, operator FROM checkin_log WHERE uid = ? AND day = ?"), {4, day.toString(Qt::ISODate)});
    QVERIFY(reason.next());
    QCOMPARE(reason.value(0).toString(), entry(4, day, 0, QStringLiteral("makeup")).reason);
    QCOMPARE(reason.value(1).toString(), QStringLiteral("alice"));
}

void TestSql::connectionPerThread()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    const QDate day(2026, 11, 20);
    std::atomic_int inserted{0};
    QList<QThread *> threads;
    for (int t = 0; t < 4; ++t) {
        threads << QThread::create([&, t] {
            SqlConnection sql(url);  // opened and removed inside this thread
            QList<CheckinEntry> batch;
            for (qint64 uid = 1; uid <= 100; ++uid)
                batch << entry(uid + (t % 2) * 50, day, 10);  // threads overlap on purpose
            inserted += CheckinStore(sql).persist(batch);
        });
        threads.back()->start();
    }
    for (QThread *thread : threads) {
        QVERIFY(thread->wait(60000));
        delete thread;
    }
    SqlConnection sql(url);
    QCOMPARE(inserted.load(), 150);
    QCOMPARE(count(sql, QStringLiteral("checkin_log")), 150);
    QCOMPARE(count(sql, QStringLiteral("points_ledger")), 150);
}

void TestSql::unreachableMySqlIsUnavailable()
{
    DbUrl url = test::mysqlUrl();
    url.port = 1;
    url.unixSocket = QStringLiteral("/nonexistent/mysqld.sock");
    QVERIFY_THROWS_EXCEPTION(SqlUnavailableError, SqlConnection{url});
}

void TestSql::constraintViolationIsSqlError()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    SqlConnection sql(url);
    QVERIFY_THROWS_EXCEPTION(SqlError, sql.exec(QStringLiteral("INSERT INTO checkin_log (uid, day, kind, points, signed_at) VALUES (?, ?, ?, ?, ?)"),
                                                {1, QStringLiteral("2026-11-01"), QStringLiteral("bogus"), 0, 0}));
    QCOMPARE(count(sql, QStringLiteral("checkin_log")), 0);
}

void TestSql::writeKeepsItsStatementsPrepared()
{
    // The same text again with other values (the prepared statement kept), inside and outside a
    // transaction; a failure throws and the text still works afterwards; read-only refuses.
    QFETCH(DbUrl, url);
    test::resetTables(url);
    SqlConnection sql(url);
    const QString insert = sql.insertIgnoreInto() + QStringLiteral("checkin_log (uid, day, kind, points, signed_at) VALUES ")
            + SqlConnection::placeholderRows(2, 5);
    const auto rows = [](qint64 first, qint64 second) {
        return QVariantList{first, QStringLiteral("2026-11-01"), QStringLiteral("normal"), 10, 0,
                            second, QStringLiteral("2026-11-01"), QStringLiteral("normal"), 10, 0};
    };
    QCOMPARE(sql.write(insert, rows(1, 2)), 2);
    QCOMPARE(sql.write(insert, rows(2, 3)), 1);  // uid 2's row was there: ignored
    sql.transaction([&] { QCOMPARE(sql.write(insert, rows(4, 5)), 2); });
    QCOMPARE(count(sql, QStringLiteral("checkin_log")), 5);

    const QString strict = QStringLiteral("INSERT INTO checkin_log (uid, day, kind, points, signed_at) VALUES ") + SqlConnection::placeholderRows(2, 5);
    QVERIFY_THROWS_EXCEPTION(SqlError, sql.write(strict, rows(6, 1)));  // uid 1 exists
    QCOMPARE(sql.write(strict, rows(6, 7)), 2);
    QCOMPARE(count(sql, QStringLiteral("checkin_log")), 7);

    SqlConnection reader(url, SqlAccess::ReadOnly);
    QVERIFY_THROWS_EXCEPTION(SqlReadOnlyError, reader.write(insert, rows(8, 9)));
    QCOMPARE(count(sql, QStringLiteral("checkin_log")), 7);
}

LANTERN_TEST_SUITE(TestSql);

} // namespace tst_sql

#include "tst_sql.moc"
