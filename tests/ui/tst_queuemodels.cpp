// The Queues and Recovery views' item models under QAbstractItemModelTester (fill, refresh in
// place, shrink, clear), their words and tones, and the throughput history's rates.
#include "console/queues/deadlettermodel.h"
#include "console/queues/queueformat.h"
#include "console/common/nicescale.h"
#include "console/queues/queuehistory.h"
#include "console/queues/queuetablemodel.h"
#include "console/queues/queueworkermodel.h"
#include "console/recovery/recoveryledgermodel.h"
#include "console/recovery/recoverytaskmodel.h"
#include "testsuite.h"

#include <QAbstractItemModelTester>
#include <QLocale>
#include <QSignalSpy>
#include <QTest>

#include <limits>

namespace tst_queuemodels {

using namespace lantern;
using Tone = QueueFormat::Tone;

namespace {

QueueStatus queue(const QString &name, qint64 depth, double age, qint64 dead)
{
    QueueStatus status;
    status.name = name;
    status.depth = depth;
    status.oldestAgeS = age;
    status.deadLetter = dead;
    return status;
}

WorkerStatus worker(const QString &id, bool alive, qint64 backup)
{
    WorkerStatus status;
    status.id = id;
    status.alive = alive;
    status.lastBeatS = alive ? std::optional<double>(2.5) : std::nullopt;
    status.backupDepth = backup;
    return status;
}

RecoveryTask payoutTask(qint64 seq, bool paid)
{
    RecoveryTask task;
    task.kind = RecoveryTask::Kind::Payout;
    task.queue = QStringLiteral("payout:3");
    task.campaignId = 3;
    task.seq = seq;
    task.uid = 40 + seq;
    task.amountCents = 1234;
    task.persisted = paid;
    task.payoutStatus = paid ? QStringLiteral("paid") : QString();
    task.outcome = paid ? RecoveryTask::Outcome::Complete : RecoveryTask::Outcome::Requeue;
    task.raw = "{}";
    return task;
}

Tone toneOf(const QModelIndex &index)
{
    return Tone(index.data(QueueFormat::ToneRole).toInt());
}

} // namespace

class TestQueueModels final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }
    void queueTable();
    void workerTable();
    void deadLetterPage();
    void recoveryTree();
    void ledgerChecks();
    void historyRates_data();
    void historyRates();
    void historyGaps_data();
    void historyGaps();
    void niceScales_data();
    void niceScales();
    void historyIsBounded();
};

void TestQueueModels::queueTable()
{
    QueueTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setQueues({queue(QStringLiteral("checkin"), 12, 3.5, 0), queue(QStringLiteral("payout:3"), 0, 0, 2)});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(QueueTableModel::ColumnCount));
    QCOMPARE(model.index(0, QueueTableModel::Name).data().toString(), QStringLiteral("Check-in log"));
    QCOMPARE(model.index(1, QueueTableModel::Name).data(QueueTableModel::NameRole).toString(), QStringLiteral("payout:3"));
    QCOMPARE(model.index(0, QueueTableModel::Depth).data(QueueFormat::ValueRole).toLongLong(), 12);
    QCOMPARE(model.index(0, QueueTableModel::OldestAge).data().toString(), QStringLiteral("3.5 s"));
    QCOMPARE(model.index(1, QueueTableModel::OldestAge).data().toString(), QStringLiteral("—"));  // empty queue: no age
    QCOMPARE(toneOf(model.index(1, QueueTableModel::DeadLetter)), Tone::Bad);
    QCOMPARE(toneOf(model.index(0, QueueTableModel::DeadLetter)), Tone::Neutral);

    // Refresh with the same queues: updated in place (no reset), then a shorter list, then none.
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    model.setQueues({queue(QStringLiteral("checkin"), 3, 90, 0), queue(QStringLiteral("payout:3"), 1, 1, 0)});
    QCOMPARE(resets.size(), 0);
    QCOMPARE(toneOf(model.index(0, QueueTableModel::OldestAge)), Tone::Warning);
    model.setQueues({queue(QStringLiteral("checkin"), 0, 0, 0)});
    QCOMPARE(resets.size(), 1);
    model.setQueues({});
    QCOMPARE(model.rowCount(), 0);
}

void TestQueueModels::workerTable()
{
    QueueWorkerModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setWorkers({worker(QStringLiteral("w-1"), true, 0), worker(QStringLiteral("w-2"), false, 7)}, 15);
    QCOMPARE(model.index(0, QueueWorkerModel::State).data().toString(), QStringLiteral("Alive"));
    QCOMPARE(toneOf(model.index(0, QueueWorkerModel::State)), Tone::Good);
    QCOMPARE(model.index(1, QueueWorkerModel::State).data().toString(), QStringLiteral("Dead"));
    QCOMPARE(toneOf(model.index(1, QueueWorkerModel::State)), Tone::Bad);
    QCOMPARE(toneOf(model.index(1, QueueWorkerModel::InFlight)), Tone::Warning);
    QCOMPARE(model.index(1, QueueWorkerModel::InFlight).data(QueueFormat::ValueRole).toLongLong(), 7);
    QCOMPARE(model.index(0, QueueWorkerModel::LastBeat).data().toString(), QStringLiteral("2.5 s ago"));
    // No figures said with its beat: nothing to show.
    QCOMPARE(model.index(0, QueueWorkerModel::PayoutRate).data().toString(), QStringLiteral("—"));
    QVERIFY(!model.index(0, QueueWorkerModel::PayoutRate).data(QueueFormat::ValueRole).isValid());

    // Its payouts as it said them with its last beat (issue 12); most calls failing is a warning.
    WorkerStatus paying = worker(QStringLiteral("w-1"), true, 64);
    paying.payouts = WorkerPayoutFigures{470, 590, 120, 64, 471.25};
    WorkerStatus failing = worker(QStringLiteral("w-2"), true, 0);
    failing.payouts = WorkerPayoutFigures{10, 100, 90, 8, 0.5};
    model.setWorkers({paying, failing}, 15);
    QCOMPARE(model.index(0, QueueWorkerModel::PayoutRate).data(QueueFormat::ValueRole).toDouble(), 471.25);
    QCOMPARE(model.index(0, QueueWorkerModel::PayoutRate).data().toString(), QStringLiteral("471.3"));
    QCOMPARE(model.index(0, QueueWorkerModel::PayoutCalls).data(QueueFormat::ValueRole).toLongLong(), 64);
    QCOMPARE(model.index(0, QueueWorkerModel::ProviderErrors).data(QueueFormat::ValueRole).toLongLong(), 120);
    QCOMPARE(toneOf(model.index(0, QueueWorkerModel::ProviderErrors)), Tone::Neutral);
    QCOMPARE(toneOf(model.index(1, QueueWorkerModel::ProviderErrors)), Tone::Warning);
    QVERIFY(model.index(1, QueueWorkerModel::ProviderErrors).data(Qt::ToolTipRole).toString().contains(QStringLiteral("100")));

    model.setWorkers({worker(QStringLiteral("w-2"), false, 0)}, 15);
    QCOMPARE(model.rowCount(), 1);
}

void TestQueueModels::deadLetterPage()
{
    DeadLetterModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    DeadLetterPage page;
    page.list = QStringLiteral("payout:3");
    page.offset = 50;
    page.depth = 53;
    page.entries = {R"({"campaign":"3","seq":"9","uid":"77","amount":"1205","at":1700000000000})",
                    R"({"uid":"5","date":"2025-03-04","kind":"normal","points":10,"at":1700000000000})", "not json at all"};
    model.setPage(page);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.index(0, DeadLetterModel::Position).data().toString(), QStringLiteral("51"));
    QCOMPARE(model.index(0, DeadLetterModel::Kind).data().toString(), QStringLiteral("Payout"));
    QCOMPARE(model.index(0, DeadLetterModel::Summary).data().toString(), QStringLiteral("Campaign 3, envelope 9: ¥12.05 to user 77"));
    QCOMPARE(model.index(1, DeadLetterModel::Kind).data().toString(), QStringLiteral("Check-in"));
    QCOMPARE(model.index(2, DeadLetterModel::Kind).data().toString(), QStringLiteral("Unreadable"));
    QCOMPARE(toneOf(model.index(2, DeadLetterModel::Kind)), Tone::Bad);
    QCOMPARE(model.index(2, 0).data(DeadLetterModel::RawRole).toByteArray(), QByteArray("not json at all"));
    QCOMPARE(model.rowOf("not json at all"), 2);
    QVERIFY(DeadLetterModel::prettyEntry(page.entries.at(0)).contains(QStringLiteral("\n    \"amount\": \"1205\"")));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestQueueModels::recoveryTree()
{
    RecoveryTaskModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    DeadWorkerBacklog dead{QStringLiteral("w-dead"), 250, {payoutTask(1, true), payoutTask(2, false)}};
    RecoveryTask checkin;
    checkin.kind = RecoveryTask::Kind::Checkin;
    checkin.queue = QStringLiteral("checkin");
    checkin.uid = 9;
    checkin.date = QDate(2025, 3, 4);
    checkin.outcome = RecoveryTask::Outcome::Requeue;
    DeadWorkerBacklog other{QStringLiteral("w-other"), 1, {checkin}};
    DeadWorkerBacklog idle{QStringLiteral("w-idle"), 0, {}};
    model.setWorkers({dead, other, idle});
    QCOMPARE(model.rowCount(), 3);
    const QModelIndex first = model.index(0, 0);
    QCOMPARE(model.rowCount(first), 2);
    QCOMPARE(model.index(0, RecoveryTaskModel::Queue).data().toString(), QStringLiteral("250 task(s) held, first 2 shown"));
    QCOMPARE(model.index(0, RecoveryTaskModel::OnCompensation).data().toString(), QStringLiteral("1 complete, 1 re-queue"));
    const QModelIndex paid = model.index(0, RecoveryTaskModel::Payout, first);
    QCOMPARE(paid.data().toString(), QStringLiteral("Paid"));
    QCOMPARE(model.parent(paid), first);
    QCOMPARE(paid.data(RecoveryTaskModel::WorkerRole).toString(), QStringLiteral("w-dead"));
    QCOMPARE(toneOf(model.index(0, RecoveryTaskModel::OnCompensation, first)), Tone::Good);
    QCOMPARE(toneOf(model.index(1, RecoveryTaskModel::OnCompensation, first)), Tone::Warning);
    QCOMPARE(model.index(1, RecoveryTaskModel::Item, first).data().toString(), QStringLiteral("Envelope 2: ¥12.34 to user 42"));
    QCOMPARE(model.index(0, RecoveryTaskModel::Persisted, model.index(1, 0)).data().toString(), QStringLiteral("No log row"));
    QCOMPARE(model.index(2, RecoveryTaskModel::OnCompensation).data().toString(), QStringLiteral("Forget the worker"));
    QCOMPARE(model.workerIds(), (QStringList{QStringLiteral("w-dead"), QStringLiteral("w-other"), QStringLiteral("w-idle")}));
    model.setWorkers({});
    QCOMPARE(model.rowCount(), 0);
}

void TestQueueModels::ledgerChecks()
{
    RecoveryLedgerModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    LedgerCheck balanced{1, QStringLiteral("Spring"), LedgerCheck::State::Balanced, 0, 0, 0, {}};
    LedgerCheck waiting{2, QStringLiteral("Summer"), LedgerCheck::State::Waiting, 2, 0, 3, {}};
    LedgerCheck broken{3, QStringLiteral("Autumn"), LedgerCheck::State::Broken, 0, 0, 0, {QStringLiteral("Invariant 3: 1 payouts")}};
    model.setChecks({balanced, waiting, broken});
    QCOMPARE(model.index(0, RecoveryLedgerModel::Check).data().toString(), QStringLiteral("Balanced"));
    QCOMPARE(toneOf(model.index(0, RecoveryLedgerModel::Check)), Tone::Good);
    QCOMPARE(toneOf(model.index(1, RecoveryLedgerModel::Check)), Tone::Warning);
    QCOMPARE(model.index(1, RecoveryLedgerModel::Detail).data().toString(),
             QStringLiteral("Payouts still on their way: 3 held by dead workers, 2 queued."));
    QCOMPARE(model.index(2, RecoveryLedgerModel::Check).data().toString(), QStringLiteral("1 violation(s)"));
    QCOMPARE(toneOf(model.index(2, RecoveryLedgerModel::Check)), Tone::Bad);
    QCOMPARE(model.index(2, RecoveryLedgerModel::Campaign).data().toString(), QStringLiteral("3 · Autumn"));
    model.setChecks({});
    QCOMPARE(model.rowCount(), 0);
}

void TestQueueModels::historyRates_data()
{
    QTest::addColumn<QList<qint64>>("depths");  // one sample a second
    QTest::addColumn<QList<double>>("rates");   // from the second sample on
    QTest::newRow("draining 100 a second") << QList<qint64>{500, 400, 300} << QList<double>{100, 100};
    QTest::newRow("growing backlog drains at 0, never negative") << QList<qint64>{10, 50, 20} << QList<double>{0, 30};
    QTest::newRow("steady") << QList<qint64>{7, 7} << QList<double>{0};
}

void TestQueueModels::historyRates()
{
    QFETCH(QList<qint64>, depths);
    QFETCH(QList<double>, rates);
    QueueHistory history;
    for (qsizetype i = 0; i < depths.size(); ++i)
        history.add(1000 * (i + 1), depths.at(i));
    QCOMPARE(history.samples().size(), depths.size());
    QVERIFY(!history.samples().first().drainedPerS);
    for (qsizetype i = 0; i < rates.size(); ++i)
        QCOMPARE(*history.samples().at(i + 1).drainedPerS, rates.at(i));
}

void TestQueueModels::historyGaps_data()
{
    QTest::addColumn<QList<qint64>>("atSeconds");
    QTest::addColumn<QList<int>>("runSizes");
    QTest::newRow("every 5 s: one run") << QList<qint64>{0, 5, 10, 15} << QList<int>{4};
    QTest::newRow("hidden for 40 s after refreshes every 5 s: a gap") << QList<qint64>{0, 5, 10, 50, 55} << QList<int>{3, 2};
    QTest::newRow("every 60 s (the slowest auto-refresh): no gap") << QList<qint64>{0, 60, 120, 180} << QList<int>{4};
    QTest::newRow("two minutes away after the first sample: a gap") << QList<qint64>{0, 120, 125} << QList<int>{1, 2};
}

void TestQueueModels::historyGaps()
{
    QFETCH(QList<qint64>, atSeconds);
    QFETCH(QList<int>, runSizes);
    QueueHistory history;
    for (const qint64 second : atSeconds)
        history.add(second * 1000, 100 - second);
    const QList<QList<QueueSample>> runs = history.runs();
    QList<int> sizes;
    for (const QList<QueueSample> &run : runs) {
        sizes << int(run.size());
        QVERIFY(!run.first().drainedPerS);  // no rate averaged across a gap
    }
    QCOMPARE(sizes, runSizes);
}

void TestQueueModels::niceScales_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<double>("minimumStep");
    QTest::addColumn<double>("max");
    QTest::addColumn<double>("step");
    QTest::newRow("empty chart: 0 and 1, no repeated label") << 0.0 << 1.0 << 1.0 << 1.0;
    QTest::newRow("7 tasks: 0, 2, 4, 6, 8") << 7.0 << 1.0 << 8.0 << 2.0;
    QTest::newRow("3 tasks: whole steps") << 3.0 << 1.0 << 3.0 << 1.0;
    QTest::newRow("1234 tasks: steps of 500") << 1234.0 << 1.0 << 1500.0 << 500.0;
    QTest::newRow("0.3 per s with tenths") << 0.3 << 0.1 << 0.3 << 0.1;
}

void TestQueueModels::niceScales()
{
    QFETCH(double, value);
    QFETCH(double, minimumStep);
    QFETCH(double, max);
    QFETCH(double, step);
    const NiceScale scale = NiceScale::covering(value, 4, minimumStep);
    QCOMPARE(scale.max, max);
    QCOMPARE(scale.step, step);
    QVERIFY(scale.intervals() <= 4);
    QCOMPARE(NiceScale::timeStepMs(60'000, 5), qint64(15'000));
    QCOMPARE(NiceScale::timeStepMs(5'000, 5), qint64(1'000));
}

void TestQueueModels::historyIsBounded()
{
    QueueHistory history(5);
    for (int i = 1; i <= 12; ++i)
        history.add(i * 1000, i);
    QCOMPARE(history.samples().size(), 5);
    QCOMPARE(history.samples().first().atMs, 8000);
    history.add(11000, 1);  // stale answer: ignored
    QCOMPARE(history.samples().last().atMs, 12000);
    QCOMPARE(history.maxDepth(), 12);
}

LANTERN_TEST_SUITE(TestQueueModels);

} // namespace tst_queuemodels

#include "tst_queuemodels.moc"
