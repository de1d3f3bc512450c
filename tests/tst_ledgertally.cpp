// The ledger's running tally (issue 26, migration 0010), on real Redis and both SQL dialects: it
// equals a count of the rows after drains by several workers with failing payouts, a worker dying
// with payouts in flight and its tasks re-delivered by a recovery, tasks delivered twice, and a
// close; a replayed batch adds nothing, nor do rows another transaction commits between the read
// and the insert; a grab or payout row changed by hand is found by the
// full check (`lanternd verify`) always, and by the views where the triggers see it.
#include "envelope/campaignservice.h"
#include "envelope/campaignverifier.h"
#include "envelope/enveloperecovery.h"
#include "envelope/envelopedrain.h"
#include "envelope/grabservice.h"
#include "envelope/ledgertally.h"
#include "envelope/payoutledger.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

namespace tst_ledgertally {

using namespace lantern;

namespace {
constexpr qint64 Now = 1795000000000;

QString described(const QList<Violation> &violations)
{
    QStringList lines;
    for (const Violation &violation : violations)
        lines << QStringLiteral("%1: %2").arg(violation.invariant).arg(violation.detail);
    return lines.join(QLatin1Char('\n'));
}

const QString OffGrabs = QStringLiteral("grab rows were changed outside Lantern");
const QString OffPayouts = QStringLiteral("payout rows were changed outside Lantern");

/** A campaign on a fresh prefix, grabbed by `grabs` users. */
struct Ledger {
    Ledger(const RedisUrl &redisUrl, const DbUrl &url) : redis(redisUrl), sql(url), keys(test::uniquePrefix()), service(redis, sql, keys) {}

    qint64 campaign(qint64 count, qint64 grabs)
    {
        CampaignDraft draft;
        draft.name = QStringLiteral("tallied");
        draft.totalCents = count * 100;
        draft.count = count;
        draft.minCents = 1;
        draft.seed = 5;
        const qint64 id = service.create(draft, Now).id;
        service.launch(id);
        for (qint64 uid = 1; uid <= grabs; ++uid)
            granted += GrabService(redis, keys).grab(id, uid, Now).status == QLatin1String("ok");
        return id;
    }
    EnvelopeDrainOptions options(int batch) const
    {
        EnvelopeDrainOptions options;
        options.batchSize = batch;
        options.backoffMs = 0;
        options.payAttempts = 1;
        options.maxFailedPasses = 3;  // some payouts end 'failed', most 'paid' after a retry or two
        options.errorLogPath = errors.filePath(QStringLiteral("errors.log"));
        return options;
    }
    /** A grab task for each envelope of a campaign, in seq order, by users 1, 2, ... */
    QList<PayoutTask> grabTasks(qint64 id)
    {
        QList<PayoutTask> tasks;
        QSqlQuery envelopes = sql.exec(QStringLiteral("SELECT seq, amount_cents FROM envelope WHERE campaign_id = ? ORDER BY seq"), {id});
        for (qint64 uid = 1; envelopes.next(); ++uid)
            tasks << PayoutTask{id, envelopes.value(0).toLongLong(), uid, envelopes.value(1).toLongLong(), Now};
        return tasks;
    }
    TallyFigures tally(qint64 id) { return LedgerTally::read(sql, id).value(id); }
    TallyFigures rows(qint64 id) { return LedgerTally::count(sql, id).value(id); }
    qint64 scalar(const QString &statement, const QVariantList &values = {})
    {
        QSqlQuery query = sql.exec(statement, values);
        return query.next() ? query.value(0).toLongLong() : -1;
    }
    /** The console's check of a campaign (the tally), or `lanternd verify`'s (every row). */
    QString check(qint64 id, TallyMemos *memos)
    {
        CampaignVerifier verifier(redis, sql, keys);
        const std::unique_ptr<SimulatedPayoutGateway> provider = verifier.readSimulatedLedger();
        if (memos)
            verifier.judgeFromTally(memos);
        return described(verifier.verify(id));
    }

    RedisClient redis;
    SqlConnection sql;
    const KeySchema keys;
    CampaignService service;
    QTemporaryDir errors;
    qint64 granted = 0;  // grabs that got an envelope
};

QString text(const TallyFigures &f)
{
    return QStringLiteral("%1 rows %2 cents, paid %3 (%4), failed %5 (%6), %7 calls")
            .arg(f.grabRows)
            .arg(f.grabCents)
            .arg(f.paid)
            .arg(f.paidCents)
            .arg(f.failed)
            .arg(f.failedCents)
            .arg(f.payoutCalls);
}
} // namespace

class TestLedgerTally : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_redisUrl = test::redisUrl(); }
    void dialects_data();
    void aReplayedBatchAddsNothing_data() { dialects_data(); }
    void aReplayedBatchAddsNothing();
    void firstOutcomesAreInsertedWithoutReading_data() { dialects_data(); }
    void firstOutcomesAreInsertedWithoutReading();
    void tallyEqualsTheRowsAfterWorkersCrashesAndClose_data() { dialects_data(); }
    void tallyEqualsTheRowsAfterWorkersCrashesAndClose();
    void handEditsAreFound_data() { dialects_data(); }
    void handEditsAreFound();

private:
    RedisUrl m_redisUrl;
};

void TestLedgerTally::dialects_data()
{
    QTest::addColumn<DbUrl>("url");
    for (const auto &[name, url] : test::sqlDialects())
        QTest::newRow(qPrintable(name)) << url;
}

void TestLedgerTally::aReplayedBatchAddsNothing()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Ledger ledger(m_redisUrl, url);
    const qint64 id = ledger.campaign(10, 0);
    const QList<PayoutTask> tasks = ledger.grabTasks(id);
    QCOMPARE(tasks.size(), 10);
    const auto cents = [&](qsizetype from, qsizetype n) {
        qint64 sum = 0;
        for (const PayoutTask &task : tasks.mid(from, n))
            sum += task.amountCents;
        return sum;
    };
    PayoutLedger first(ledger.sql, 3);
    QCOMPARE(first.write({}, tasks.mid(0, 4)).persisted(), 4);
    QCOMPARE(ledger.tally(id), (TallyFigures{4, cents(0, 4), 0, 0, 0, 0, 0}));

    // Replayed with new ones, one of them twice, by another writer: only the new rows count
    // (the batch went in partly: undone to the savepoint and made again after a read).
    QList<PayoutTask> mixed = tasks.mid(2, 5);
    mixed << tasks.at(6);
    QCOMPARE(PayoutLedger(ledger.sql, 9).write({}, mixed).persisted(), 3);
    QCOMPARE(ledger.tally(id), (TallyFigures{7, cents(0, 7), 0, 0, 0, 0, 0}));
    QCOMPARE(ledger.scalar(QStringLiteral("SELECT COUNT(*) FROM ledger_tally WHERE campaign_id = ?"), {id}), 2);

    // Payouts: pending, then paid, then paid again (a replayed outcome); one failed.
    const PayoutRecord pending{tasks.at(0), QStringLiteral("pending"), {}, 2};
    const PayoutRecord paid{tasks.at(0), QStringLiteral("paid"), QStringLiteral("ref-0"), 1};
    const PayoutRecord failed{tasks.at(1), QStringLiteral("failed"), {}, 3};
    first.write({pending, failed}, {});
    first.write({paid}, {});
    PayoutLedger(ledger.sql, 9).write({paid}, tasks.mid(0, 2));
    const qint64 a = tasks.at(0).amountCents;
    const qint64 b = tasks.at(1).amountCents;
    QCOMPARE(ledger.tally(id), (TallyFigures{7, cents(0, 7), 1, a, 1, b, 7}));
    QCOMPARE(ledger.tally(id), ledger.rows(id));
}

void TestLedgerTally::firstOutcomesAreInsertedWithoutReading()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Ledger ledger(m_redisUrl, url);
    const qint64 id = ledger.campaign(10, 0);
    const QList<PayoutTask> tasks = ledger.grabTasks(id);
    PayoutLedger ledgerWriter(ledger.sql, 3);
    QCOMPARE(ledgerWriter.write({}, tasks.mid(0, 4)).persisted(), 4);
    const auto amount = [&tasks](qsizetype i) { return tasks.at(i).amountCents; };
    // MySQL: the SELECTs this connection ran (SHOW STATUS itself may count: measured first).
    const auto selects = [&ledger] { return ledger.scalar(QStringLiteral("SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS "
                                                                         "WHERE VARIABLE_NAME = 'COM_SELECT'")); };
    const bool mysql = url.dialect == DbUrl::Dialect::MySql;
    const qint64 first = mysql ? selects() : 0;
    const qint64 reading = mysql ? selects() - first : 0;

    // First outcomes with new grabs: the payouts are inserted and counted from the records, and
    // (the batch all new) nothing is read.
    const qint64 before = mysql ? selects() : 0;
    const PayoutRecord paid0{tasks.at(0), QStringLiteral("paid"), QStringLiteral("ref-0"), 2, true};
    const PayoutRecord failed1{tasks.at(1), QStringLiteral("failed"), {}, 3, true};
    QCOMPARE(ledgerWriter.write({paid0, failed1}, tasks.mid(4, 2)).persisted(), 2);
    if (mysql)
        QCOMPARE(selects() - before - reading, 0);
    QCOMPARE(ledger.tally(id), (TallyFigures{6, ledger.rows(id).grabCents, 1, amount(0), 1, amount(1), 5}));
    QCOMPARE(ledger.tally(id), ledger.rows(id));

    // One taken for a first outcome has a row after all (another writer's pending outcome): the
    // batch is written again reading first, the row updated, its change of status counted once.
    PayoutLedger(ledger.sql, 9).write({{tasks.at(2), QStringLiteral("pending"), {}, 1}}, {});
    const PayoutRecord paid2{tasks.at(2), QStringLiteral("paid"), QStringLiteral("ref-2"), 1, true};
    const PayoutRecord paid3{tasks.at(3), QStringLiteral("paid"), QStringLiteral("ref-3"), 1, true};
    QCOMPARE(ledgerWriter.write({paid2, paid3}, tasks.mid(6, 1)).persisted(), 1);
    QCOMPARE(ledger.scalar(QStringLiteral("SELECT attempts FROM payout WHERE idempotency_key = ?"), {tasks.at(2).idempotencyKey()}), 2);
    QCOMPARE(ledger.scalar(QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ? AND status = 'paid'"), {id}), 3);
    QCOMPARE(ledger.tally(id), (TallyFigures{7, ledger.rows(id).grabCents, 3, amount(0) + amount(2) + amount(3), 1, amount(1), 8}));
    QCOMPARE(ledger.tally(id), ledger.rows(id));
}

void TestLedgerTally::tallyEqualsTheRowsAfterWorkersCrashesAndClose()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Ledger ledger(m_redisUrl, url);
    const qint64 id = ledger.campaign(80, 70);
    // Twenty tasks delivered twice (as a worker whose answer was lost would leave them).
    const RedisValue queued = ledger.redis.command({"LRANGE", ledger.keys.campaignTasks(id), "0", "19"});
    for (const RedisValue &entry : queued.elements)
        ledger.redis.command({"LPUSH", ledger.keys.campaignTasks(id), entry.toBytes()});

    // A worker dies with payouts in flight: its batch is in SQL, in its backup list, unsettled.
    SimulatedPayoutGateway slow(ledger.redis, ledger.keys.prefix(), SimulationKnobs{0.0, 60'000}, 1);
    {
        EnvelopeDrain dying(ledger.redis, ledger.sql, ledger.keys, QStringLiteral("dying"), slow, ledger.options(15));
        QCOMPARE(dying.advance(std::chrono::milliseconds(0)).persisted, 15);
    }
    // Its backup list holds the batch, and on MySQL the next one too (claimed while the
    // transaction ran): recovery puts every entry back.
    const qint64 held = ledger.redis.command({"LLEN", ledger.keys.campaignBackup(id, QStringLiteral("dying"))}).toInteger();
    QVERIFY2(held == 15 || (held == 30 && url.dialect == DbUrl::Dialect::MySql), qPrintable(QString::number(held)));
    RecoveryReport report;
    QVERIFY(EnvelopeRecovery(ledger.redis, ledger.sql, ledger.keys).reclaim(QStringLiteral("dying"), report));
    QCOMPARE(qint64(report.requeued), held);

    // Three workers take turns, in small batches, half of the calls failing.
    std::vector<std::unique_ptr<SimulatedPayoutGateway>> gateways;
    std::vector<std::unique_ptr<EnvelopeDrain>> workers;
    for (int w = 0; w < 3; ++w) {
        gateways.push_back(std::make_unique<SimulatedPayoutGateway>(ledger.redis, ledger.keys.prefix(), SimulationKnobs{0.5, 0}, 7 + w));
        workers.push_back(std::make_unique<EnvelopeDrain>(ledger.redis, ledger.sql, ledger.keys, QStringLiteral("worker-%1").arg(w), *gateways.back(),
                                                          ledger.options(9)));
    }
    for (bool working = true; working;) {
        working = false;
        for (const auto &worker : workers)
            working = worker->pass().claimed > 0 || working;
        QCOMPARE(ledger.tally(id), ledger.rows(id));  // after every round, not only at the end
    }
    const TallyFigures after = ledger.tally(id);
    QCOMPARE(ledger.granted, 70);
    QCOMPARE(after.grabRows, 70);
    QVERIFY2(after.paid > 0 && after.failed > 0 && after.payoutCalls > after.paid + after.failed, qPrintable(text(after)));
    QVERIFY2(ledger.scalar(QStringLiteral("SELECT COUNT(*) FROM ledger_tally WHERE campaign_id = ?"), {id}) >= 2, "one row per writer");

    ledger.service.close(id);
    QCOMPARE(ledger.tally(id), ledger.rows(id));
    const QString verified = ledger.check(id, nullptr);
    QVERIFY2(!verified.contains(OffGrabs) && !verified.contains(OffPayouts), qPrintable(verified));
}

void TestLedgerTally::handEditsAreFound()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Ledger ledger(m_redisUrl, url);
    const qint64 id = ledger.campaign(10, 6);
    SimulatedPayoutGateway gateway(ledger.redis, ledger.keys.prefix(), SimulationKnobs{}, 3);
    EnvelopeDrain(ledger.redis, ledger.sql, ledger.keys, QStringLiteral("w1"), gateway, ledger.options(4)).drainAll();
    TallyMemos memos;
    QCOMPARE(ledger.check(id, &memos), QString());
    QCOMPARE(ledger.check(id, nullptr), QString());
    const qint64 seq = ledger.scalar(QStringLiteral("SELECT MIN(seq) FROM grab WHERE campaign_id = ?"), {id});

    // A grab's amount changed by hand: the view sees it on its next refresh (the trigger), and
    // keeps saying so while nothing else changes; the full check says it too.
    ledger.sql.exec(QStringLiteral("UPDATE grab SET amount_cents = amount_cents + 5 WHERE campaign_id = ? AND seq = ?"), {id, seq});
    QVERIFY2(ledger.check(id, &memos).contains(OffGrabs), qPrintable(ledger.check(id, &memos)));
    QVERIFY2(ledger.check(id, &memos).contains(QStringLiteral("1 grabs do not match their envelope")), qPrintable(ledger.check(id, &memos)));
    QVERIFY2(ledger.check(id, nullptr).contains(OffGrabs), qPrintable(ledger.check(id, nullptr)));
    ledger.sql.exec(QStringLiteral("UPDATE grab SET amount_cents = amount_cents - 5 WHERE campaign_id = ? AND seq = ?"), {id, seq});
    QCOMPARE(ledger.check(id, &memos), QString());

    // A paid payout deleted by hand: both see it.
    ledger.sql.exec(QStringLiteral("DELETE FROM payout WHERE campaign_id = ? AND seq = ?"), {id, seq});
    QVERIFY2(ledger.check(id, &memos).contains(OffPayouts), qPrintable(ledger.check(id, &memos)));
    QVERIFY2(ledger.check(id, nullptr).contains(OffPayouts), qPrintable(ledger.check(id, nullptr)));

    // A grab deleted by hand: both see it.
    const qint64 other = ledger.campaign(10, 4);
    EnvelopeDrain(ledger.redis, ledger.sql, ledger.keys, QStringLiteral("w2"), gateway, ledger.options(4)).drainAll();
    QCOMPARE(ledger.check(other, &memos), QString());
    ledger.sql.exec(QStringLiteral("DELETE FROM grab WHERE campaign_id = ? AND seq = (SELECT MAX(seq) FROM grab WHERE campaign_id = ?)"), {other, other});
    QVERIFY2(ledger.check(other, &memos).contains(OffGrabs), qPrintable(ledger.check(other, &memos)));
    QVERIFY2(ledger.check(other, nullptr).contains(OffGrabs), qPrintable(ledger.check(other, nullptr)));

    // A grab inserted and a payout updated by hand: no trigger counts them (the drain inserts
    // grabs and updates payouts all day), so the views judge from the tally; the full check
    // reads every row and finds both.
    const qint64 third = ledger.campaign(10, 3);
    EnvelopeDrain(ledger.redis, ledger.sql, ledger.keys, QStringLiteral("w3"), gateway, ledger.options(4)).drainAll();
    QCOMPARE(ledger.check(third, &memos), QString());
    const qint64 free = ledger.scalar(QStringLiteral("SELECT MAX(seq) FROM envelope WHERE campaign_id = ?"), {third});
    const qint64 amount = ledger.scalar(QStringLiteral("SELECT amount_cents FROM envelope WHERE campaign_id = ? AND seq = ?"), {third, free});
    ledger.sql.exec(QStringLiteral("INSERT INTO grab (campaign_id, seq, uid, amount_cents, grabbed_at_ms) VALUES (?, ?, 999, ?, ?)"),
                    {third, free, amount, Now});
    ledger.sql.exec(QStringLiteral("UPDATE payout SET status = 'failed' WHERE campaign_id = ? AND seq = (SELECT MIN(seq) FROM grab WHERE campaign_id = ?)"),
                    {third, third});
    const QString view = ledger.check(third, &memos);
    QVERIFY2(!view.contains(OffGrabs) && !view.contains(OffPayouts), qPrintable(view));
    const QString full = ledger.check(third, nullptr);
    QVERIFY2(full.contains(QStringLiteral("4 grab rows (%1 cents) in SQL, the workers wrote 3").arg(ledger.rows(third).grabCents)), qPrintable(full));
    QVERIFY2(full.contains(OffPayouts), qPrintable(full));
}

LANTERN_TEST_SUITE(TestLedgerTally);

} // namespace tst_ledgertally

#include "tst_ledgertally.moc"
