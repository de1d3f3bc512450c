// The Recovery view against the private Redis and both SQL dialects: a dead worker's backup
// list with each task's SQL and payout state; compensation through the confirmation dialog
// empties the list, leaves an audit row, and the ledger check of the campaign turns green
// (at once when SQL had everything, after a live worker drains what was re-queued otherwise);
// reconciliation of a day back-fills lost check-in rows; a header click sorts the workers and,
// under each, its tasks. No sleeps: waits on the view's signals.
#include "checkin/checkinentry.h"
#include "checkin/checkinservice.h"
#include "console/common/dedicatedthread.h"
#include "console/queues/queueformat.h"
#include "console/recovery/recoveryledgermodel.h"
#include "console/recovery/recoveryservice.h"
#include "console/recovery/recoverytaskmodel.h"
#include "envelope/campaignservice.h"
#include "envelope/envelopedrain.h"
#include "envelope/grabservice.h"
#include "payout/simulatedpayoutgateway.h"
#include "queue/reliablequeue.h"
#include "queues/queueconfirmdialog.h"
#include "recovery/recoveryview.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QAbstractItemModelTester>
#include <QDateEdit>
#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QHeaderView>
#include <QTest>
#include <QTreeView>

namespace tst_recoveryview {

using namespace lantern;
using lantern::ui::QueueConfirmDialog;
using lantern::ui::RecoveryView;
using Outcome = RecoveryTask::Outcome;
using LedgerState = LedgerCheck::State;

namespace {

constexpr int AnswerTimeoutMs = 20000;
const QString DeadWorker = QStringLiteral("w-dead");
const QDate Today(2025, 3, 20);

enum class Crash {
    AfterPaying,  // every task persisted and paid, none acknowledged
    MidBatch,     // one task done (not acknowledged), two claimed and untouched
};

DbUrl dialectUrl(const QString &dialect)
{
    for (const auto &[name, url] : test::sqlDialects()) {
        if (name == dialect)
            return url;
    }
    return {};
}

} // namespace

class TestRecoveryView final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void compensationEmptiesTheBackupListAndTheLedgerTurnsGreen_data();
    void compensationEmptiesTheBackupListAndTheLedgerTurnsGreen();
    void reconciliationBackfillsLostCheckins_data();
    void reconciliationBackfillsLostCheckins();
    void headerClickSortsWorkersAndTheirTasks_data();
    void headerClickSortsWorkersAndTheirTasks();
    void heldCheckinsShowTheirLogRows_data() { reconciliationBackfillsLostCheckins_data(); }
    void heldCheckinsShowTheirLogRows();

private:
    void startView();
    void waitLoaded();
    /** Clicks `button` as the session's operator `name`, and accepts the confirmation it opens
        (which names that operator). */
    void actAs(QAbstractButton *button, const QString &name);
    qint64 llen(const QByteArray &key);
    /** A worker that is alive drains the payout queues (what `lanternd work` would do). */
    void drain(const QString &workerId, int batchSize = 500, bool once = false);
    LedgerState ledgerState() const;

    Config m_config;
    std::unique_ptr<KeySchema> m_keys;
    std::unique_ptr<RedisClient> m_redis;
    std::unique_ptr<SqlConnection> m_sql;
    std::unique_ptr<DedicatedThread<RecoveryService>> m_service;
    std::unique_ptr<RecoveryView> m_view;
    QTemporaryDir m_errorLogs;
};

void TestRecoveryView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    QVERIFY(m_errorLogs.isValid());
}

void TestRecoveryView::init()
{
    QFETCH(QString, dialect);
    m_config = Config();
    m_config.redis = test::redisUrl();
    m_config.db = dialectUrl(dialect);
    m_config.keyPrefix = test::uniquePrefix();
    m_config.shards = 4;
    m_config.todayOverride = Today;
    test::resetTables(m_config.db);
    m_keys = std::make_unique<KeySchema>(m_config.keyPrefix, m_config.shards);
    m_redis = std::make_unique<RedisClient>(m_config.redis);
    m_sql = std::make_unique<SqlConnection>(m_config.db);
}

void TestRecoveryView::cleanup()
{
    m_view.reset();
    m_service.reset();
    m_sql.reset();
    m_redis.reset();
}

void TestRecoveryView::startView()
{
    m_service = std::make_unique<DedicatedThread<RecoveryService>>(QStringLiteral("recovery"), m_config);
    m_view = std::make_unique<RecoveryView>();
    m_view->resize(1100, 760);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    QSignalSpy loaded(m_view.get(), &RecoveryView::loaded);
    m_view->setService(m_service->get());  // refreshes
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), AnswerTimeoutMs);
}

void TestRecoveryView::waitLoaded()
{
    QSignalSpy loaded(m_view.get(), &RecoveryView::loaded);
    QSignalSpy failed(m_view.get(), &RecoveryView::failed);
    m_view->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty() || !failed.isEmpty(), AnswerTimeoutMs);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.isEmpty() ? QString() : failed.first().at(0).toString()));
}

void TestRecoveryView::actAs(QAbstractButton *button, const QString &name)
{
    QVERIFY(m_view->operatorIdentity()->setName(name));
    QTest::mouseClick(button, Qt::LeftButton);
    QueueConfirmDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = m_view->findChild<QueueConfirmDialog *>(QStringLiteral("confirmDialog"))) != nullptr && dialog->isVisible());
    QCOMPARE(dialog->operatorName(), name);
    QTest::mouseClick(dialog->actionButton(), Qt::LeftButton);
}

qint64 TestRecoveryView::llen(const QByteArray &key)
{
    return m_redis->command({"LLEN", key}).toInteger();
}

void TestRecoveryView::drain(const QString &workerId, int batchSize, bool once)
{
    SimulatedPayoutGateway gateway(*m_redis, m_keys->prefix(), SimulationKnobs{}, 1);
    EnvelopeDrainOptions options;
    options.batchSize = batchSize;
    options.errorLogPath = m_errorLogs.filePath(QStringLiteral("errors.log"));
    EnvelopeDrain drain(*m_redis, *m_sql, *m_keys, workerId, gateway, options);
    if (once)
        drain.pass();
    else
        drain.drainAll();
}

LedgerState TestRecoveryView::ledgerState() const
{
    const RecoveryLedgerModel *ledger = m_view->ledgerModel();
    return ledger->rowCount() == 1 ? LedgerState(ledger->index(0, 0).data(RecoveryLedgerModel::StateRole).toInt()) : LedgerState(-1);
}

void TestRecoveryView::compensationEmptiesTheBackupListAndTheLedgerTurnsGreen_data()
{
    QTest::addColumn<QString>("dialect");
    QTest::addColumn<Crash>("crash");
    for (const auto &[name, url] : test::sqlDialects()) {
        QTest::addRow("%s: died after paying, before acknowledging: all completed from SQL", qPrintable(name)) << name << Crash::AfterPaying;
        QTest::addRow("%s: died mid-batch: one completed, two re-queued and drained", qPrintable(name)) << name << Crash::MidBatch;
    }
}

void TestRecoveryView::compensationEmptiesTheBackupListAndTheLedgerTurnsGreen()
{
    QFETCH(Crash, crash);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    CampaignService campaigns(*m_redis, *m_sql, *m_keys);
    CampaignDraft draft;
    draft.name = QStringLiteral("Lantern festival");
    draft.totalCents = 1000;
    draft.count = 5;
    draft.seed = 42;
    const qint64 id = campaigns.create(draft, now).id;
    campaigns.launch(id);
    GrabService grabs(*m_redis, *m_keys);
    for (qint64 uid = 1; uid <= 3; ++uid)
        QCOMPARE(grabs.grab(id, uid, now).status, QStringLiteral("ok"));
    const QByteArray tasks = m_keys->campaignTasks(id);
    const QByteArray backup = m_keys->campaignBackup(id, DeadWorker);
    QByteArrayList raw;  // oldest first
    for (const RedisValue &value : m_redis->command({"LRANGE", tasks, "0", "-1"}).elements)
        raw.prepend(value.toBytes());
    QCOMPARE(raw.size(), 3);

    // The crash: what the dead worker leaves in its backup list. It had registered (the set).
    if (crash == Crash::AfterPaying) {
        drain(DeadWorker);
        for (const QByteArray &entry : std::as_const(raw))
            m_redis->command({"LPUSH", backup, entry});
    } else {
        drain(DeadWorker, 1, true);  // the oldest task done...
        m_redis->command({"LPUSH", backup, raw.first()});  // ...but not acknowledged
        ReliableQueue(tasks, backup, m_keys->campaignDeadLetter(id)).claim(*m_redis, 10);
    }
    m_redis->command({"SADD", m_keys->workerSet(), DeadWorker.toUtf8()});
    QCOMPARE(llen(backup), 3);
    QCOMPARE(llen(tasks), 0);

    startView();
    const RecoveryTaskModel *model = m_view->taskModel();
    QCOMPARE(model->rowCount(), 1);
    const QModelIndex worker = model->index(0, 0);
    QCOMPARE(worker.data(RecoveryTaskModel::WorkerRole).toString(), DeadWorker);
    QCOMPARE(model->rowCount(worker), 3);
    const int completed = crash == Crash::AfterPaying ? 3 : 1;
    for (int row = 0; row < 3; ++row) {
        const QModelIndex task = model->index(row, 0, worker);
        const bool done = row < completed;  // oldest first; the done ones are the oldest
        QCOMPARE(Outcome(task.data(RecoveryTaskModel::OutcomeRole).toInt()), done ? Outcome::Complete : Outcome::Requeue);
        QCOMPARE(model->index(row, RecoveryTaskModel::Payout, worker).data().toString(), done ? QStringLiteral("Paid") : QStringLiteral("No payout row"));
        // Each task's own grab row, from the one read of the list's (issue 26).
        QCOMPARE(model->index(row, RecoveryTaskModel::Persisted, worker).data().toString(),
                 done ? QStringLiteral("Grab row saved") : QStringLiteral("No grab row"));
    }
    QCOMPARE(ledgerState(), LedgerState::Waiting);  // held by a dead worker: not checkable yet
    QVERIFY(m_view->ledgerModel()->index(0, RecoveryLedgerModel::Detail).data().toString().contains(QStringLiteral("3 held by dead workers")));

    // Compensate the selected worker, as operator "oncall".
    m_view->taskTree()->selectionModel()->select(m_view->taskTree()->model()->index(0, 0),
                                                 QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QSignalSpy done(m_view.get(), &RecoveryView::jobDone);
    QSignalSpy loaded(m_view.get(), &RecoveryView::loaded);
    actAs(m_view->findChild<QPushButton *>(QStringLiteral("compensateButton")), QStringLiteral("oncall"));
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), AnswerTimeoutMs);
    QCOMPARE(llen(backup), 0);
    QCOMPARE(llen(tasks), 3 - completed);
    QCOMPARE(m_redis->command({"SISMEMBER", m_keys->workerSet(), DeadWorker.toUtf8()}).toInteger(), 0);
    QSqlQuery audit = m_sql->exec(QStringLiteral("SELECT actor, target, detail FROM audit_log WHERE action = 'queue.recover'"));
    QVERIFY(audit.next());
    QCOMPARE(audit.value(0).toString(), QStringLiteral("oncall"));
    QCOMPARE(audit.value(1).toString(), DeadWorker);
    const QJsonObject detail = QJsonDocument::fromJson(audit.value(2).toString().toUtf8()).object();
    QCOMPARE(detail.value(QStringLiteral("completed")).toInteger(), completed);
    QCOMPARE(detail.value(QStringLiteral("requeued")).toInteger(), 3 - completed);
    QCOMPARE(detail.value(QStringLiteral("via")).toString(), QStringLiteral("console"));
    QVERIFY(!audit.next());

    // The view reloaded by itself: the dead worker is gone.
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), AnswerTimeoutMs);
    QCOMPARE(model->rowCount(), 0);
    if (crash == Crash::MidBatch) {
        QCOMPARE(ledgerState(), LedgerState::Waiting);  // two re-queued tasks wait for a worker
        drain(QStringLiteral("w-live"));
        waitLoaded();
    }
    QCOMPARE(ledgerState(), LedgerState::Balanced);
    QCOMPARE(m_view->ledgerModel()->index(0, RecoveryLedgerModel::Check).data().toString(), QStringLiteral("Balanced"));
    // Exactly one payout per grab: nothing was paid twice.
    QSqlQuery paid = m_sql->exec(QStringLiteral("SELECT COUNT(*), SUM(amount_cents) FROM payout WHERE campaign_id = ? AND status = 'paid'"), {id});
    QVERIFY(paid.next());
    QCOMPARE(paid.value(0).toInt(), 3);
}

void TestRecoveryView::reconciliationBackfillsLostCheckins_data()
{
    QTest::addColumn<QString>("dialect");
    for (const auto &[name, url] : test::sqlDialects())
        QTest::newRow(qPrintable(name)) << name;
}

void TestRecoveryView::reconciliationBackfillsLostCheckins()
{
    // Two check-ins on the 19th whose log entries were lost (never drained into SQL).
    const QDate day(2025, 3, 19);
    CheckinService checkins(*m_redis, *m_keys, m_config.checkin);
    for (qint64 uid : {701, 702})
        checkins.checkin(uid, day, day, QDateTime(day, QTime(9, 0)).toMSecsSinceEpoch());
    startView();
    QCOMPARE(m_view->reconcileDate()->date(), day);  // yesterday by default
    QCOMPARE(m_view->reconcileDate()->maximumDate(), Today);

    QSignalSpy shown(m_view.get(), &RecoveryView::reconcileShown);
    actAs(m_view->findChild<QPushButton *>(QStringLiteral("reconcileButton")), QStringLiteral("support"));
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty(), AnswerTimeoutMs);
    const auto report = shown.first().at(0).value<ReconcileReport>();
    QCOMPARE(report.redisCount, 2);
    QCOMPARE(report.dbCount, 0);
    QCOMPARE(report.missing, 2);
    QCOMPARE(report.backfilled, 2);
    QVERIFY(m_view->reconcileResult()->text().contains(QStringLiteral("2 missing, 2 back-filled")));
    QSqlQuery rows = m_sql->exec(QStringLiteral("SELECT COUNT(*) FROM checkin_log WHERE day = ?"), {day.toString(Qt::ISODate)});
    QVERIFY(rows.next());
    QCOMPARE(rows.value(0).toInt(), 2);
    QSqlQuery audit = m_sql->exec(QStringLiteral("SELECT actor, target FROM audit_log WHERE action = 'checkin.reconcile'"));
    QVERIFY(audit.next());
    QCOMPARE(audit.value(0).toString(), QStringLiteral("support"));
    QCOMPARE(audit.value(1).toString(), QStringLiteral("2025-03-19"));
}

void TestRecoveryView::heldCheckinsShowTheirLogRows()
{
    // A dead worker holds three check-ins of one list; SQL logged the first and the third (one
    // read for the list, issue 26): those are completed, the second re-queued, though its user
    // has a row of another day and its day a row of another user.
    const QDate day(2025, 3, 19);
    const QByteArray backup = m_keys->checkinBackup(0, DeadWorker);
    const QList<std::pair<qint64, QDate>> held{{801, day}, {801, day.addDays(-1)}, {802, day.addDays(-1)}};
    for (qsizetype i = 0; i < held.size(); ++i) {
        CheckinEntry entry;
        entry.uid = held[i].first;
        entry.date = held[i].second;
        entry.kind = QStringLiteral("normal");
        entry.points = 10;
        entry.atMs = QDateTime(entry.date, QTime(9, 0)).toMSecsSinceEpoch() + i;
        m_redis->command({"LPUSH", backup, entry.toJson()});
    }
    for (const auto &[uid, logged] : {std::pair<qint64, QDate>{801, day}, {802, day.addDays(-1)}})
        m_sql->exec(QStringLiteral("INSERT INTO checkin_log (uid, day, kind, points, signed_at) VALUES (?, ?, 'normal', 10, 1)"),
                    {uid, logged.toString(Qt::ISODate)});
    m_redis->command({"SADD", m_keys->workerSet(), DeadWorker.toUtf8()});

    startView();
    const RecoveryTaskModel *model = m_view->taskModel();
    QCOMPARE(model->rowCount(), 1);
    const QModelIndex worker = model->index(0, 0);
    QCOMPARE(model->rowCount(worker), 3);
    for (int row = 0; row < 3; ++row) {
        const QModelIndex task = model->index(row, 0, worker);
        const bool logged = row != 1;  // oldest first
        QCOMPARE(Outcome(task.data(RecoveryTaskModel::OutcomeRole).toInt()), logged ? Outcome::Complete : Outcome::Requeue);
        QCOMPARE(model->index(row, RecoveryTaskModel::Persisted, worker).data().toString(), logged ? QStringLiteral("Log row saved") : QStringLiteral("No log row"));
    }
}

void TestRecoveryView::headerClickSortsWorkersAndTheirTasks_data()
{
    QTest::addColumn<QString>("dialect");
    QTest::newRow("sqlite") << QStringLiteral("sqlite");
}

void TestRecoveryView::headerClickSortsWorkersAndTheirTasks()
{
    // Two dead workers: w-dead holds four payout tasks (pushed in a shuffled order), w-alpha one.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    CampaignService campaigns(*m_redis, *m_sql, *m_keys);
    CampaignDraft draft;
    draft.name = QStringLiteral("Sorting");
    draft.totalCents = 1000;
    draft.count = 6;
    draft.seed = 7;
    const qint64 id = campaigns.create(draft, now).id;
    campaigns.launch(id);
    GrabService grabs(*m_redis, *m_keys);
    for (qint64 uid = 1; uid <= 5; ++uid)
        QCOMPARE(grabs.grab(id, uid, now).status, QStringLiteral("ok"));
    QByteArrayList raw;
    for (const RedisValue &value : m_redis->command({"LRANGE", m_keys->campaignTasks(id), "0", "-1"}).elements)
        raw << value.toBytes();
    QCOMPARE(raw.size(), 5);
    m_redis->command({"DEL", m_keys->campaignTasks(id)});
    for (const int i : {2, 0, 3, 1})
        m_redis->command({"LPUSH", m_keys->campaignBackup(id, DeadWorker), raw.at(i)});
    m_redis->command({"LPUSH", m_keys->campaignBackup(id, QStringLiteral("w-alpha")), raw.at(4)});
    m_redis->command({"SADD", m_keys->workerSet(), DeadWorker.toUtf8(), "w-alpha"});

    startView();
    QTreeView *tree = m_view->taskTree();
    QAbstractItemModelTester tester(tree->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModel *shown = tree->model();
    QCOMPARE(shown->rowCount(), 2);
    const auto workerAt = [&](int row) { return shown->index(row, 0).data(RecoveryTaskModel::WorkerRole).toString(); };
    const auto taskKeys = [&](int workerRow) {
        QStringList keys;
        const QModelIndex worker = shown->index(workerRow, 0);
        for (int row = 0; row < shown->rowCount(worker); ++row)
            keys << shown->index(row, RecoveryTaskModel::Item, worker).data(QueueFormat::ValueRole).toString();
        return keys;
    };

    // A click on "Queue" (tasks held): the header says the order, the workers follow it.
    QHeaderView *header = tree->header();
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                      QPoint(header->sectionViewportPosition(RecoveryTaskModel::Queue) + header->sectionSize(RecoveryTaskModel::Queue) / 2,
                             header->height() / 2));
    QCOMPARE(header->sortIndicatorSection(), int(RecoveryTaskModel::Queue));
    const bool ascending = header->sortIndicatorOrder() == Qt::AscendingOrder;
    QCOMPARE(workerAt(0), ascending ? QStringLiteral("w-alpha") : DeadWorker);
    QCOMPARE(workerAt(1), ascending ? DeadWorker : QStringLiteral("w-alpha"));

    // By task: workers by id, and each worker's envelopes by seq, both ways.
    tree->sortByColumn(RecoveryTaskModel::Item, Qt::AscendingOrder);
    QCOMPARE(workerAt(0), QStringLiteral("w-alpha"));
    QCOMPARE(workerAt(1), DeadWorker);
    QStringList keys = taskKeys(1);
    QCOMPARE(keys.size(), 4);
    QStringList sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    QCOMPARE(keys, sorted);
    QVERIFY(shown->index(0, RecoveryTaskModel::Item, shown->index(1, 0)).data().toString().startsWith(QStringLiteral("Envelope ")));
    tree->sortByColumn(RecoveryTaskModel::Item, Qt::DescendingOrder);
    QCOMPARE(workerAt(0), DeadWorker);
    std::reverse(sorted.begin(), sorted.end());
    QCOMPARE(taskKeys(0), sorted);

    // The selection names the worker whatever the order: compensation takes that one only.
    tree->selectionModel()->select(shown->index(1, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QSignalSpy done(m_view.get(), &RecoveryView::jobDone);
    actAs(m_view->findChild<QPushButton *>(QStringLiteral("compensateButton")), QStringLiteral("oncall"));
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), AnswerTimeoutMs);
    QCOMPARE(llen(m_keys->campaignBackup(id, QStringLiteral("w-alpha"))), 0);
    QCOMPARE(llen(m_keys->campaignBackup(id, DeadWorker)), 4);
}

LANTERN_WIDGET_TEST_SUITE(TestRecoveryView);

} // namespace tst_recoveryview

#include "tst_recoveryview.moc"
