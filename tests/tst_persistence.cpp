// Async persistence on both SQL dialects: the reliable queue drained into checkin_log and the
// ledger, replay that changes nothing, crash recovery of a dead worker's backup list, the
// dead-letter list for malformed entries, and reconcile back-fill after lost rows.
#include "checkin/checkindrain.h"
#include "checkin/checkinentry.h"
#include "checkin/checkinrecovery.h"
#include "checkin/checkinservice.h"
#include "checkin/checkinstore.h"
#include "checkin/reconciler.h"
#include "queue/reliablequeue.h"
#include "operations/workerheartbeat.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "sql/sqlworker.h"
#include "testservers.h"
#include "testsuite.h"

#include <QTest>

namespace tst_persistence {

using namespace lantern;

namespace {
constexpr qint64 Now = 1795000000000;

qint64 scalar(SqlConnection &sql, const QString &query, const QVariantList &values = {})
{
    QSqlQuery result = sql.exec(query, values);
    return result.next() ? result.value(0).toLongLong() : -1;
}

qint64 queued(RedisClient &redis, const KeySchema &keys)
{
    qint64 total = 0;
    for (int shard = 0; shard < keys.shards(); ++shard)
        total += redis.command({"LLEN", keys.checkinQueue(shard)}).toInteger();
    return total;
}

/** Check-ins for `users` users over days 1..`days` of November 2026; returns points granted. */
qint64 signMonth(RedisClient &redis, const KeySchema &keys, int users, int days)
{
    CheckinService service(redis, keys, CheckinRules{});
    qint64 points = 0;
    for (int d = 1; d <= days; ++d) {
        const QDate day(2026, 11, d);
        for (qint64 uid = 1; uid <= users; ++uid) {
            if ((uid + d) % 5 != 0)  // leave gaps so streaks restart
                points += service.checkin(uid, day, day, Now).points;
        }
    }
    return points;
}
/** A month's check-ins waiting in the queues, over empty tables. */
struct QueuedMonth {
    qint64 points = 0;  // granted
    qint64 count = 0;   // entries queued
};

QueuedMonth queueMonth(RedisClient &redis, const DbUrl &url, const KeySchema &keys, int users, int days)
{
    test::resetTables(url);
    const qint64 points = signMonth(redis, keys, users, days);
    return {points, queued(redis, keys)};
}
} // namespace

class TestPersistence : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void dialects_data();
    void drainPersistsEverythingOnce_data() { dialects_data(); }
    void drainPersistsEverythingOnce();
    void replayChangesNothing_data() { dialects_data(); }
    void replayChangesNothing();
    void crashedWorkerIsRecovered_data() { dialects_data(); }
    void crashedWorkerIsRecovered();
    void liveWorkerIsLeftAlone_data() { dialects_data(); }
    void liveWorkerIsLeftAlone();
    void malformedEntriesGoToDeadLetter_data() { dialects_data(); }
    void malformedEntriesGoToDeadLetter();
    void reconcileBackfillsLostRows_data() { dialects_data(); }
    void reconcileBackfillsLostRows();
    void passOverTwoConnections();

private:
    RedisUrl m_redisUrl;
};

void TestPersistence::initTestCase()
{
    m_redisUrl = test::redisUrl();
}

void TestPersistence::dialects_data()
{
    QTest::addColumn<DbUrl>("url");
    for (const auto &[name, url] : test::sqlDialects())
        QTest::newRow(qPrintable(name)) << url;
}

void TestPersistence::drainPersistsEverythingOnce()
{
    QFETCH(DbUrl, url);
    RedisClient redis(m_redisUrl);
    const KeySchema keys(test::uniquePrefix(), 8);
    const auto [points, signedCount] = queueMonth(redis, url, keys, 40, 10);
    SqlConnection sql(url);
    QCOMPARE(signedCount, 320);  // 40 users x 10 days, minus every fifth (uid + day)

    const DrainStats stats = CheckinDrain(redis, sql, keys, QStringLiteral("w1"), 37).drainAll();
    QCOMPARE(stats.claimed, signedCount);
    QCOMPARE(stats.persisted, signedCount);
    QCOMPARE(stats.deadLettered, 0);
    QCOMPARE(queued(redis, keys), 0);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM checkin_log")), signedCount);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COALESCE(SUM(delta), 0) FROM points_ledger")), points);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COALESCE(SUM(points), 0) FROM checkin_log")), points);
    // Invariant 5: one reward per normal check-in.
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM points_ledger")), signedCount);
    for (int shard = 0; shard < keys.shards(); ++shard)
        QCOMPARE(redis.command({"LLEN", keys.checkinBackup(shard, QStringLiteral("w1"))}).toInteger(), 0LL);
}

void TestPersistence::passOverTwoConnections()
{
    // lanternd work on MySQL writes a pass over its connection and a SqlWorker's at once, each a
    // uid range. A share that fails leaves the whole pass unacknowledged; the replay completes it.
    DbUrl url;
    for (const auto &[name, candidate] : test::sqlDialects()) {
        if (candidate.dialect == DbUrl::Dialect::MySql)
            url = candidate;
    }
    QCOMPARE(url.dialect, DbUrl::Dialect::MySql);
    RedisClient redis(m_redisUrl);
    const KeySchema keys(test::uniquePrefix(), 4);
    const auto [points, signedCount] = queueMonth(redis, url, keys, 150, 10);
    SqlConnection sql(url);
    QCOMPARE(signedCount, 1200);  // one pass of 4 shards x 300: two shares of 600

    DbUrl unreachable = url;
    unreachable.host = QStringLiteral("127.0.0.1");
    unreachable.port = 1;
    unreachable.unixSocket = QStringLiteral("/nonexistent/lantern-test-mysqld.sock");
    {
        SqlWorker broken(unreachable);
        CheckinDrain drain(redis, sql, keys, QStringLiteral("w1"), 500);
        drain.setWriters({&broken});
        QVERIFY_THROWS_EXCEPTION(SqlUnavailableError, drain.pass());
    }
    const qint64 half = scalar(sql, QStringLiteral("SELECT COUNT(*) FROM checkin_log"));
    QCOMPARE(half, signedCount / 2);  // this connection's share committed, the worker's never began
    qint64 held = 0;
    for (int shard = 0; shard < keys.shards(); ++shard)
        held += redis.command({"LLEN", keys.checkinBackup(shard, QStringLiteral("w1"))}).toInteger();
    QCOMPARE(held, signedCount);  // nothing acknowledged

    SqlWorker worker(url);
    CheckinDrain drain(redis, sql, keys, QStringLiteral("w1"), 500);
    drain.setWriters({&worker});
    const DrainStats stats = drain.drainAll();
    QCOMPARE(stats.claimed, signedCount);
    QCOMPARE(stats.persisted, signedCount - half);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM checkin_log")), signedCount);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM points_ledger")), signedCount);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COALESCE(SUM(delta), 0) FROM points_ledger")), points);
    for (int shard = 0; shard < keys.shards(); ++shard)
        QCOMPARE(redis.command({"LLEN", keys.checkinBackup(shard, QStringLiteral("w1"))}).toInteger(), 0LL);
}

void TestPersistence::replayChangesNothing()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    RedisClient redis(m_redisUrl);
    SqlConnection sql(url);
    const KeySchema keys(test::uniquePrefix(), 4);
    signMonth(redis, keys, 12, 6);
    // Copy every queued entry before the drain, then push the copies again afterwards.
    QList<QByteArrayList> entries;
    for (int shard = 0; shard < keys.shards(); ++shard) {
        QByteArrayList list;
        for (const RedisValue &value : redis.command({"LRANGE", keys.checkinQueue(shard), "0", "-1"}).elements)
            list << value.toBytes();
        entries << list;
    }
    CheckinDrain(redis, sql, keys, QStringLiteral("w1")).drainAll();
    const qint64 rows = scalar(sql, QStringLiteral("SELECT COUNT(*) FROM checkin_log"));
    const qint64 balance = scalar(sql, QStringLiteral("SELECT SUM(delta) FROM points_ledger"));

    for (int shard = 0; shard < keys.shards(); ++shard) {
        for (const QByteArray &entry : entries.at(shard)) {
            redis.command({"LPUSH", keys.checkinQueue(shard), entry});
            redis.command({"LPUSH", keys.checkinQueue(shard), entry});  // twice
        }
    }
    const DrainStats replay = CheckinDrain(redis, sql, keys, QStringLiteral("w2")).drainAll();
    QCOMPARE(replay.claimed, rows * 2);
    QCOMPARE(replay.persisted, 0);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM checkin_log")), rows);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT SUM(delta) FROM points_ledger")), balance);
}

void TestPersistence::crashedWorkerIsRecovered()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    RedisClient redis(m_redisUrl);
    SqlConnection sql(url);
    const KeySchema keys(test::uniquePrefix(), 2);
    signMonth(redis, keys, 10, 3);
    const qint64 total = queued(redis, keys);

    // A worker claims batches and dies: half its batch persisted, nothing acknowledged.
    const QString dead = QStringLiteral("dead-worker");
    WorkerHeartbeat heartbeat(keys, dead, 30);
    heartbeat.beat(redis, Now);
    qint64 claimed = 0;
    for (int shard = 0; shard < keys.shards(); ++shard) {
        const ReliableQueue queue(keys.checkinQueue(shard), keys.checkinBackup(shard, dead), keys.checkinDeadLetter(shard));
        const QByteArrayList batch = queue.claim(redis, 8);
        claimed += batch.size();
        QList<CheckinEntry> half;
        for (qsizetype i = 0; i < batch.size() / 2; ++i)
            half << *CheckinEntry::fromJson(batch.at(i));
        CheckinStore(sql).persist(half);
    }
    QCOMPARE(claimed, 16);
    // Its heartbeat expires (deleted here instead of waiting for the TTL).
    redis.command({"DEL", keys.workerHeartbeat(dead)});

    const RecoveryReport report = CheckinRecovery(redis, sql, keys).recover();
    QCOMPARE(report.reclaimed, 1);
    QCOMPARE(report.workers, QStringList{dead});
    QCOMPARE(report.completed, 8);
    QCOMPARE(report.requeued, 8);
    QCOMPARE(report.deadLettered, 0);
    QCOMPARE(queued(redis, keys), total - 8);
    QVERIFY(redis.command({"SISMEMBER", keys.workerSet(), dead.toUtf8()}).toInteger() == 0);

    CheckinDrain(redis, sql, keys, QStringLiteral("rescuer")).drainAll();
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM checkin_log")), total);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM points_ledger")), total);
}

void TestPersistence::liveWorkerIsLeftAlone()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    RedisClient redis(m_redisUrl);
    SqlConnection sql(url);
    const KeySchema keys(test::uniquePrefix(), 1);
    signMonth(redis, keys, 3, 1);
    const QString alive = QStringLiteral("alive-worker");
    WorkerHeartbeat(keys, alive, 30).beat(redis, Now);
    const ReliableQueue queue(keys.checkinQueue(0), keys.checkinBackup(0, alive), keys.checkinDeadLetter(0));
    QCOMPARE(queue.claim(redis, 10).size(), 3);

    const RecoveryReport untouched = CheckinRecovery(redis, sql, keys).recover();
    QCOMPARE(untouched.reclaimed, 0);
    QCOMPARE(redis.command({"LLEN", keys.checkinBackup(0, alive)}).toInteger(), 3LL);

    // An operator may force it.
    const RecoveryReport forced = CheckinRecovery(redis, sql, keys).recover(alive);
    QCOMPARE(forced.requeued, 3);
    QCOMPARE(redis.command({"LLEN", keys.checkinBackup(0, alive)}).toInteger(), 0LL);
}

void TestPersistence::malformedEntriesGoToDeadLetter()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    RedisClient redis(m_redisUrl);
    SqlConnection sql(url);
    const KeySchema keys(test::uniquePrefix(), 1);
    signMonth(redis, keys, 2, 1);
    for (const QByteArray &bad : {QByteArray("not json"), QByteArray(R"({"uid":"x","date":"2026-11-01"})"),
                                  QByteArray(R"({"uid":"5","date":"2026-02-30","kind":"normal","points":1,"at":1})"),
                                  QByteArray(R"({"uid":"5","date":"2026-11-02","kind":"bonus","points":1,"at":1})")})
        redis.command({"LPUSH", keys.checkinQueue(0), bad});
    const DrainStats stats = CheckinDrain(redis, sql, keys, QStringLiteral("w1")).drainAll();
    QCOMPARE(stats.deadLettered, 4);
    QCOMPARE(stats.persisted, 2);
    QCOMPARE(redis.command({"LLEN", keys.checkinDeadLetter(0)}).toInteger(), 4LL);
    QCOMPARE(redis.command({"LLEN", keys.checkinBackup(0, QStringLiteral("w1"))}).toInteger(), 0LL);
}

void TestPersistence::reconcileBackfillsLostRows()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    RedisClient redis(m_redisUrl);
    SqlConnection sql(url);
    const KeySchema keys(test::uniquePrefix(), 4);
    CheckinService service(redis, keys, CheckinRules{});
    const QDate today(2026, 11, 3);
    for (qint64 uid = 1; uid <= 20; ++uid) {
        service.checkin(uid, QDate(2026, 11, 1), QDate(2026, 11, 1), Now);
        service.checkin(uid, QDate(2026, 11, 3), today, Now);
    }
    service.makeup({21, QDate(2026, 11, 3), QStringLiteral("op"), QStringLiteral("r")}, QDate(2026, 11, 4), Now);
    CheckinDrain(redis, sql, keys, QStringLiteral("w1")).drainAll();

    // Lose five rows of the 3rd (and their grants), as a lost message would.
    const QString day = today.toString(Qt::ISODate);
    sql.exec(QStringLiteral("DELETE FROM checkin_log WHERE day = ? AND uid IN (2, 4, 6, 8, 21)"), {day});
    sql.exec(QStringLiteral("DELETE FROM points_ledger WHERE ref IN ('checkin:2:2026-11-03', 'checkin:4:2026-11-03', "
                            "'checkin:6:2026-11-03', 'checkin:8:2026-11-03')"));

    Reconciler reconciler(redis, sql, keys, CheckinRules{});
    const ReconcileReport report = reconciler.reconcile(today, Now);
    QCOMPARE(report.redisCount, 21);
    QCOMPARE(report.dbCount, 16);
    QCOMPARE(report.missing, 5);
    QCOMPARE(report.backfilled, 5);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM checkin_log WHERE day = ?"), {day}), 21);
    // Day 2 unsigned, so the 3rd was day 1 of a streak: 10 points, restored once.
    QCOMPARE(scalar(sql, QStringLiteral("SELECT points FROM checkin_log WHERE uid = 4 AND day = ?"), {day}), 10);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM points_ledger WHERE uid = 4")), 2);
    QSqlQuery makeup = sql.exec(QStringLiteral("SELECT kind, points FROM checkin_log WHERE uid = 21 AND day = ?"), {day});
    QVERIFY(makeup.next());
    QCOMPARE(makeup.value(0).toString(), QStringLiteral("makeup"));
    QCOMPARE(makeup.value(1).toInt(), 0);

    const ReconcileReport again = reconciler.reconcile(today, Now);
    QCOMPARE(again.missing, 0);
    QCOMPARE(again.backfilled, 0);
    QCOMPARE(again.dbCount, 21);
}

LANTERN_TEST_SUITE(TestPersistence);

} // namespace tst_persistence

#include "tst_persistence.moc"
