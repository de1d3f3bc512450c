// lanternd operations (DESIGN §4, §6): reconcile back-fills what SQL lost, queues shows backlog
// and workers, recover takes over the backup lists of dead workers (or of a named one) and
// work --once persists what was requeued. Real binary, private Redis, both SQL dialects.

#include "clitest.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QDateTime>
#include <QJsonArray>
#include <QSqlQuery>
#include <QTest>

namespace tst_cli_ops {

using namespace lantern::test::cli;
using lantern::SqlConnection;

namespace {

QStringList args(std::initializer_list<const char *> list)
{
    QStringList result;
    for (const char *item : list)
        result << QString::fromUtf8(item);
    return result;
}

QJsonObject reconcileReport(const char *date, int redisCount, int dbCount, int missing, int backfilled)
{
    return {{QStringLiteral("date"), QString::fromUtf8(date)},
            {QStringLiteral("redis_count"), redisCount},
            {QStringLiteral("db_count"), dbCount},
            {QStringLiteral("missing"), missing},
            {QStringLiteral("backfilled"), backfilled}};
}

/** A log entry as checkin.lua queues it (uid travels as a string). */
QByteArray entryJson(qint64 uid, const char *date, int points, qint64 atMs)
{
    return QStringLiteral(R"({"uid":"%1","date":"%2","kind":"normal","points":%3,"operator":"","reason":"","at":%4})")
            .arg(uid)
            .arg(QString::fromUtf8(date))
            .arg(points)
            .arg(atMs)
            .toUtf8();
}

/** The key names of models/redis/keyschema.h with the default 16 shards. */
QByteArray checkinKey(const QString &prefix, qint64 uid, const QByteArray &rest)
{
    return prefix.toUtf8() + "{ck:" + QByteArray::number(uid % 16) + "}:" + rest;
}

void addDialectRows(const char *what)
{
    QTest::addColumn<QString>("dialect");
    for (const QString &dialect : dialects())
        QTest::newRow(qPrintable(dialect + QStringLiteral(": ") + QLatin1String(what))) << dialect;
}

enum class Entry {
    Fresh,          // not in SQL yet
    AlreadyStored,  // its checkin_log row exists: the worker died after persisting, before acking
    Malformed,      // cannot be parsed
};

} // namespace

class TestCliOps final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanupTestCase() { dropFreshDatabases(); }

    void reconcileDeletedRows_data() { addDialectRows("2 of 4 rows deleted -> missing 2, backfilled 2, then 0"); }
    void reconcileDeletedRows();

    void reconcileLostMessages_data() { addDialectRows("never drained -> backfilled once, the late drain adds nothing"); }
    void reconcileLostMessages();

    void reconcileMakeup_data() { addDialectRows("deleted make-up row comes back as a make-up without points"); }
    void reconcileMakeup();

    void recover_data();
    void recover();

    void queuesShape_data() { addDialectRows("exact shape, backlog and oldest age"); }
    void queuesShape();
    void queuesPayouts_data() { addDialectRows("payout queue per campaign, worker backups, dead letters"); }
    void queuesPayouts();
};

void TestCliOps::reconcileDeletedRows()
{
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const Lanternd lanternd(redisUrlText(), sql.url, lantern::test::uniquePrefix(), QStringLiteral("2026-03-05"));
    LANTERND_VERIFY_OK(lanternd.run(args({"checkin", "--uid", "101", "--today", "2026-03-04"})));
    for (const char *uid : {"101", "102", "103", "117"})
        LANTERND_VERIFY_OK(lanternd.run(args({"checkin", "--uid", uid})));
    LANTERND_VERIFY_OK(lanternd.run(args({"work", "--once"})));
    const SqlSnapshot persisted = snapshotSql(sql.db);
    QCOMPARE(persisted, (SqlSnapshot{5, 5, 0, 10 + 20 + 10 + 10 + 10}));

    {
        SqlConnection connection(sql.db);
        connection.exec(QStringLiteral("DELETE FROM checkin_log WHERE day = ? AND uid IN (101, 102)"), {QStringLiteral("2026-03-05")});
        connection.exec(QStringLiteral("DELETE FROM points_ledger WHERE ref IN ('checkin:101:2026-03-05', 'checkin:102:2026-03-05')"));
    }
    QCOMPARE(snapshotSql(sql.db), (SqlSnapshot{3, 3, 0, 10 + 10 + 10}));

    LANTERND_COMPARE_JSON(lanternd.run(args({"reconcile", "--date", "2026-03-05"})), reconcileReport("2026-03-05", 4, 2, 2, 2));
    // Back-filled with the reward the streak earned (101 was on day 2 of a streak), audited once.
    QCOMPARE(snapshotSql(sql.db), (SqlSnapshot{5, 5, 1, persisted.pointsTotal}));
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT points FROM checkin_log WHERE uid = 101 AND day = ?"), {QStringLiteral("2026-03-05")}), 20);
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = 'checkin.reconcile' AND target = '2026-03-05'")), 1);

    LANTERND_COMPARE_JSON(lanternd.run(args({"reconcile", "--date", "2026-03-05"})), reconcileReport("2026-03-05", 4, 4, 0, 0));
    QCOMPARE(snapshotSql(sql.db), (SqlSnapshot{5, 5, 1, persisted.pointsTotal}));  // nothing to do is not audited

    // A day nobody signed: all zeros.
    LANTERND_COMPARE_JSON(lanternd.run(args({"reconcile", "--date", "2026-03-03"})), reconcileReport("2026-03-03", 0, 0, 0, 0));
}

void TestCliOps::reconcileLostMessages()
{
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const Lanternd lanternd(redisUrlText(), sql.url, lantern::test::uniquePrefix(), QStringLiteral("2026-03-05"));
    for (const char *uid : {"201", "202"})
        LANTERND_VERIFY_OK(lanternd.run(args({"checkin", "--uid", uid})));

    LANTERND_COMPARE_JSON(lanternd.run(args({"reconcile", "--date", "2026-03-05"})), reconcileReport("2026-03-05", 2, 0, 2, 2));
    QCOMPARE(snapshotSql(sql.db), (SqlSnapshot{2, 2, 1, 20}));

    // The queued entries arrive late: idempotent on (uid, day) and the ledger ref, no second reward.
    const Result work = lanternd.run(args({"work", "--once"}));
    LANTERND_VERIFY_OK(work);
    QCOMPARE(work.json().value(QStringLiteral("processed")).toInt(), 2);
    QCOMPARE(work.json().value(QStringLiteral("persisted")).toInt(), 0);
    QCOMPARE(snapshotSql(sql.db), (SqlSnapshot{2, 2, 1, 20}));

    LANTERND_COMPARE_JSON(lanternd.run(args({"reconcile", "--date", "2026-03-05"})), reconcileReport("2026-03-05", 2, 2, 0, 0));
}

void TestCliOps::reconcileMakeup()
{
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const Lanternd lanternd(redisUrlText(), sql.url, lantern::test::uniquePrefix(), QStringLiteral("2026-03-03"));
    LANTERND_VERIFY_OK(lanternd.run(args({"checkin", "--uid", "301", "--today", "2026-03-01"})));
    LANTERND_VERIFY_OK(lanternd.run(args({"checkin", "--uid", "301"})));
    LANTERND_VERIFY_OK(lanternd.run(args({"makeup", "--uid", "301", "--date", "2026-03-02", "--reason", "outage", "--operator", "carol"})));
    LANTERND_VERIFY_OK(lanternd.run(args({"work", "--once"})));
    QCOMPARE(snapshotSql(sql.db), (SqlSnapshot{3, 2, 1, 20}));
    SqlConnection connection(sql.db);
    connection.exec(QStringLiteral("DELETE FROM checkin_log WHERE uid = 301 AND day = ?"), {QStringLiteral("2026-03-02")});

    LANTERND_COMPARE_JSON(lanternd.run(args({"reconcile", "--date", "2026-03-02"})), reconcileReport("2026-03-02", 1, 0, 1, 1));
    QSqlQuery row = connection.exec(QStringLiteral("SELECT kind, points FROM checkin_log WHERE uid = 301 AND day = ?"), {QStringLiteral("2026-03-02")});
    QVERIFY(row.next());
    QCOMPARE(row.value(0).toString(), QStringLiteral("makeup"));
    QCOMPARE(row.value(1).toInt(), 0);
    QCOMPARE(snapshotSql(sql.db), (SqlSnapshot{3, 2, 2, 20}));
}

void TestCliOps::recover_data()
{
    QTest::addColumn<QString>("dialect");
    QTest::addColumn<Entry>("entry");
    QTest::addColumn<bool>("alive");        // the worker's heartbeat key is present
    QTest::addColumn<bool>("named");        // recover --worker <it>
    QTest::addColumn<QList<int>>("report");  // reclaimed, requeued, completed, dead_lettered
    for (const QString &dialect : dialects()) {
        const auto row = [&dialect](const char *name) -> QTestData & {
            return QTest::newRow(qPrintable(dialect + QStringLiteral(": ") + QLatin1String(name)));
        };
        row("dead worker: entry requeued, work --once persists it") << dialect << Entry::Fresh << false << false << QList<int>{1, 1, 0, 0};
        row("dead worker: entry already in SQL is completed, not requeued")
                << dialect << Entry::AlreadyStored << false << false << QList<int>{1, 0, 1, 0};
        row("dead worker: malformed entry goes to the dead-letter list") << dialect << Entry::Malformed << false << false << QList<int>{1, 0, 0, 1};
        row("live worker is left alone") << dialect << Entry::Fresh << true << false << QList<int>{0, 0, 0, 0};
        row("live worker named with --worker is reclaimed") << dialect << Entry::Fresh << true << true << QList<int>{1, 1, 0, 0};
    }
}

void TestCliOps::recover()
{
    QFETCH(QString, dialect);
    QFETCH(Entry, entry);
    QFETCH(bool, alive);
    QFETCH(bool, named);
    QFETCH(QList<int>, report);
    const SqlTarget sql = freshSql(dialect);
    const QString prefix = lantern::test::uniquePrefix();
    const Lanternd lanternd(redisUrlText(), sql.url, prefix, QStringLiteral("2026-03-05"));
    lantern::RedisClient redis(lantern::test::redisUrl());
    const qint64 uid = 77;
    const QString worker = alive ? QStringLiteral("w-live") : QStringLiteral("w-dead");
    const QByteArray backup = checkinKey(prefix, uid, "backup:" + worker.toUtf8());
    const QByteArray queue = checkinKey(prefix, uid, "queue");
    const QByteArray workers = prefix.toUtf8() + "workers";
    const QByteArray heartbeat = prefix.toUtf8() + "worker:" + worker.toUtf8();

    LANTERND_VERIFY_OK(lanternd.run(args({"migrate"})));
    const qint64 atMs = QDateTime::currentMSecsSinceEpoch() - 5000;
    QByteArray raw = entryJson(uid, "2026-03-05", 10, atMs);
    if (entry == Entry::AlreadyStored) {
        // Persisted through the normal path; the worker then died before acknowledging it.
        LANTERND_VERIFY_OK(lanternd.run(args({"checkin", "--uid", "77"})));
        LANTERND_VERIFY_OK(lanternd.run(args({"work", "--once"})));
        QCOMPARE(snapshotSql(sql.db).checkins, 1);
    } else if (entry == Entry::Malformed) {
        raw = "{\"uid\":\"77\",\"date\":\"not a date\"";
    }
    // What a worker leaves behind when killed mid-batch: its id in the set, the entry in its list.
    redis.command({QByteArrayLiteral("LPUSH"), backup, raw});
    redis.command({QByteArrayLiteral("SADD"), workers, worker.toUtf8()});
    if (alive)
        redis.command({QByteArrayLiteral("SET"), heartbeat, QByteArray::number(QDateTime::currentMSecsSinceEpoch()), QByteArrayLiteral("EX"),
                       QByteArrayLiteral("60")});
    const SqlSnapshot before = snapshotSql(sql.db);

    const Result listed = lanternd.run(args({"queues"}));
    LANTERND_VERIFY_OK(listed);
    const QJsonArray listedWorkers = listed.json().value(QStringLiteral("workers")).toArray();
    QCOMPARE(listedWorkers.size(), 1);
    QCOMPARE(listedWorkers.at(0)[QStringLiteral("id")].toString(), worker);
    QCOMPARE(listedWorkers.at(0)[QStringLiteral("alive")].toBool(!alive), alive);
    QCOMPARE(listedWorkers.at(0)[QStringLiteral("backup_depth")].toInteger(), 1);
    QCOMPARE(listedWorkers.at(0)[QStringLiteral("last_beat_s")].isNull(), !alive);

    QStringList command = args({"recover", "--operator", "oncall"});
    if (named)
        command << QStringLiteral("--worker") << worker;
    const Result recovered = lanternd.run(command);
    LANTERND_VERIFY_OK(recovered);
    const QJsonObject json = recovered.json();
    QCOMPARE(sortedKeys(json), args({"completed", "dead_lettered", "reclaimed", "requeued", "workers"}));
    QCOMPARE((QList<int>{json.value(QStringLiteral("reclaimed")).toInt(-1), json.value(QStringLiteral("requeued")).toInt(-1),
                         json.value(QStringLiteral("completed")).toInt(-1), json.value(QStringLiteral("dead_lettered")).toInt(-1)}),
             report);
    const bool reclaimed = report.at(0) == 1;
    QCOMPARE(json.value(QStringLiteral("workers")).toArray(), reclaimed ? QJsonArray{worker} : QJsonArray{});

    // Redis after recovery: the list is gone (or untouched), the entry is back in line or set aside.
    QCOMPARE(redis.command({QByteArrayLiteral("LLEN"), backup}).toInteger(), reclaimed ? 0 : 1);
    QCOMPARE(redis.command({QByteArrayLiteral("LLEN"), queue}).toInteger(), report.at(1));
    QCOMPARE(redis.command({QByteArrayLiteral("LLEN"), checkinKey(prefix, uid, "dead")}).toInteger(), report.at(3));
    QCOMPARE(redis.command({QByteArrayLiteral("SISMEMBER"), workers, worker.toUtf8()}).toInteger(), reclaimed ? 0 : 1);
    if (reclaimed || named) {
        QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = 'queue.recover' AND actor = 'oncall'")), 1);
    } else {
        QCOMPARE(snapshotSql(sql.db), before);  // nothing to do: nothing written, nothing audited
    }

    const Result shown = lanternd.run(args({"queues"}));
    LANTERND_VERIFY_OK(shown);
    QCOMPARE(shown.json().value(QStringLiteral("dead_letter")).toInteger(), report.at(3));
    QCOMPARE(shown.json().value(QStringLiteral("queues")).toArray().at(0)[QStringLiteral("depth")].toInteger(), report.at(1));

    // A fresh worker drains what was requeued into SQL.
    const Result work = lanternd.run(args({"work", "--once", "--id", "w-next"}));
    LANTERND_VERIFY_OK(work);
    QCOMPARE(work.json().value(QStringLiteral("persisted")).toInt(), report.at(1));
    const bool inSql = entry == Entry::AlreadyStored || report.at(1) == 1;
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM checkin_log WHERE uid = 77 AND day = ?"), {QStringLiteral("2026-03-05")}),
             inSql ? 1 : 0);
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COALESCE(SUM(delta), 0) FROM points_ledger WHERE uid = 77")), inSql ? 10 : 0);
}

void TestCliOps::queuesShape()
{
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const QString prefix = lantern::test::uniquePrefix();
    const Lanternd lanternd(redisUrlText(), sql.url, prefix, QStringLiteral("2026-03-05"));

    const Result empty = lanternd.run(args({"queues"}));
    LANTERND_VERIFY_OK(empty);
    QCOMPARE(sortedKeys(empty.json()), args({"dead_letter", "queues", "workers"}));
    const QJsonObject idle = empty.json().value(QStringLiteral("queues")).toArray().at(0).toObject();
    QCOMPARE(sortedKeys(idle), args({"depth", "name", "oldest_age_s"}));
    QCOMPARE(idle.value(QStringLiteral("name")).toString(), QStringLiteral("checkin"));
    QCOMPARE(idle.value(QStringLiteral("depth")).toInteger(-1), 0);
    QCOMPARE(idle.value(QStringLiteral("oldest_age_s")).toDouble(-1), 0.0);
    QCOMPARE(empty.json().value(QStringLiteral("workers")).toArray(), QJsonArray());
    QCOMPARE(empty.json().value(QStringLiteral("dead_letter")).toInteger(-1), 0);

    // Three users on three shards: the depth sums every shard, the oldest age is the first one's.
    const qint64 firstStartMs = QDateTime::currentMSecsSinceEpoch();
    LANTERND_VERIFY_OK(lanternd.run(args({"checkin", "--uid", "1"})));
    const qint64 firstDoneMs = QDateTime::currentMSecsSinceEpoch();
    for (const char *uid : {"2", "3"})
        LANTERND_VERIFY_OK(lanternd.run(args({"checkin", "--uid", uid})));
    lantern::RedisClient redis(lantern::test::redisUrl());
    const qint64 beatMs = QDateTime::currentMSecsSinceEpoch();
    redis.command({QByteArrayLiteral("SET"), prefix.toUtf8() + "worker:w-busy", QByteArray::number(beatMs), QByteArrayLiteral("EX"),
                   QByteArrayLiteral("60")});
    redis.command({QByteArrayLiteral("SADD"), prefix.toUtf8() + "workers", QByteArrayLiteral("w-busy")});
    const qint64 queriedAtMs = QDateTime::currentMSecsSinceEpoch();
    const Result busy = lanternd.run(args({"queues"}));
    const qint64 answeredAtMs = QDateTime::currentMSecsSinceEpoch();
    LANTERND_VERIFY_OK(busy);
    const QJsonObject backlog = busy.json().value(QStringLiteral("queues")).toArray().at(0).toObject();
    QCOMPARE(backlog.value(QStringLiteral("depth")).toInteger(-1), 3);
    const double age = backlog.value(QStringLiteral("oldest_age_s")).toDouble(-1);
    QVERIFY2(age >= (queriedAtMs - firstDoneMs) / 1000.0 - 0.001 && age <= (answeredAtMs - firstStartMs) / 1000.0 + 0.001,
             qPrintable(QString::number(age)));
    const QJsonArray workers = busy.json().value(QStringLiteral("workers")).toArray();
    QCOMPARE(workers.size(), 1);
    QCOMPARE(sortedKeys(workers.at(0).toObject()), args({"alive", "backup_depth", "id", "last_beat_s"}));
    QCOMPARE(workers.at(0)[QStringLiteral("alive")].toBool(), true);
    QCOMPARE(workers.at(0)[QStringLiteral("backup_depth")].toInteger(-1), 0);
    const double beat = workers.at(0)[QStringLiteral("last_beat_s")].toDouble(-1);
    QVERIFY2(beat >= (queriedAtMs - beatMs) / 1000.0 - 0.001 && beat <= (answeredAtMs - beatMs) / 1000.0 + 0.001,
             qPrintable(QString::number(beat)));

    // work --once drains it all and deregisters itself.
    LANTERND_VERIFY_OK(lanternd.run(args({"work", "--once", "--id", "w-drain"})));
    const Result drained = lanternd.run(args({"queues"}));
    QCOMPARE(drained.json().value(QStringLiteral("queues")).toArray().at(0)[QStringLiteral("depth")].toInteger(-1), 0);
    QCOMPARE(drained.json().value(QStringLiteral("workers")).toArray().size(), 1);  // only w-busy
    QCOMPARE(snapshotSql(sql.db).checkins, 3);
}

void TestCliOps::queuesPayouts()
{
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const QString prefix = lantern::test::uniquePrefix();
    const Lanternd lanternd(redisUrlText(), sql.url, prefix, QStringLiteral("2026-03-05"));
    LANTERND_LAUNCH_CAMPAIGN(id, lanternd, args({"--name", "queues", "--total-cents", "1000", "--count", "10"}));

    LANTERND_VERIFY_OK(lanternd.run(args({"grab", "--uid", "1", "--campaign"}) << id));
    const qint64 secondStartMs = QDateTime::currentMSecsSinceEpoch();
    LANTERND_VERIFY_OK(lanternd.run(args({"grab", "--uid", "2", "--campaign"}) << id));
    const qint64 secondDoneMs = QDateTime::currentMSecsSinceEpoch();
    for (const char *uid : {"3", "4"})
        LANTERND_VERIFY_OK(lanternd.run(args({"grab", "--uid", uid, "--campaign"}) << id));

    // A dead worker holds the oldest task in its backup list; one malformed task was set aside.
    lantern::RedisClient redis(lantern::test::redisUrl());
    const QByteArray tag = prefix.toUtf8() + "{cp:" + id.toUtf8() + "}:";
    redis.command({QByteArrayLiteral("SADD"), prefix.toUtf8() + "workers", QByteArrayLiteral("w-dead")});
    const QByteArray moved = redis.command({QByteArrayLiteral("LMOVE"), tag + "tasks", tag + "backup:w-dead", QByteArrayLiteral("RIGHT"),
                                            QByteArrayLiteral("LEFT")}).toBytes();
    QVERIFY(moved.contains("\"uid\":1") || moved.contains("\"uid\":\"1\""));
    redis.command({QByteArrayLiteral("LPUSH"), tag + "dead", QByteArrayLiteral("not json")});

    const qint64 queriedAtMs = QDateTime::currentMSecsSinceEpoch();
    const Result shown = lanternd.run(args({"queues"}));
    const qint64 answeredAtMs = QDateTime::currentMSecsSinceEpoch();
    LANTERND_VERIFY_OK(shown);
    const QJsonArray queues = shown.json().value(QStringLiteral("queues")).toArray();
    QCOMPARE(queues.size(), 2);
    QCOMPARE(queues.at(0)[QStringLiteral("name")].toString(), QStringLiteral("checkin"));
    const QJsonObject payouts = queues.at(1).toObject();
    QCOMPARE(sortedKeys(payouts), args({"depth", "name", "oldest_age_s"}));
    QCOMPARE(payouts.value(QStringLiteral("name")).toString(), QStringLiteral("payout:") + id);
    QCOMPARE(payouts.value(QStringLiteral("depth")).toInteger(-1), 3);
    // The oldest still queued is user 2's (user 1's went to the dead worker).
    const double age = payouts.value(QStringLiteral("oldest_age_s")).toDouble(-1);
    QVERIFY2(age >= (queriedAtMs - secondDoneMs) / 1000.0 - 0.001 && age <= (answeredAtMs - secondStartMs) / 1000.0 + 0.001,
             qPrintable(QString::number(age)));
    const QJsonArray workers = shown.json().value(QStringLiteral("workers")).toArray();
    QCOMPARE(workers.size(), 1);
    QCOMPARE(workers.at(0)[QStringLiteral("id")].toString(), QStringLiteral("w-dead"));
    QCOMPARE(workers.at(0)[QStringLiteral("alive")].toBool(true), false);
    QVERIFY(workers.at(0)[QStringLiteral("last_beat_s")].isNull());
    QCOMPARE(workers.at(0)[QStringLiteral("backup_depth")].toInteger(-1), 1);
    QCOMPARE(shown.json().value(QStringLiteral("dead_letter")).toInteger(-1), 1);

    // Recovery puts the dead worker's task back; a drain empties the queue and persists all four.
    LANTERND_VERIFY_OK(lanternd.run(args({"recover"})));
    LANTERND_VERIFY_OK(lanternd.run(args({"work", "--once", "--id", "w-drain"})));
    const Result drained = lanternd.run(args({"queues"}));
    LANTERND_VERIFY_OK(drained);
    QCOMPARE(drained.json().value(QStringLiteral("queues")).toArray().at(1)[QStringLiteral("depth")].toInteger(-1), 0);
    QCOMPARE(drained.json().value(QStringLiteral("queues")).toArray().at(1)[QStringLiteral("oldest_age_s")].toDouble(-1), 0.0);
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM grab WHERE campaign_id = ?"), {id.toLongLong()}), 4);
}

LANTERN_TEST_SUITE(TestCliOps);

} // namespace tst_cli_ops

#include "tst_cli_ops.moc"
