// PayoutLedger, the drain's SQL side, on both dialects: a batch of new grabs is written in one
// statement without reading anything back, and everything else takes the path that reads first:
// a re-delivered batch writes nothing twice and learns where its payouts stand, a taken envelope
// or a second envelope for a user is refused, a forged grab (an envelope SQL has not, another
// amount, a draft campaign) is refused and never paid; the new rows of each write are counted
// exactly, replays left out. On MySQL the drain records finished payouts on a second connection
// while the next grabs are written.
#include "envelope/campaignservice.h"
#include "envelope/envelopedrain.h"
#include "envelope/grabservice.h"
#include "envelope/ledgertally.h"
#include "envelope/payoutledger.h"
#include "envelope/payouttask.h"
#include "redis/keyschema.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QDeadlineTimer>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <exception>
#include <future>
#include <thread>

namespace tst_payoutledger {

using namespace lantern;

namespace {
constexpr qint64 Now = 1795000000000;

/** A campaign of 10 envelopes launched (SQL holds them), and a draft one of 5. */
struct Fixture {
    explicit Fixture(const DbUrl &url) : redis(test::redisUrl()), sql(url), keys(test::uniquePrefix())
    {
        CampaignService service(redis, sql, keys);
        CampaignDraft draft;
        draft.name = QStringLiteral("ledger");
        draft.totalCents = 1000;
        draft.count = 10;
        draft.seed = 3;
        id = service.create(draft, Now).id;
        service.launch(id);
        draft.count = 5;
        draftId = service.create(draft, Now).id;
        QSqlQuery rows = sql.exec(QStringLiteral("SELECT seq, amount_cents FROM envelope WHERE campaign_id = ?"), {id});
        while (rows.next())
            amounts.insert(rows.value(0).toLongLong(), rows.value(1).toLongLong());
    }
    PayoutTask task(qint64 seq, qint64 uid) const { return {id, seq, uid, amounts.value(seq), Now + seq}; }
    qint64 scalar(const QString &query, const QVariantList &values)
    {
        QSqlQuery result = sql.exec(query, values);
        return result.next() ? result.value(0).toLongLong() : -1;
    }
    qint64 grabRows() { return scalar(QStringLiteral("SELECT COUNT(*) FROM grab WHERE campaign_id IN (?, ?)"), {id, draftId}); }
    QString refusal(qint64 seq, qint64 uid)
    {
        QSqlQuery row = sql.exec(QStringLiteral("SELECT reason FROM grab_refused WHERE campaign_id = ? AND seq = ? AND uid = ?"), {id, seq, uid});
        return row.next() ? row.value(0).toString() : QString();
    }

    /** Users 1-10 grab the launched campaign empty. */
    bool grabbedByTen()
    {
        for (qint64 uid = 1; uid <= 10; ++uid) {
            if (GrabService(redis, keys).grab(id, uid, Now).status != QLatin1String("ok"))
                return false;
        }
        return true;
    }

    RedisClient redis;
    SqlConnection sql;
    KeySchema keys;
    qint64 id = 0;
    qint64 draftId = 0;
    QHash<qint64, qint64> amounts;  // seq -> cents of the launched campaign
};

/** Worker w1's drain of a fixture's queue, 4 tasks a batch, paid by the simulated provider at once. */
struct Drain {
    explicit Drain(Fixture &f)
        : gateway(f.redis, f.keys.prefix(), SimulationKnobs{}, 0), drain(f.redis, f.sql, f.keys, QStringLiteral("w1"), gateway, options())
    {
    }
    EnvelopeDrainOptions options() const
    {
        EnvelopeDrainOptions options;
        options.batchSize = 4;
        options.errorLogPath = errors.filePath(QStringLiteral("errors.log"));
        return options;
    }

    const QTemporaryDir errors;
    SimulatedPayoutGateway gateway;
    EnvelopeDrain drain;
};

const AcceptedGrab *acceptedOf(const LedgerWrite &written, qint64 seq, qint64 uid)
{
    for (const AcceptedGrab &grab : written.accepted) {
        if (grab.task.seq == seq && grab.task.uid == uid)
            return &grab;
    }
    return nullptr;
}

const GrabRefusal *refusalOf(const LedgerWrite &written, qint64 seq, qint64 uid)
{
    for (const GrabRefusal &refusal : written.refusals) {
        if (refusal.task.seq == seq && refusal.task.uid == uid)
            return &refusal;
    }
    return nullptr;
}
} // namespace

class TestPayoutLedger : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void taskReadsWhatGrabWrites_data();
    void taskReadsWhatGrabWrites();
    void dialects_data();
    void newBatchGoesInWhole_data() { dialects_data(); }
    void newBatchGoesInWhole();
    void redeliveredBatchWritesNothingTwice_data() { dialects_data(); }
    void redeliveredBatchWritesNothingTwice();
    void replaysAmongNewGrabsAreNotCounted_data() { dialects_data(); }
    void replaysAmongNewGrabsAreNotCounted();
    void takenEnvelopeAndSecondEnvelopeAreRefused_data() { dialects_data(); }
    void takenEnvelopeAndSecondEnvelopeAreRefused();
    void forgedGrabsAreRefused_data() { dialects_data(); }
    void forgedGrabsAreRefused();
    void firstOfTwoGrabsOfAnEnvelopeInABatchWins_data() { dialects_data(); }
    void firstOfTwoGrabsOfAnEnvelopeInABatchWins();
    void payoutRowsAreUpserted_data() { dialects_data(); }
    void payoutRowsAreUpserted();
    void drainClaimsTheNextBatchWhileWriting_data() { dialects_data(); }
    void drainClaimsTheNextBatchWhileWriting();
    void drainRecordsPayoutsWhileGrabsWait();
};

void TestPayoutLedger::taskReadsWhatGrabWrites_data()
{
    // The shape grab.lua writes is read without a JSON document; any other text goes through one,
    // with the same verdict as before.
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<qint64>("uid");
    QTest::addColumn<qint64>("at");
    QTest::newRow("grab.lua's shape") << QByteArray(R"({"seq":"3","uid":"1000569232342","campaign":"2","amount":"129","at":1795749151161})") << true
                                      << qint64(1000569232342) << qint64(1795749151161);
    QTest::newRow("fields in another order") << QByteArray(R"({"at":5,"amount":"1","campaign":"2","uid":"7","seq":"3"})") << true << qint64(7) << qint64(5);
    QTest::newRow("spaces: read by the document") << QByteArray(R"({ "seq": "3", "uid": "7", "campaign": "2", "amount": "1", "at": 5 })") << true
                                                  << qint64(7) << qint64(5);
    QTest::newRow("escaped key: read by the document") << QByteArray(R"({"seq":"3","uid":"7","campaign":"2","amount":"1","at":5})") << true
                                                       << qint64(7) << qint64(5);
    QTest::newRow("time as a float: read by the document") << QByteArray(R"({"seq":"3","uid":"7","campaign":"2","amount":"1","at":5.0e3})") << true
                                                           << qint64(7) << qint64(5000);
    QTest::newRow("an unknown field: read by the document") << QByteArray(R"({"seq":"3","uid":"7","campaign":"2","amount":"1","at":5,"x":1})")
                                                            << true << qint64(7) << qint64(5);
    QTest::newRow("uid as a number") << QByteArray(R"({"seq":"3","uid":7,"campaign":"2","amount":"1","at":5})") << false << qint64(0) << qint64(0);
    QTest::newRow("negative amount") << QByteArray(R"({"seq":"3","uid":"7","campaign":"2","amount":"-1","at":5})") << false << qint64(0) << qint64(0);
    QTest::newRow("zero seq") << QByteArray(R"({"seq":"0","uid":"7","campaign":"2","amount":"1","at":5})") << false << qint64(0) << qint64(0);
    QTest::newRow("uid beyond int64") << QByteArray(R"({"seq":"3","uid":"99999999999999999999","campaign":"2","amount":"1","at":5})") << false
                                      << qint64(0) << qint64(0);
    QTest::newRow("time with a leading zero (not JSON)") << QByteArray(R"({"seq":"3","uid":"7","campaign":"2","amount":"1","at":05})") << false
                                                         << qint64(0) << qint64(0);
    QTest::newRow("a field missing") << QByteArray(R"({"seq":"3","uid":"7","campaign":"2","at":5})") << false << qint64(0) << qint64(0);
    QTest::newRow("a field twice") << QByteArray(R"({"seq":"3","seq":"4","uid":"7","campaign":"2","amount":"1","at":5})") << true << qint64(7)
                                   << qint64(5);
    QTest::newRow("cut short") << QByteArray(R"({"seq":"3","uid":"7","campaign":"2","amount":"1","at":5)") << false << qint64(0) << qint64(0);
    QTest::newRow("trailing bytes") << QByteArray(R"({"seq":"3","uid":"7","campaign":"2","amount":"1","at":5}x)") << false << qint64(0) << qint64(0);
}

void TestPayoutLedger::taskReadsWhatGrabWrites()
{
    QFETCH(QByteArray, json);
    QFETCH(bool, valid);
    const std::optional<PayoutTask> task = PayoutTask::fromJson(json);
    QCOMPARE(task.has_value(), valid);
    if (valid) {
        QFETCH(qint64, uid);
        QFETCH(qint64, at);
        QCOMPARE(task->uid, uid);
        QCOMPARE(task->atMs, at);
        QCOMPARE(task->campaignId, 2);
    }
}

void TestPayoutLedger::dialects_data()
{
    QTest::addColumn<DbUrl>("url");
    for (const auto &[name, url] : test::sqlDialects())
        QTest::newRow(qPrintable(name)) << url;
}

void TestPayoutLedger::newBatchGoesInWhole()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(url);
    QList<PayoutTask> tasks;
    qint64 cents = 0;
    for (qint64 seq = 1; seq <= 6; ++seq) {
        tasks << f.task(seq, 100 + seq);
        cents += f.amounts.value(seq);
    }
    const LedgerWrite written = PayoutLedger(f.sql).write({}, tasks);
    QCOMPARE(written.persisted(), 6);
    QCOMPARE(written.accepted.size(), 6);
    QVERIFY(written.refusals.isEmpty());
    QCOMPARE(written.persistedByCampaign.value(f.id).rows, 6);
    QCOMPARE(written.persistedByCampaign.value(f.id).cents, cents);
    for (const AcceptedGrab &grab : written.accepted) {
        QVERIFY(!grab.paid);
        QCOMPARE(grab.attemptsSoFar, 0);
    }
    QCOMPARE(f.grabRows(), 6);
    QCOMPARE(f.scalar(QStringLiteral("SELECT COALESCE(SUM(amount_cents), 0) FROM grab WHERE campaign_id = ?"), {f.id}), cents);
}

void TestPayoutLedger::redeliveredBatchWritesNothingTwice()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(url);
    const QList<PayoutTask> tasks{f.task(1, 11), f.task(2, 12), f.task(3, 13)};
    PayoutLedger(f.sql).write({}, tasks);
    // Task 1 was paid (2 calls), task 2 is to be retried (1 call), task 3 not called yet; then the
    // whole batch comes again (a crash before its acknowledgement).
    PayoutLedger(f.sql).write({{tasks[0], QStringLiteral("paid"), QStringLiteral("ref-1"), 2}, {tasks[1], QStringLiteral("pending"), QString(), 1}},
                              {});
    const LedgerWrite again = PayoutLedger(f.sql).write({}, tasks);
    QCOMPARE(again.persisted(), 0);
    QVERIFY(again.persistedByCampaign.isEmpty());
    QVERIFY(again.refusals.isEmpty());
    QCOMPARE(again.refusedRows, 0);
    QCOMPARE(again.accepted.size(), 3);
    QVERIFY(acceptedOf(again, 1, 11)->paid);
    QCOMPARE(acceptedOf(again, 1, 11)->attemptsSoFar, 2);
    QVERIFY(!acceptedOf(again, 2, 12)->paid);
    QCOMPARE(acceptedOf(again, 2, 12)->attemptsSoFar, 1);
    QVERIFY(!acceptedOf(again, 3, 13)->paid);
    QCOMPARE(acceptedOf(again, 3, 13)->attemptsSoFar, 0);
    QCOMPARE(f.grabRows(), 3);
    QCOMPARE(f.scalar(QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ?"), {f.id}), 2);
    QCOMPARE(f.scalar(QStringLiteral("SELECT COUNT(*) FROM grab_refused WHERE campaign_id = ?"), {f.id}), 0);
}

void TestPayoutLedger::replaysAmongNewGrabsAreNotCounted()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(url);
    PayoutLedger(f.sql).write({}, {f.task(1, 11), f.task(2, 12)});
    const LedgerWrite written = PayoutLedger(f.sql).write({}, {f.task(1, 11), f.task(3, 13), f.task(2, 12), f.task(4, 14)});
    QCOMPARE(written.persisted(), 2);
    QCOMPARE(written.persistedByCampaign.value(f.id).rows, 2);
    QCOMPARE(written.persistedByCampaign.value(f.id).cents, f.amounts.value(3) + f.amounts.value(4));
    QCOMPARE(written.accepted.size(), 4);
    QCOMPARE(f.grabRows(), 4);
}

void TestPayoutLedger::takenEnvelopeAndSecondEnvelopeAreRefused()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(url);
    PayoutLedger(f.sql).write({}, {f.task(1, 7)});
    // Redis forgot: envelope 1 again, to user 8; user 7 again, with envelope 2; and a new grab.
    const LedgerWrite written = PayoutLedger(f.sql).write({}, {f.task(1, 8), f.task(2, 7), f.task(3, 9)});
    QCOMPARE(written.persisted(), 1);
    QCOMPARE(written.persistedByCampaign.value(f.id).cents, f.amounts.value(3));
    QCOMPARE(written.accepted.size(), 1);
    QVERIFY(acceptedOf(written, 3, 9));
    QCOMPARE(written.refusals.size(), 2);
    QCOMPARE(written.refusedRows, 2);
    QCOMPARE(refusalOf(written, 1, 8)->holder, 7);
    QCOMPARE(refusalOf(written, 2, 7)->held, QByteArray::number(1) + ':' + QByteArray::number(f.amounts.value(1)));
    QCOMPARE(f.refusal(1, 8), QStringLiteral("taken"));
    QCOMPARE(f.refusal(2, 7), QStringLiteral("user_holds"));
    QCOMPARE(f.scalar(QStringLiteral("SELECT uid FROM grab WHERE campaign_id = ? AND seq = 1"), {f.id}), 7);
    QCOMPARE(f.grabRows(), 2);
}

void TestPayoutLedger::forgedGrabsAreRefused()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(url);
    const PayoutTask otherAmount{f.id, 4, 41, f.amounts.value(4) + 1, Now};
    const PayoutTask noSuchEnvelope{f.id, 11, 42, 50, Now};
    const PayoutTask ofADraft{f.draftId, 1, 43, 50, Now};
    const LedgerWrite written = PayoutLedger(f.sql).write({}, {f.task(5, 40), otherAmount, noSuchEnvelope, ofADraft});
    QCOMPARE(written.persisted(), 1);
    QCOMPARE(written.accepted.size(), 1);
    QVERIFY(acceptedOf(written, 5, 40));
    QCOMPARE(written.refusals.size(), 3);
    for (const GrabRefusal &refusal : written.refusals)
        QVERIFY2(refusal.notLaunched, qPrintable(QString::number(refusal.task.uid)));
    QCOMPARE(f.grabRows(), 1);
    QCOMPARE(f.scalar(QStringLiteral("SELECT COUNT(*) FROM grab_refused WHERE campaign_id IN (?, ?) AND reason = 'not_launched'"), {f.id, f.draftId}), 3);
    // The envelope itself is still free for a grab with its own amount.
    QCOMPARE(PayoutLedger(f.sql).write({}, {f.task(4, 41)}).persisted(), 1);
}

void TestPayoutLedger::firstOfTwoGrabsOfAnEnvelopeInABatchWins()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(url);
    // Envelope 1 twice (users 7 then 8), and the same task for envelope 2 twice (a duplicate entry).
    const LedgerWrite written = PayoutLedger(f.sql).write({}, {f.task(1, 7), f.task(1, 8), f.task(2, 9), f.task(2, 9)});
    QCOMPARE(written.persisted(), 2);
    QCOMPARE(written.persistedByCampaign.value(f.id).cents, f.amounts.value(1) + f.amounts.value(2));
    QCOMPARE(written.refusals.size(), 1);
    QCOMPARE(refusalOf(written, 1, 8)->holder, 7);
    QCOMPARE(written.accepted.size(), 3);  // the duplicate is accepted twice: its payout has one key
    QCOMPARE(f.scalar(QStringLiteral("SELECT uid FROM grab WHERE campaign_id = ? AND seq = 1"), {f.id}), 7);
    QCOMPARE(f.grabRows(), 2);
}

void TestPayoutLedger::payoutRowsAreUpserted()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(url);
    const PayoutTask task = f.task(1, 7);
    PayoutLedger(f.sql).write({}, {task});
    const auto row = [&f, &task] {
        QSqlQuery query = f.sql.exec(QStringLiteral("SELECT status, provider_ref, attempts, uid, amount_cents FROM payout WHERE idempotency_key = ?"),
                                     {task.idempotencyKey()});
        return query.next() ? QStringList{query.value(0).toString(), query.value(1).isNull() ? QStringLiteral("NULL") : query.value(1).toString(),
                                          query.value(2).toString(), query.value(3).toString(), query.value(4).toString()}
                            : QStringList();
    };
    const QString uid = QString::number(task.uid);
    const QString amount = QString::number(task.amountCents);
    PayoutLedger(f.sql).write({{task, QStringLiteral("pending"), QString(), 2}}, {});
    QCOMPARE(row(), (QStringList{QStringLiteral("pending"), QStringLiteral("NULL"), QStringLiteral("2"), uid, amount}));
    // A reference with what JSON escapes, and beyond ASCII, arrives as it was.
    const QString reference = QStringLiteral("réf \"7\" \\ \n\t\u0001 支付");
    PayoutLedger(f.sql).write({{task, QStringLiteral("paid"), reference, 1}}, {});
    QCOMPARE(row(), (QStringList{QStringLiteral("paid"), reference, QStringLiteral("3"), uid, amount}));
    // A later outcome without a reference keeps the one there is.
    PayoutLedger(f.sql).write({{task, QStringLiteral("paid"), QString(), 1}}, {});
    QCOMPARE(row(), (QStringList{QStringLiteral("paid"), reference, QStringLiteral("4"), uid, amount}));
    if (url.dialect == DbUrl::Dialect::MySql) {
        // Too long for its column: refused by the column, the batch's transaction undone.
        const PayoutTask other = f.task(2, 8);
        QVERIFY_THROWS_EXCEPTION(SqlError, PayoutLedger(f.sql).write({{task, QStringLiteral("paid"), QString(129, QLatin1Char('r')), 1}}, {other}));
        QCOMPARE(row(), (QStringList{QStringLiteral("paid"), reference, QStringLiteral("4"), uid, amount}));
        QCOMPARE(f.grabRows(), 1);
    }
}

void TestPayoutLedger::drainClaimsTheNextBatchWhileWriting()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Fixture f(url);
    QVERIFY(f.grabbedByTen());
    Drain worker(f);
    EnvelopeDrain &drain = worker.drain;
    const auto length = [&f](const QByteArray &key) { return f.redis.command({"LLEN", key}).toInteger(); };
    const QByteArray queue = f.keys.campaignTasks(f.id);
    const QByteArray backup = f.keys.campaignBackup(f.id, QStringLiteral("w1"));

    // One batch written; on MySQL (a transaction on a thread of its own) the next one is claimed
    // meanwhile and waits in the backup list, unwritten; SQLite claims nothing ahead.
    const bool ahead = url.dialect == DbUrl::Dialect::MySql;
    drain.advance(std::chrono::milliseconds(0));
    QCOMPARE(f.grabRows(), 4);
    QCOMPARE(length(queue), ahead ? 2 : 6);
    QCOMPARE(length(backup), ahead ? 8 : 4);
    QVERIFY(drain.busy());
    // finish() writes the batch claimed ahead too, pays everything, and settles: nothing is left
    // in the backup list, and the tasks not claimed are still queued.
    const EnvelopeDrainStats finished = drain.finish();
    QCOMPARE(f.grabRows(), ahead ? 8 : 4);
    QCOMPARE(finished.persisted, ahead ? 4 : 0);
    QCOMPARE(length(backup), 0);
    QCOMPARE(length(queue), ahead ? 2 : 6);
    QVERIFY(!drain.busy());
    drain.drainAll();
    QCOMPARE(f.grabRows(), 10);
    QCOMPARE(f.scalar(QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ? AND status = 'paid'"), {f.id}), 10);
    QCOMPARE(length(queue) + length(backup), 0);
}

void TestPayoutLedger::drainRecordsPayoutsWhileGrabsWait()
{
    // MySQL only: SQLite writes every batch inline, in one transaction.
    const DbUrl url = test::mysqlUrl();
    test::resetTables(url);
    Fixture f(url);
    QVERIFY(f.grabbedByTen());
    Drain worker(f);
    EnvelopeDrain &drain = worker.drain;
    // The first batch written (the second claimed meanwhile) and paid.
    drain.advance(std::chrono::milliseconds(0));
    QTRY_VERIFY(drain.dispatcher().idle());

    // The campaign's row locked elsewhere: the next batch's grab insert (its launched check reads
    // the row LOCK IN SHARE MODE) waits, and the first batch's payouts are recorded meanwhile, on
    // the drain's second connection, committed before the lock goes.
    std::promise<void> locked;
    std::atomic<qint64> recordedWhileLocked = -1;
    std::exception_ptr holderError;
    std::thread holder([&] {
        try {
            SqlConnection locker(url);
            SqlConnection watch(url);
            locker.transaction([&] {
                locker.exec(QStringLiteral("SELECT status FROM campaign WHERE id = ? FOR UPDATE"), {f.id});
                locked.set_value();
                const QDeadlineTimer deadline(std::chrono::seconds(5));
                qint64 rows = 0;
                while (rows < 4 && !deadline.hasExpired()) {
                    QSqlQuery count = watch.exec(QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ?"), {f.id});
                    rows = count.next() ? count.value(0).toLongLong() : 0;
                }
                recordedWhileLocked = rows;
            });
        } catch (...) {
            holderError = std::current_exception();
            try {
                locked.set_value();
            } catch (const std::future_error &) {
                // already set: the drain is waiting on the lock, which the failed transaction released
            }
        }
    });
    locked.get_future().wait();
    const EnvelopeDrainStats second = drain.advance(std::chrono::milliseconds(0));
    holder.join();
    if (holderError)
        std::rethrow_exception(holderError);
    QCOMPARE(recordedWhileLocked.load(), 4);
    QCOMPARE(second.paid, 4);
    QCOMPARE(second.persisted, 4);

    drain.drainAll();
    QCOMPARE(f.grabRows(), 10);
    QCOMPARE(f.scalar(QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ? AND status = 'paid'"), {f.id}), 10);
    QCOMPARE(LedgerTally::read(f.sql, f.id).value(f.id), LedgerTally::count(f.sql, f.id).value(f.id));
}

LANTERN_TEST_SUITE(TestPayoutLedger);

} // namespace tst_payoutledger

#include "tst_payoutledger.moc"
