// The block layout of check-in bits (issue 11): where a uid's month lives, dense and sparse;
// month statistics and reconcile streamed from the blocks, each figure compared with a reference
// count kept by the test while it checked users in (several blocks per shard, sparse uids, make-ups).
#include "checkin/checkindrain.h"
#include "checkin/checkinlayout.h"
#include "checkin/checkinservice.h"
#include "checkin/monthstats.h"
#include "checkin/reconciler.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QMap>
#include <QRandomGenerator>
#include <QSet>
#include <QTest>

#include <stdexcept>

namespace tst_checkinlayout {

using namespace lantern;

namespace {
constexpr qint64 Now = 1795000000000;
constexpr int Shards = 3;
const QDate Today(2026, 11, 20);

QByteArray hashTag(const QByteArray &key)
{
    return key.mid(key.indexOf('{'), key.indexOf('}') - key.indexOf('{') + 1);
}

/** What the test signed, kept beside Redis: the reference every figure is compared with. */
struct Reference {
    QMap<QDate, QSet<qint64>> signedOn;
    QMap<QDate, QSet<qint64>> makeupOn;
    QSet<qint64> users;

    void sign(qint64 uid, QDate day, bool makeup)
    {
        signedOn[day].insert(uid);
        if (makeup)
            makeupOn[day].insert(uid);
        users.insert(uid);
    }
    qint64 everyDay(QDate month, int lastDay) const
    {
        qint64 count = 0;
        for (const qint64 uid : users) {
            bool all = lastDay > 0;
            for (int day = 1; day <= lastDay && all; ++day)
                all = signedOn.value(QDate(month.year(), month.month(), day)).contains(uid);
            count += all;
        }
        return count;
    }
};

/** Dense uids over three blocks of each of the 3 shards, a few every-day users, sparse uids:
    days 1..20 of November at random, some of them make-ups. */
Reference populate(RedisClient &redis, const KeySchema &keys)
{
    // No QVERIFY here: a refusal throws, and the test fails with it.
    CheckinService service(redis, keys, CheckinRules{});
    QRandomGenerator random(11);
    QList<qint64> uids;
    const qint64 denseSpan = qint64(3) * CheckinLayout::BlockUsers * Shards;
    for (int i = 0; i < 150; ++i)
        uids << 1 + qint64(random.bounded(quint32(denseSpan)));
    for (qint64 uid = 1; uid <= 6; ++uid)
        uids << uid;  // every day below
    for (int i = 0; i < 30; ++i)
        uids << 1'000'000'000'000 + random.bounded(1'000'000);  // sparse: far above the dense bound
    Reference reference;
    QSet<qint64> seen;
    for (const qint64 uid : std::as_const(uids)) {
        if (seen.contains(uid))
            continue;
        seen.insert(uid);
        const bool everyDay = uid <= 6;
        QList<QDate> missed;
        for (int day = 1; day <= Today.day(); ++day) {
            const QDate date(2026, 11, day);
            if (everyDay || random.bounded(3) != 0) {
                service.checkin(uid, date, Today, Now);
                reference.sign(uid, date, false);
            } else if (date < Today) {
                missed << date;
            }
        }
        // Up to the quota of make-ups, on days missed.
        for (qsizetype i = 0; i < missed.size() && i < 3; i += 2) {
            if (service.makeup({uid, missed.at(i), QStringLiteral("op"), QStringLiteral("test")}, Today, Now).already)
                throw std::logic_error("a make-up of a missed day was reported as already signed");
            reference.sign(uid, missed.at(i), true);
        }
    }
    // An October user, for a past month.
    service.checkin(2, QDate(2026, 10, 31), Today, Now);
    reference.sign(2, QDate(2026, 10, 31), false);
    return reference;
}
} // namespace

class TestCheckinLayout : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void places_data();
    void places();
    void keysShareTheShardsTag();
    void snowflakeIdsSpreadOverTheSparseHashes();
    void monthStatsMatchReference();
    void reconcileStreamsEveryBlock_data();
    void reconcileStreamsEveryBlock();

private:
    RedisUrl m_redisUrl;
};

void TestCheckinLayout::initTestCase()
{
    m_redisUrl = test::redisUrl();
}

void TestCheckinLayout::places_data()
{
    QTest::addColumn<qint64>("uid");
    QTest::addColumn<bool>("dense");
    QTest::addColumn<qint64>("block");
    QTest::addColumn<int>("slot");
    QTest::newRow("uid 0: shard 0, block 0, slot 0") << qint64(0) << true << qint64(0) << 0;
    QTest::newRow("uid 7: shard 1, slot 2") << qint64(7) << true << qint64(0) << 2;
    QTest::newRow("last slot of block 0") << qint64(CheckinLayout::BlockUsers - 1) * Shards + 2 << true << qint64(0) << CheckinLayout::BlockUsers - 1;
    QTest::newRow("first slot of block 1") << qint64(CheckinLayout::BlockUsers) * Shards << true << qint64(1) << 0;
    QTest::newRow("last dense uid") << KeySchema::DefaultDenseUids - 1 << true << (KeySchema::DefaultDenseUids - 1) / Shards / CheckinLayout::BlockUsers
                                    << int((KeySchema::DefaultDenseUids - 1) / Shards % CheckinLayout::BlockUsers);
    QTest::newRow("the dense bound is sparse") << KeySchema::DefaultDenseUids << false << qint64(0) << 0;
    QTest::newRow("snowflake id is sparse") << qint64(7'140'000'000'000'000'000) << false << qint64(0) << 0;
}

void TestCheckinLayout::places()
{
    QFETCH(qint64, uid);
    QFETCH(bool, dense);
    QFETCH(qint64, block);
    QFETCH(int, slot);
    const KeySchema keys(QStringLiteral("lt:"), Shards);
    const CheckinLayout layout(keys);
    const UserPlace user = layout.place(uid);
    QCOMPARE(user.shard, int(uid % Shards));
    QCOMPARE(user.dense, dense);
    if (dense) {
        QCOMPARE(user.block, block);
        QCOMPARE(user.slot, slot);
        QCOMPARE(layout.denseUid(user.shard, user.block, user.slot), uid);
        QCOMPARE(CheckinLayout::placeArgument(user), QByteArray::number(block) + ':' + QByteArray::number(slot) + ':'
                                                             + QByteArray::number(CheckinLayout::BlockBytes));
    } else {
        QVERIFY(CheckinLayout::placeArgument(user).isEmpty());
        QCOMPARE(layout.makeupField(user), "m" + QByteArray::number(uid));
    }
}

void TestCheckinLayout::keysShareTheShardsTag()
{
    const KeySchema keys(QStringLiteral("lt:"), 16);
    const CheckinLayout layout(keys);
    const QDate month(2026, 11, 1);
    for (const qint64 uid : {qint64(1234567), qint64(1'000'000'000'123)}) {
        const UserPlace user = layout.place(uid);
        const QByteArray expected = "{ck:" + QByteArray::number(uid % 16) + "}";
        QCOMPARE(hashTag(layout.signKey(user, month)), expected);
        QCOMPARE(hashTag(layout.signKey(user, month.addMonths(-1))), expected);
        QCOMPARE(hashTag(layout.makeupKey(user, month)), expected);
        QCOMPARE(hashTag(keys.monthBlocks(user.shard, month)), expected);
        QCOMPARE(hashTag(keys.checkinQueue(user.shard)), expected);
    }
}

void TestCheckinLayout::snowflakeIdsSpreadOverTheSparseHashes()
{
    // Snowflake ids of one machine at sequence 0: 41-bit milliseconds, then 22 low bits that do
    // not change. Their buckets must still spread (each bucket is one hash of the shard).
    const KeySchema keys(QStringLiteral("lt:"), 16);
    const CheckinLayout layout(keys);
    QSet<int> buckets;
    for (qint64 ms = 1'700'000'000'000; ms < 1'700'000'004'096; ++ms) {
        const UserPlace user = layout.place(ms << 22 | (7 << 12));
        QVERIFY(!user.dense);
        QVERIFY(user.bucket >= 0 && user.bucket < CheckinLayout::SparseBuckets);
        buckets.insert(user.bucket);
    }
    QVERIFY2(buckets.size() > CheckinLayout::SparseBuckets * 9 / 10, qPrintable(QString::number(buckets.size())));
}

void TestCheckinLayout::monthStatsMatchReference()
{
    RedisClient redis(m_redisUrl);
    const KeySchema keys(test::uniquePrefix(), Shards);
    const Reference reference = populate(redis, keys);
    QVERIFY(reference.users.size() > 150);

    const MonthStats stats = MonthStatsReader(redis, keys).read(QDate(2026, 11, 7), Today);
    QCOMPARE(stats.month, QDate(2026, 11, 1));
    QCOMPARE(stats.days.size(), Today.day());
    qint64 makeups = 0;
    for (const DayStats &day : stats.days) {
        QCOMPARE(day.checkedIn, qint64(reference.signedOn.value(day.date).size()));
        QCOMPARE(day.makeups, qint64(reference.makeupOn.value(day.date).size()));
        makeups += day.makeups;
    }
    QVERIFY(makeups > 0);
    QSet<qint64> november;
    for (auto it = reference.signedOn.begin(); it != reference.signedOn.end(); ++it) {
        if (it.key().month() == 11)
            november.unite(it.value());
    }
    QCOMPARE(stats.activeUsers, qint64(november.size()));
    QCOMPARE(stats.everyDayUsers, reference.everyDay(QDate(2026, 11, 1), Today.day()));
    QVERIFY(stats.everyDayUsers >= 6);

    // A past month has all its days; a future month none.
    const MonthStats october = MonthStatsReader(redis, keys).read(QDate(2026, 10, 1), Today);
    QCOMPARE(october.days.size(), 31);
    QCOMPARE(october.days.back().checkedIn, 1);
    QCOMPARE(october.activeUsers, 1);
    QCOMPARE(october.everyDayUsers, 0);
    const MonthStats december = MonthStatsReader(redis, keys).read(QDate(2026, 12, 1), Today);
    QVERIFY(december.days.isEmpty());
    QCOMPARE(december.activeUsers, 0);
    QCOMPARE(december.everyDayUsers, 0);
}

void TestCheckinLayout::reconcileStreamsEveryBlock_data()
{
    QTest::addColumn<DbUrl>("url");
    for (const auto &[name, url] : test::sqlDialects())
        QTest::newRow(qPrintable(name)) << url;
}

void TestCheckinLayout::reconcileStreamsEveryBlock()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    RedisClient redis(m_redisUrl);
    SqlConnection sql(url);
    const KeySchema keys(test::uniquePrefix(), Shards);
    const Reference reference = populate(redis, keys);
    CheckinDrain(redis, sql, keys, QStringLiteral("w1")).drainAll();

    // Lose the rows of the 10th of one user in each block and shard, of two sparse users and of
    // a make-up.
    const QDate day(2026, 11, 10);
    const QSet<qint64> signedThatDay = reference.signedOn.value(day);
    const CheckinLayout layout(keys);
    QSet<qint64> lost;
    QSet<QByteArray> placesLost;
    int sparseLost = 0;
    for (const qint64 uid : signedThatDay) {
        const UserPlace user = layout.place(uid);
        const QByteArray where = layout.signKey(user, day);
        if ((user.dense && !placesLost.contains(where)) || (!user.dense && sparseLost < 2)) {
            placesLost.insert(where);
            sparseLost += !user.dense;
            lost.insert(uid);
        }
    }
    if (!reference.makeupOn.value(day).isEmpty())
        lost.insert(*reference.makeupOn.value(day).begin());
    QVERIFY(placesLost.size() >= 5);  // blocks of several shards, and the sparse hash
    for (const qint64 uid : std::as_const(lost))
        sql.exec(QStringLiteral("DELETE FROM checkin_log WHERE uid = ? AND day = ?"), {uid, day.toString(Qt::ISODate)});

    Reconciler reconciler(redis, sql, keys, CheckinRules{});
    const ReconcileReport report = reconciler.reconcile(day, Now);
    QCOMPARE(report.redisCount, qint64(signedThatDay.size()));
    QCOMPARE(report.dbCount, qint64(signedThatDay.size() - lost.size()));
    QCOMPARE(report.missing, qint64(lost.size()));
    QCOMPARE(report.backfilled, qint64(lost.size()));
    for (const qint64 uid : std::as_const(lost)) {
        QSqlQuery row = sql.exec(QStringLiteral("SELECT kind FROM checkin_log WHERE uid = ? AND day = ?"), {uid, day.toString(Qt::ISODate)});
        QVERIFY(row.next());
        QCOMPARE(row.value(0).toString(), reference.makeupOn.value(day).contains(uid) ? QStringLiteral("makeup") : QStringLiteral("normal"));
    }
    const ReconcileReport again = reconciler.reconcile(day, Now);
    QCOMPARE(again.missing, 0);
    QCOMPARE(again.dbCount, qint64(signedThatDay.size()));
}

LANTERN_TEST_SUITE(TestCheckinLayout);

} // namespace tst_checkinlayout

#include "tst_checkinlayout.moc"
