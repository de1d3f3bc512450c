// The Queues view against the private Redis and both SQL dialects: depths, oldest ages,
// workers and dead letters on screen; retry and discard through the confirmation dialog move
// only the chosen entries and leave audit rows with the operator's name; a bulk job reports
// progress and stops when cancelled; refresh never stacks requests. No sleeps: the test waits
// on the view's signals.
#include "console/queues/deadlettermodel.h"
#include "console/common/dedicatedthread.h"
#include "console/queues/queueformat.h"
#include "console/queues/queueservice.h"
#include "console/queues/queuetablemodel.h"
#include "console/queues/queueworkermodel.h"
#include "queues/deadletteredit.h"
#include "queues/deadletterpanel.h"
#include "queues/queueconfirmdialog.h"
#include "queues/queuejobbar.h"
#include "queue/reliablequeue.h"
#include "queues/queuesview.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"
#include "common/writeaction.h"

#include <QDateTime>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QToolButton>

namespace tst_queuesview {

using namespace lantern;
using lantern::ui::ConsoleView;
using lantern::ui::DeadLetterEditDialog;
using lantern::ui::DeadLetterPanel;
using lantern::ui::QueueConfirmDialog;
using lantern::ui::QueuesView;

namespace {

constexpr int AnswerTimeoutMs = 15000;
constexpr qint64 Campaign = 4;

QByteArray task(qint64 seq, qint64 atMs)
{
    return QStringLiteral(R"({"campaign":"%1","seq":"%2","uid":"%3","amount":"%4","at":%5})")
            .arg(Campaign)
            .arg(seq)
            .arg(500 + seq)
            .arg(100 * seq)
            .arg(atMs)
            .toUtf8();
}

DbUrl dialectUrl(const QString &dialect)
{
    for (const auto &[name, url] : test::sqlDialects()) {
        if (name == dialect)
            return url;
    }
    return {};
}

} // namespace

class TestQueuesView final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void showsQueuesWorkersAndDeadLetters_data() { dialects(); }
    void showsQueuesWorkersAndDeadLetters();
    void retrySelectedMovesOnlyThoseAndAudits_data() { dialects(); }
    void retrySelectedMovesOnlyThoseAndAudits();
    void discardAllEmptiesTheListAndAuditsEach_data() { dialects(); }
    void discardAllEmptiesTheListAndAuditsEach();
    void refreshNeverStacksRequests_data() { dialects(); }
    void refreshNeverStacksRequests();
    void bulkJobStopsWhenCancelled_data() { dialects(); }
    void bulkJobStopsWhenCancelled();
    void linksOpenWhatTheyName_data() { dialects(); }
    void linksOpenWhatTheyName();
    void notesSayWhyAndUnreadableEntriesAreNotRetried_data() { dialects(); }
    void notesSayWhyAndUnreadableEntriesAreNotRetried();
    void editAndRetryReplacesTheEntry_data() { dialects(); }
    void editAndRetryReplacesTheEntry();
    void readOnlyDisablesRetryAndDiscard_data() { dialects(); }
    void readOnlyDisablesRetryAndDiscard();
    void headerClickSortsTheWholeList_data() { dialects(); }
    void headerClickSortsTheWholeList();
    void enterNeverDiscards_data() { dialects(); }
    void enterNeverDiscards();
    void retryAllLeavesWhatNoWorkerCanRead_data() { dialects(); }
    void retryAllLeavesWhatNoWorkerCanRead();

private:
    void dialects();
    void waitLoaded();
    /** Accepts the confirmation dialog the view opened, as operator `name`. */
    /** Clicks `button` as the session's operator `name`, and accepts the confirmation it opens
        (which names that operator). */
    void actAs(QAbstractButton *button, const QString &name);
    QByteArrayList range(const QByteArray &key);
    int auditRows(const QString &action, const QString &actor);

    Config m_config;
    std::unique_ptr<KeySchema> m_keys;
    std::unique_ptr<RedisClient> m_redis;
    std::unique_ptr<SqlConnection> m_sql;
    std::unique_ptr<DedicatedThread<QueueService>> m_service;
    std::unique_ptr<QueuesView> m_view;
    qint64 m_nowMs = 0;
};

void TestQueuesView::dialects()
{
    QTest::addColumn<QString>("dialect");
    for (const auto &[name, url] : test::sqlDialects())
        QTest::newRow(qPrintable(name)) << name;
}

void TestQueuesView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
}

void TestQueuesView::init()
{
    QFETCH(QString, dialect);
    m_config = Config();
    m_config.redis = test::redisUrl();
    m_config.db = dialectUrl(dialect);
    m_config.keyPrefix = test::uniquePrefix();
    m_config.shards = 4;
    test::resetTables(m_config.db);
    m_keys = std::make_unique<KeySchema>(m_config.keyPrefix, m_config.shards);
    m_redis = std::make_unique<RedisClient>(m_config.redis);
    m_sql = std::make_unique<SqlConnection>(m_config.db);
    m_nowMs = QDateTime::currentMSecsSinceEpoch();

    // Campaign 4: three tasks waiting (the oldest queued 90 s ago), four dead letters (three
    // tasks and one unreadable entry); a live worker, and a dead one holding two tasks.
    m_redis->command({"SADD", m_keys->campaignSet(), QByteArray::number(Campaign)});
    for (qint64 seq = 1; seq <= 3; ++seq)
        m_redis->command({"LPUSH", m_keys->campaignTasks(Campaign), task(seq, m_nowMs - 90'000 + seq * 1000)});
    for (qint64 seq = 11; seq <= 13; ++seq)
        m_redis->command({"LPUSH", m_keys->campaignDeadLetter(Campaign), task(seq, m_nowMs - 600'000)});
    m_redis->command({"LPUSH", m_keys->campaignDeadLetter(Campaign), "{broken"});
    m_redis->command({"SET", m_keys->workerHeartbeat(QStringLiteral("w-live")), QByteArray::number(m_nowMs), "EX", "30"});
    m_redis->command({"SADD", m_keys->workerSet(), "w-live", "w-dead"});
    for (qint64 seq = 21; seq <= 22; ++seq)
        m_redis->command({"LPUSH", m_keys->campaignBackup(Campaign, QStringLiteral("w-dead")), task(seq, m_nowMs - 120'000)});

    m_service = std::make_unique<DedicatedThread<QueueService>>(QStringLiteral("queues"), m_config);
    m_view = std::make_unique<QueuesView>();
    m_view->resize(1100, 760);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    QSignalSpy page(m_view->deadLetters(), &DeadLetterPanel::pageShown);
    m_view->setService(m_service->get());  // refreshes
    waitLoaded();
    QTRY_VERIFY_WITH_TIMEOUT(!page.isEmpty(), AnswerTimeoutMs);
}

void TestQueuesView::cleanup()
{
    m_view.reset();
    m_service.reset();
    m_sql.reset();
    m_redis.reset();
}

void TestQueuesView::waitLoaded()
{
    QSignalSpy loaded(m_view.get(), &QueuesView::loaded);
    QSignalSpy failed(m_view.get(), &QueuesView::failed);
    if (!m_view->isLoading())
        m_view->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty() || !failed.isEmpty(), AnswerTimeoutMs);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.isEmpty() ? QString() : failed.first().at(0).toString()));
}

void TestQueuesView::actAs(QAbstractButton *button, const QString &name)
{
    QVERIFY(m_view->operatorIdentity()->setName(name));
    QTest::mouseClick(button, Qt::LeftButton);
    QueueConfirmDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = m_view->findChild<QueueConfirmDialog *>(QStringLiteral("confirmDialog"))) != nullptr && dialog->isVisible());
    QCOMPARE(dialog->operatorName(), name);
    QTest::mouseClick(dialog->actionButton(), Qt::LeftButton);
}

QByteArrayList TestQueuesView::range(const QByteArray &key)
{
    QByteArrayList entries;
    for (const RedisValue &value : m_redis->command({"LRANGE", key, "0", "-1"}).elements)
        entries << value.toBytes();
    return entries;
}

int TestQueuesView::auditRows(const QString &action, const QString &actor)
{
    QSqlQuery query = m_sql->exec(QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = ? AND actor = ? AND target = ?"),
                                  {action, actor, QStringLiteral("payout:%1").arg(Campaign)});
    return query.next() ? query.value(0).toInt() : -1;
}

void TestQueuesView::showsQueuesWorkersAndDeadLetters()
{
    const QueueTableModel *queues = m_view->queueModel();
    QCOMPARE(queues->rowCount(), 2);
    QCOMPARE(queues->index(0, QueueTableModel::Name).data(QueueTableModel::NameRole).toString(), QStringLiteral("checkin"));
    QCOMPARE(queues->index(1, QueueTableModel::Name).data(QueueTableModel::NameRole).toString(), QStringLiteral("payout:4"));
    QCOMPARE(queues->index(1, QueueTableModel::Depth).data(QueueFormat::ValueRole).toLongLong(), 3);
    const double age = queues->index(1, QueueTableModel::OldestAge).data(QueueFormat::ValueRole).toDouble();
    QVERIFY2(age >= 89 && age < 89 + 60, qPrintable(QString::number(age)));
    QCOMPARE(queues->index(1, QueueTableModel::DeadLetter).data(QueueFormat::ValueRole).toLongLong(), 4);

    const QueueWorkerModel *workers = m_view->workerModel();
    QCOMPARE(workers->rowCount(), 2);
    QCOMPARE(workers->index(0, QueueWorkerModel::Worker).data().toString(), QStringLiteral("w-dead"));
    QCOMPARE(workers->index(0, QueueWorkerModel::State).data(QueueFormat::ValueRole).toBool(), false);
    QCOMPARE(workers->index(0, QueueWorkerModel::InFlight).data(QueueFormat::ValueRole).toLongLong(), 2);
    QCOMPARE(workers->index(1, QueueWorkerModel::State).data(QueueFormat::ValueRole).toBool(), true);

    // A header click sorts the queues by their raw values; until then they keep the model's order.
    QTableView *queueTable = m_view->findChild<QTableView *>(QStringLiteral("queueTable"));
    QVERIFY(queueTable);
    const auto firstQueue = [queueTable] { return queueTable->model()->index(0, QueueTableModel::Name).data(QueueTableModel::NameRole).toString(); };
    QCOMPARE(firstQueue(), QStringLiteral("checkin"));
    queueTable->sortByColumn(QueueTableModel::Depth, Qt::DescendingOrder);
    QCOMPARE(firstQueue(), QStringLiteral("payout:4"));
    queueTable->sortByColumn(QueueTableModel::Depth, Qt::AscendingOrder);
    QCOMPARE(firstQueue(), QStringLiteral("checkin"));

    DeadLetterPanel *panel = m_view->deadLetters();
    QCOMPARE(panel->currentList(), QStringLiteral("payout:4"));
    QCOMPARE(panel->model()->rowCount(), 4);
    QCOMPARE(panel->model()->entryAt(0), QByteArray("{broken"));  // newest first
    QCOMPARE(panel->model()->index(1, DeadLetterModel::Kind).data().toString(), QStringLiteral("Payout"));
    // Inspecting an entry shows its bytes as they are stored, not a re-formatted copy.
    panel->table()->selectRow(1);
    QCOMPARE(panel->inspector()->toPlainText(), QString::fromUtf8(task(13, m_nowMs - 600'000)));
    // Entries set aside before notes were kept say so.
    QCOMPARE(panel->model()->index(1, DeadLetterModel::Reason).data().toString(), QStringLiteral("not recorded"));
    QVERIFY(panel->noteLabel()->text().contains(QStringLiteral("were not recorded")));
    QCOMPARE(m_view->history().samples().size(), 1);
}

void TestQueuesView::retrySelectedMovesOnlyThoseAndAudits()
{
    DeadLetterPanel *panel = m_view->deadLetters();
    QTableView *table = panel->table();
    table->selectionModel()->select(panel->model()->index(1, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    table->selectionModel()->select(panel->model()->index(3, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    const QByteArray first = panel->model()->entryAt(1);
    const QByteArray second = panel->model()->entryAt(3);
    QCOMPARE(first, task(13, m_nowMs - 600'000));
    QCOMPARE(second, task(11, m_nowMs - 600'000));

    QSignalSpy done(panel, &DeadLetterPanel::jobDone);
    QSignalSpy loaded(m_view.get(), &QueuesView::loaded);
    actAs(panel->findChild<QPushButton *>(QStringLiteral("retryButton")), QStringLiteral("alice"));
    QVERIFY(panel->isJobRunning());
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), AnswerTimeoutMs);
    QVERIFY2(done.first().at(0).toString().contains(QStringLiteral("2 entry(s)")), qPrintable(done.first().at(0).toString()));

    const QByteArrayList queue = range(m_keys->campaignTasks(Campaign));
    QCOMPARE(queue.size(), 5);
    QVERIFY(queue.contains(first) && queue.contains(second));
    QCOMPARE(range(m_keys->campaignDeadLetter(Campaign)), (QByteArrayList{"{broken", task(12, m_nowMs - 600'000)}));
    QCOMPARE(auditRows(QStringLiteral("deadletter.retry"), QStringLiteral("alice")), 2);
    QCOMPARE(auditRows(QStringLiteral("deadletter.discard"), QStringLiteral("alice")), 0);

    // The view refreshed itself: the new depths are on screen.
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), AnswerTimeoutMs);
    QCOMPARE(m_view->queueModel()->index(1, QueueTableModel::Depth).data(QueueFormat::ValueRole).toLongLong(), 5);
    QTRY_COMPARE_WITH_TIMEOUT(panel->model()->rowCount(), 2, AnswerTimeoutMs);
}

void TestQueuesView::notesSayWhyAndUnreadableEntriesAreNotRetried()
{
    // A worker gives a task up: the entry goes to the dead letters with its note, atomically.
    const ReliableQueue queue(m_keys->campaignTasks(Campaign), m_keys->campaignBackup(Campaign, QStringLiteral("w-live")),
                              m_keys->campaignDeadLetter(Campaign));
    const QByteArray raw = task(14, m_nowMs - 60'000);
    m_redis->command({"LPUSH", queue.backupKey(), raw});
    queue.deadLetter(*m_redis, raw, {QStringLiteral("provider refused: account frozen"), 3, m_nowMs - 5'000});
    QCOMPARE(m_redis->command({"LLEN", queue.backupKey()}).toInteger(), 0);

    DeadLetterPanel *panel = m_view->deadLetters();
    QSignalSpy page(panel, &DeadLetterPanel::pageShown);
    m_view->refresh();  // the list grew: its page is read again
    QTRY_VERIFY_WITH_TIMEOUT(!page.isEmpty(), AnswerTimeoutMs);
    DeadLetterModel *model = panel->model();
    QCOMPARE(model->entryAt(0), raw);
    QCOMPARE(model->index(0, DeadLetterModel::Reason).data().toString(), QStringLiteral("provider refused: account frozen"));
    QCOMPARE(model->index(0, DeadLetterModel::Attempts).data(QueueFormat::ValueRole).toInt(), 3);
    QCOMPARE(model->index(0, DeadLetterModel::FailedAt).data(QueueFormat::ValueRole).toLongLong(), m_nowMs - 5'000);
    panel->table()->selectRow(0);
    QVERIFY2(panel->noteLabel()->text().contains(QStringLiteral("account frozen")), qPrintable(panel->noteLabel()->text()));
    QVERIFY(panel->noteLabel()->text().contains(QStringLiteral("after 3 tries")));
    QVERIFY(panel->retryButton()->isEnabled());

    // The unreadable entry cannot be retried: a worker could not read it either.
    panel->table()->selectRow(1);
    QCOMPARE(model->entryAt(1), QByteArray("{broken"));
    QVERIFY(!panel->retryButton()->isEnabled());
    QVERIFY(panel->retryButton()->toolTip().contains(QStringLiteral("cannot read")));
    QVERIFY(panel->findChild<QPushButton *>(QStringLiteral("discardButton"))->isEnabled());

    // Retried, the entry leaves with its note.
    panel->table()->selectRow(0);
    QSignalSpy done(panel, &DeadLetterPanel::jobDone);
    actAs(panel->retryButton(), QStringLiteral("carol"));
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), AnswerTimeoutMs);
    QCOMPARE(m_redis->command({"HEXISTS", DeadLetterNote::notesKey(queue.deadLetterKey()), raw}).toInteger(), 0);
    QVERIFY(range(m_keys->campaignTasks(Campaign)).contains(raw));
}

void TestQueuesView::editAndRetryReplacesTheEntry()
{
    DeadLetterPanel *panel = m_view->deadLetters();
    QCOMPARE(panel->model()->entryAt(0), QByteArray("{broken"));
    QVERIFY(m_view->operatorIdentity()->setName(QStringLiteral("dave")));
    panel->table()->selectRow(0);
    DeadLetterEditDialog *dialog = panel->editAndRetry();
    QVERIFY(dialog);
    QCOMPARE(dialog->editor()->toPlainText(), QStringLiteral("{broken"));
    QVERIFY(!dialog->retryButton()->isEnabled());  // unchanged
    dialog->editor()->setPlainText(QStringLiteral("{\"not\": \"a task\"}"));
    QVERIFY(!dialog->retryButton()->isEnabled());  // a worker could not read it either
    const QByteArray fixed = task(15, m_nowMs - 30'000);
    dialog->editor()->setPlainText(QString::fromUtf8(fixed));
    QVERIFY(dialog->retryButton()->isEnabled());
    QSignalSpy done(panel, &DeadLetterPanel::jobDone);
    QTest::mouseClick(dialog->retryButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), AnswerTimeoutMs);
    QVERIFY2(done.first().at(0).toString().contains(QStringLiteral("back on the queue")), qPrintable(done.first().at(0).toString()));
    QVERIFY(!range(m_keys->campaignDeadLetter(Campaign)).contains("{broken"));
    QVERIFY(range(m_keys->campaignTasks(Campaign)).contains(fixed));
    QCOMPARE(auditRows(QStringLiteral("deadletter.edit_retry"), QStringLiteral("dave")), 1);
}

void TestQueuesView::discardAllEmptiesTheListAndAuditsEach()
{
    DeadLetterPanel *panel = m_view->deadLetters();
    QSignalSpy done(panel, &DeadLetterPanel::jobDone);
    actAs(panel->findChild<QPushButton *>(QStringLiteral("discardAllButton")), QStringLiteral("bob"));
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), AnswerTimeoutMs);
    QCOMPARE(range(m_keys->campaignDeadLetter(Campaign)), QByteArrayList());
    QCOMPARE(range(m_keys->campaignTasks(Campaign)).size(), 3);  // nothing queued by a discard
    QCOMPARE(auditRows(QStringLiteral("deadletter.discard"), QStringLiteral("bob")), 4);
    QTRY_COMPARE_WITH_TIMEOUT(panel->currentList(), QString(), AnswerTimeoutMs);  // no list left
    QCOMPARE(panel->model()->rowCount(), 0);
}

void TestQueuesView::refreshNeverStacksRequests()
{
    QSignalSpy requests(m_view.get(), &QueuesView::loadRequested);
    QSignalSpy loaded(m_view.get(), &QueuesView::loaded);
    for (int i = 0; i < 5; ++i)
        m_view->refresh();
    QCOMPARE(requests.size(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 1, AnswerTimeoutMs);
    m_view->refresh();
    QCOMPARE(requests.size(), 2);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 2, AnswerTimeoutMs);
    QCOMPARE(m_view->history().samples().size(), 3);
}

void TestQueuesView::bulkJobStopsWhenCancelled()
{
    // The service on this thread, so the cancel can be sent exactly after the first batch.
    QueueService service(m_config);
    for (qint64 seq = 100; seq < 100 + 3 * QueueService::BatchSize; ++seq)
        m_redis->command({"LPUSH", m_keys->campaignDeadLetter(Campaign), task(seq, m_nowMs)});
    const qint64 before = m_redis->command({"LLEN", m_keys->campaignDeadLetter(Campaign)}).toInteger();
    QSignalSpy progress(&service, &QueueService::jobProgress);
    QSignalSpy finished(&service, &QueueService::jobFinished);
    connect(&service, &QueueService::jobProgress, &service, [&service](quint64 job) { service.cancelJob(job); });
    service.runDeadLetterJob(7, true, QStringLiteral("payout:4"), {}, true, QStringLiteral("carol"));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), AnswerTimeoutMs);
    QCOMPARE(progress.size(), 1);
    QCOMPARE(progress.first().at(1).toLongLong(), QueueService::BatchSize);
    QCOMPARE(progress.first().at(2).toLongLong(), before);
    QCOMPARE(finished.first().at(1).toBool(), true);  // cancelled
    // The first batch, the oldest entries, holds the fixture's unreadable "{broken": it stays.
    QCOMPARE(m_redis->command({"LLEN", m_keys->campaignDeadLetter(Campaign)}).toInteger(), before - QueueService::BatchSize + 1);
    QCOMPARE(m_redis->command({"LLEN", m_keys->campaignTasks(Campaign)}).toInteger(), 3 + QueueService::BatchSize - 1);
    QCOMPARE(auditRows(QStringLiteral("deadletter.retry"), QStringLiteral("carol")), QueueService::BatchSize - 1);
}

void TestQueuesView::linksOpenWhatTheyName()
{
    // The summary's "see Recovery" (a dead worker holds tasks) asks the window for Recovery.
    auto *summary = m_view->findChild<QLabel *>(QStringLiteral("queueSummary"));
    QVERIFY(summary);
    QVERIFY2(summary->text().contains(QStringLiteral("<a href=\"view:recovery\">see Recovery</a>")), qPrintable(summary->text()));
    QSignalSpy open(m_view.get(), &ConsoleView::openView);
    Q_EMIT summary->linkActivated(QStringLiteral("view:recovery"));
    QCOMPARE(open.size(), 1);
    QCOMPARE(open.first().at(0).toString(), QStringLiteral("recovery"));

    // A check-in dead letter as well: two lists. A click on a queue's dead-letter count opens
    // that queue's list (for check-ins, the shard's), and the summary's count the first one.
    m_redis->command({"LPUSH", m_keys->checkinDeadLetter(2), "{not a check-in"});
    waitLoaded();
    DeadLetterPanel *panel = m_view->deadLetters();
    QTableView *queues = m_view->findChild<QTableView *>(QStringLiteral("queueTable"));
    QVERIFY(queues);
    const auto clickDeadLetters = [&](int row) {
        // The table shows the model through its sorting proxy (in the model's order here).
        const QModelIndex cell = queues->model()->index(row, QueueTableModel::DeadLetter);
        QTest::mouseClick(queues->viewport(), Qt::LeftButton, {}, queues->visualRect(cell).center());
    };
    QCOMPARE(m_view->queueModel()->index(0, QueueTableModel::Name).data(QueueTableModel::NameRole).toString(), QStringLiteral("checkin"));
    clickDeadLetters(0);
    QTRY_COMPARE_WITH_TIMEOUT(panel->currentList(), QStringLiteral("checkin:2"), AnswerTimeoutMs);
    QVERIFY(panel->table()->hasFocus());
    clickDeadLetters(1);
    QTRY_COMPARE_WITH_TIMEOUT(panel->currentList(), QStringLiteral("payout:4"), AnswerTimeoutMs);
    QVERIFY2(summary->text().contains(QStringLiteral("<a href=\"dead-letters\"")), qPrintable(summary->text()));
    Q_EMIT summary->linkActivated(QStringLiteral("dead-letters"));
    QTRY_COMPARE_WITH_TIMEOUT(panel->currentList(), QStringLiteral("checkin:2"), AnswerTimeoutMs);
    // A double click on a queue's row, its name say, opens its list too (issue 24, point 10).
    const QModelIndex name = queues->model()->index(1, QueueTableModel::Name);
    QTest::mouseClick(queues->viewport(), Qt::LeftButton, {}, queues->visualRect(name).center());  // a double click's first press
    QTest::mouseDClick(queues->viewport(), Qt::LeftButton, {}, queues->visualRect(name).center());
    QTRY_COMPARE_WITH_TIMEOUT(panel->currentList(), QStringLiteral("payout:4"), AnswerTimeoutMs);
}

// Issue 24, point 3: Discard removes for good, so Enter in its confirmation cancels (as Launch
// and Close do); Retry can be undone, so Enter goes ahead there.
void TestQueuesView::enterNeverDiscards()
{
    DeadLetterPanel *panel = m_view->deadLetters();
    const QByteArrayList before = range(m_keys->campaignDeadLetter(Campaign));
    QVERIFY(m_view->operatorIdentity()->setName(QStringLiteral("erin")));
    for (const char *button : {"discardButton", "discardAllButton"}) {
        panel->table()->selectRow(0);
        QTest::mouseClick(panel->findChild<QPushButton *>(QLatin1String(button)), Qt::LeftButton);
        QueueConfirmDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = m_view->findChild<QueueConfirmDialog *>(QStringLiteral("confirmDialog"))) != nullptr && dialog->isVisible());
        QVERIFY2(dialog->cancelButton()->isDefault(), button);
        QVERIFY(!dialog->actionButton()->isDefault());
        QTest::keyClick(dialog, Qt::Key_Return);
        QTRY_VERIFY(!m_view->findChild<QueueConfirmDialog *>(QStringLiteral("confirmDialog")));  // cancelled, closed and deleted
    }
    QVERIFY(!panel->isJobRunning());
    QCOMPARE(range(m_keys->campaignDeadLetter(Campaign)), before);
    QCOMPARE(auditRows(QStringLiteral("deadletter.discard"), QStringLiteral("erin")), 0);

    // Retry, which a worker undoes by failing again, still goes ahead on Enter.
    panel->table()->selectRow(1);
    QVERIFY(panel->retryButton()->isEnabled());
    QSignalSpy done(panel, &DeadLetterPanel::jobDone);
    QTest::mouseClick(panel->retryButton(), Qt::LeftButton);
    QueueConfirmDialog *retry = nullptr;
    QTRY_VERIFY((retry = m_view->findChild<QueueConfirmDialog *>(QStringLiteral("confirmDialog"))) != nullptr && retry->isVisible());
    QVERIFY(retry->actionButton()->isDefault());
    QTest::keyClick(retry, Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), AnswerTimeoutMs);
    QCOMPARE(auditRows(QStringLiteral("deadletter.retry"), QStringLiteral("erin")), 1);
}

// Issue 24, point 3: Retry all puts back what a worker can read and leaves, and says, what it
// cannot: sent back, it would return at once with its note (its history) lost. Batches run past
// the entries it leaves behind.
void TestQueuesView::retryAllLeavesWhatNoWorkerCanRead()
{
    QueueService service(m_config);
    const QByteArray list = m_keys->campaignDeadLetter(Campaign);
    for (qint64 seq = 200; seq < 200 + 2 * QueueService::BatchSize + 30; ++seq) {
        const QByteArray entry = seq % 37 == 0 ? QByteArray("{unreadable ") + QByteArray::number(seq) : task(seq, m_nowMs);
        m_redis->command({"LPUSH", list, entry});
    }
    QByteArrayList unreadable;
    qint64 readable = 0;
    for (const QByteArray &entry : range(list)) {
        if (DeadLetters::isReadable(QStringLiteral("payout:4"), entry))
            ++readable;
        else
            unreadable << entry;
    }
    QVERIFY(unreadable.size() > 5);
    const qint64 queuedBefore = m_redis->command({"LLEN", m_keys->campaignTasks(Campaign)}).toInteger();
    QSignalSpy finished(&service, &QueueService::jobFinished);
    service.runDeadLetterJob(8, true, QStringLiteral("payout:4"), {}, true, QStringLiteral("carol"));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), AnswerTimeoutMs);
    QCOMPARE(finished.first().at(1).toBool(), false);  // ran to the end
    QCOMPARE(range(list), unreadable);                 // exactly those stay, in their order
    QCOMPARE(m_redis->command({"LLEN", m_keys->campaignTasks(Campaign)}).toInteger(), queuedBefore + readable);
    QCOMPARE(auditRows(QStringLiteral("deadletter.retry"), QStringLiteral("carol")), readable);
    const QString summary = finished.first().at(2).toString();
    QVERIFY2(summary.contains(QStringLiteral("%1 unreadable entr").arg(unreadable.size())), qPrintable(summary));
}

void TestQueuesView::readOnlyDisablesRetryAndDiscard()
{
    DeadLetterPanel *panel = m_view->deadLetters();
    panel->table()->selectRow(1);
    auto *retry = panel->findChild<QPushButton *>(QStringLiteral("retryButton"));
    auto *discardAll = panel->findChild<QPushButton *>(QStringLiteral("discardAllButton"));
    QVERIFY(retry && discardAll);
    const QString ownToolTip = retry->toolTip();
    QVERIFY(retry->isEnabled() && discardAll->isEnabled());

    m_view->setReadOnly(true);
    QVERIFY(!retry->isEnabled() && !discardAll->isEnabled());
    QCOMPARE(retry->toolTip(), lantern::ui::WriteAction::readOnlyReason());
    panel->table()->selectRow(2);  // a new selection does not enable them again
    QVERIFY(!retry->isEnabled());
    panel->retrySelected();  // nor does a call that skips the button
    QVERIFY(!m_view->findChild<QueueConfirmDialog *>(QStringLiteral("confirmDialog")));

    m_view->setReadOnly(false);
    QVERIFY(retry->isEnabled());
    QCOMPARE(retry->toolTip(), ownToolTip);
}

void TestQueuesView::headerClickSortsTheWholeList()
{
    // 120 more dead letters with notes whose tries vary; every third without a note.
    const QByteArray list = m_keys->campaignDeadLetter(Campaign);
    for (qint64 seq = 100; seq < 220; ++seq)
        m_redis->command({"LPUSH", list, task(seq, m_nowMs - 300'000 + seq)});
    const QByteArrayList entries = range(list);  // newest first: position i + 1
    QCOMPARE(entries.size(), 124);
    QList<DeadLetterNote> notes;
    for (qsizetype i = 0; i < entries.size(); ++i) {
        DeadLetterNote note;
        if (i % 3 != 0) {
            note.reason = QStringLiteral("provider said no");
            note.attempts = int(1 + (i * 7) % 6);
            note.failedAtMs = m_nowMs - i;
            m_redis->command({"HSET", DeadLetterNote::notesKey(list), entries.at(i), note.toJson()});
        }
        notes << note;
    }
    // The order wanted, worked out here: by tries, entries without a note last, ties by position.
    const auto wanted = [&](Qt::SortOrder order) {
        QList<qsizetype> at;
        for (qsizetype i = 0; i < entries.size(); ++i)
            at << i;
        std::stable_sort(at.begin(), at.end(), [&](qsizetype a, qsizetype b) {
            if (notes.at(a).isKnown() != notes.at(b).isKnown())
                return notes.at(a).isKnown();
            return order == Qt::AscendingOrder ? notes.at(a).attempts < notes.at(b).attempts : notes.at(a).attempts > notes.at(b).attempts;
        });
        QByteArrayList sorted;
        for (const qsizetype i : std::as_const(at))
            sorted << entries.at(i);
        return sorted;
    };

    // The service's pages: the whole list sorted, cut in pages with no gap or repeat.
    DeadLetters deadLetters(*m_redis, *m_keys);
    const auto whole = deadLetters.whole(QStringLiteral("payout:4"));
    QVERIFY(whole.has_value());
    for (const Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
        QByteArrayList paged;
        for (qint64 offset = 0; offset < entries.size(); offset += 50) {
            const DeadLetterPage page = DeadLetterModel::sortedSlice(*whole, DeadLetterModel::Attempts, order, offset, 50);
            QCOMPARE(page.depth, entries.size());
            QCOMPARE(page.positions.size(), page.entries.size());
            for (qsizetype i = 0; i < page.entries.size(); ++i)
                QCOMPARE(entries.at(page.positions.at(i) - 1), page.entries.at(i));  // positions are places in the list
            paged += page.entries;
        }
        QCOMPARE(paged, wanted(order));
    }

    // In the view: a click on "Tries" sorts the whole list, not the page shown.
    DeadLetterPanel *panel = m_view->deadLetters();
    waitLoaded();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isLoading(), AnswerTimeoutMs);
    QCOMPARE(panel->model()->page().depth, 124);
    QSignalSpy shown(panel, &DeadLetterPanel::pageShown);
    QHeaderView *header = panel->table()->horizontalHeader();
    const auto clickHeader = [&](int column) {
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                          QPoint(header->sectionViewportPosition(column) + header->sectionSize(column) / 2, header->height() / 2));
    };
    clickHeader(DeadLetterModel::Attempts);
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QCOMPARE(panel->sortColumn(), int(DeadLetterModel::Attempts));
    const QByteArrayList byTries = wanted(panel->sortOrder());
    QCOMPARE(panel->model()->page().entries, byTries.mid(0, DeadLetterPanel::PageSize));
    QTest::mouseClick(panel->nextPageButton(), Qt::LeftButton);
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QCOMPARE(panel->model()->page().entries, byTries.mid(DeadLetterPanel::PageSize, DeadLetterPanel::PageSize));

    // A retry of an entry selected on that page moves exactly that entry.
    panel->table()->selectRow(7);
    const QByteArray chosen = panel->model()->entryAt(7);
    QCOMPARE(chosen, byTries.at(DeadLetterPanel::PageSize + 7));
    QSignalSpy done(panel, &DeadLetterPanel::jobDone);
    actAs(panel->retryButton(), QStringLiteral("oncall"));
    QVERIFY(done.wait(AnswerTimeoutMs));
    QVERIFY(range(m_keys->campaignTasks(Campaign)).contains(chosen));
    QByteArrayList left = entries;
    left.removeOne(chosen);
    QCOMPARE(range(list), left);

    // "#" gives position order from either end: the oldest entry first.
    panel->sortBy(DeadLetterModel::Position, Qt::DescendingOrder);
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isLoading() && panel->model()->rowCount() > 0, AnswerTimeoutMs);
    QCOMPARE(panel->model()->entryAt(0), left.constLast());
    QCOMPARE(panel->model()->index(0, DeadLetterModel::Position).data(QueueFormat::ValueRole).toLongLong(), left.size());

    // A list deeper than the service sorts: the click is refused and the view says why.
    const QByteArray deep = m_keys->checkinDeadLetter(1);
    for (int chunk = 0; chunk < 11; ++chunk) {
        QByteArrayList push{"RPUSH", deep};
        for (int i = 0; i < 1000; ++i)
            push << QByteArray("not json ") + QByteArray::number(chunk * 1000 + i);
        m_redis->command(push);
    }
    waitLoaded();
    QVERIFY(panel->selectList(QStringLiteral("checkin:1")));
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isLoading(), AnswerTimeoutMs);
    QSignalSpy notice(panel, &DeadLetterPanel::notice);
    panel->sortBy(DeadLetterModel::Reason, Qt::AscendingOrder);
    QCOMPARE(notice.size(), 1);
    QVERIFY(!panel->isLoading());
    QCOMPARE(panel->sortColumn(), int(DeadLetterModel::Position));
    QCOMPARE(header->sortIndicatorSection(), int(DeadLetterModel::Position));
}

LANTERN_WIDGET_TEST_SUITE(TestQueuesView);

} // namespace tst_queuesview

#include "tst_queuesview.moc"
