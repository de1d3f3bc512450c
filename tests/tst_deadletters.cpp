// Dead-letter operations against the private Redis and both SQL dialects: pages are bounded and
// newest first; retry and discard act on exactly the chosen entries (a duplicate or an entry
// taken meanwhile is handled by content, not position), and each entry acted on leaves one
// audit_log row with the operator's name — none for an entry that was no longer there.
#include "core/errors.h"
#include "operations/deadletters.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

namespace tst_deadletters {

using namespace lantern;

namespace {

constexpr qint64 Campaign = 7;

QByteArray task(qint64 seq)
{
    return QStringLiteral(R"({"campaign":"%1","seq":"%2","uid":"%3","amount":"%4","at":1700000000000})")
            .arg(Campaign)
            .arg(seq)
            .arg(1000 + seq)
            .arg(100 + seq)
            .toUtf8();
}

struct AuditRow {
    QString actor;
    QString action;
    QString target;
    QJsonObject detail;
};

QList<AuditRow> auditRows(SqlConnection &sql)
{
    QList<AuditRow> rows;
    QSqlQuery query = sql.exec(QStringLiteral("SELECT actor, action, target, detail FROM audit_log ORDER BY id"));
    while (query.next())
        rows << AuditRow{query.value(0).toString(), query.value(1).toString(), query.value(2).toString(),
                         QJsonDocument::fromJson(query.value(3).toString().toUtf8()).object()};
    return rows;
}

} // namespace

class TestDeadLetters final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();

    void listsNameEveryNonEmptyList_data() { dialects(); }
    void listsNameEveryNonEmptyList();
    void pagesAreBoundedNewestFirst_data() { dialects(); }
    void pagesAreBoundedNewestFirst();
    void oldestFirstPagesReadFromTheTail_data() { dialects(); }
    void oldestFirstPagesReadFromTheTail();
    void wholeListIsBoundedWithEveryNote_data() { dialects(); }
    void wholeListIsBoundedWithEveryNote();
    void retryMovesOnlyTheChosenEntries_data() { dialects(); }
    void retryMovesOnlyTheChosenEntries();
    void discardRemovesOnlyTheChosenEntries_data() { dialects(); }
    void discardRemovesOnlyTheChosenEntries();
    void entryTakenMeanwhileIsSkippedAndNotAudited_data() { dialects(); }
    void entryTakenMeanwhileIsSkippedAndNotAudited();
    void takeOldestTakesFromTheEndAndLeavesWhatItIsTold_data() { dialects(); }
    void takeOldestTakesFromTheEndAndLeavesWhatItIsTold();
    void takeOldestMovesNothingWhenTheEndChanged_data() { dialects(); }
    void takeOldestMovesNothingWhenTheEndChanged();
    void aSelectionOfTheOldestIsTakenFromTheEnd_data() { dialects(); }
    void aSelectionOfTheOldestIsTakenFromTheEnd();
    void unknownListIsRefusedBeforeAnythingMoves_data() { dialects(); }
    void unknownListIsRefusedBeforeAnythingMoves();

private:
    void dialects();
    QByteArrayList range(const QByteArray &key);

    std::unique_ptr<RedisClient> m_redis;
    std::unique_ptr<SqlConnection> m_sql;
    std::unique_ptr<KeySchema> m_keys;
};

void TestDeadLetters::dialects()
{
    QTest::addColumn<QString>("dialect");
    for (const auto &[name, url] : test::sqlDialects())
        QTest::newRow(qPrintable(name)) << name;
}

void TestDeadLetters::init()
{
    QFETCH(QString, dialect);
    DbUrl db;
    for (const auto &[name, url] : test::sqlDialects()) {
        if (name == dialect)
            db = url;
    }
    test::resetTables(db);
    m_keys = std::make_unique<KeySchema>(test::uniquePrefix(), 4);
    m_redis = std::make_unique<RedisClient>(test::redisUrl());
    m_sql = std::make_unique<SqlConnection>(db);
    // A launched campaign with a dead-letter list of five tasks (pushed oldest first, as workers do).
    m_redis->command({"SADD", m_keys->campaignSet(), QByteArray::number(Campaign)});
    for (qint64 seq = 1; seq <= 5; ++seq)
        m_redis->command({"LPUSH", m_keys->campaignDeadLetter(Campaign), task(seq)});
}

QByteArrayList TestDeadLetters::range(const QByteArray &key)
{
    QByteArrayList entries;
    for (const RedisValue &value : m_redis->command({"LRANGE", key, "0", "-1"}).elements)
        entries << value.toBytes();
    return entries;
}

void TestDeadLetters::listsNameEveryNonEmptyList()
{
    m_redis->command({"LPUSH", m_keys->checkinDeadLetter(2), "not json"});
    DeadLetters deadLetters(*m_redis, *m_keys);
    const QList<DeadLetterList> lists = deadLetters.lists();
    QCOMPARE(lists.size(), 2);
    QCOMPARE(lists.at(0).name, QStringLiteral("checkin:2"));
    QCOMPARE(lists.at(0).depth, 1);
    QCOMPARE(lists.at(0).queueKey, m_keys->checkinQueue(2));
    QCOMPARE(lists.at(1).name, QStringLiteral("payout:7"));
    QCOMPARE(lists.at(1).depth, 5);
    QCOMPARE(lists.at(1).queueKey, m_keys->campaignTasks(Campaign));
    QCOMPARE(deadLetters.lists(false).size(), 4 + 1);  // every shard and the campaign
}

void TestDeadLetters::pagesAreBoundedNewestFirst()
{
    for (qint64 seq = 6; seq <= 620; ++seq)
        m_redis->command({"LPUSH", m_keys->campaignDeadLetter(Campaign), task(seq)});
    DeadLetters deadLetters(*m_redis, *m_keys);
    const DeadLetterPage first = deadLetters.page(QStringLiteral("payout:7"), 0, 50);
    QCOMPARE(first.depth, 620);
    QCOMPARE(first.entries.size(), 50);
    QCOMPARE(first.entries.first(), task(620));
    const DeadLetterPage last = deadLetters.page(QStringLiteral("payout:7"), 600, 50);
    QCOMPARE(last.entries.size(), 20);
    QCOMPARE(last.entries.last(), task(1));
    QCOMPARE(deadLetters.page(QStringLiteral("payout:7"), 0, 100000).entries.size(), DeadLetters::MaxPage);
    const QByteArrayList oldest = deadLetters.oldest(QStringLiteral("payout:7"), 3);
    QCOMPARE(oldest, (QByteArrayList{task(1), task(2), task(3)}));
}

void TestDeadLetters::oldestFirstPagesReadFromTheTail()
{
    for (qint64 seq = 6; seq <= 120; ++seq)
        m_redis->command({"LPUSH", m_keys->campaignDeadLetter(Campaign), task(seq)});
    DeadLetters deadLetters(*m_redis, *m_keys);
    // Pages of 50 from the oldest end, against the list read here by position.
    QByteArrayList newestFirst = range(m_keys->campaignDeadLetter(Campaign));
    QByteArrayList oldestFirst = newestFirst;
    std::reverse(oldestFirst.begin(), oldestFirst.end());
    QByteArrayList paged;
    QList<qint64> positions;
    for (qint64 offset = 0; offset < 120; offset += 50) {
        const DeadLetterPage page = deadLetters.oldestFirstPage(QStringLiteral("payout:7"), offset, 50);
        QCOMPARE(page.depth, 120);
        QCOMPARE(page.offset, offset);
        QCOMPARE(page.notes.size(), page.entries.size());
        paged += page.entries;
        positions += page.positions;
    }
    QCOMPARE(paged, oldestFirst);
    QCOMPARE(positions.first(), 120);  // the oldest is the list's 120th from the newest end
    QCOMPARE(positions.last(), 1);
    QCOMPARE(paged.first(), task(1));
    // Newest-first pages number their entries from 1 as well.
    QCOMPARE(deadLetters.page(QStringLiteral("payout:7"), 50, 50).positions.first(), 51);
    QCOMPARE(deadLetters.oldestFirstPage(QStringLiteral("payout:7"), 500, 50).entries.size(), 0);
}

void TestDeadLetters::wholeListIsBoundedWithEveryNote()
{
    // Notes: every third entry has none (set aside before notes were kept); tries vary.
    const QByteArray list = m_keys->campaignDeadLetter(Campaign);
    for (qint64 seq = 6; seq <= 130; ++seq)
        m_redis->command({"LPUSH", list, task(seq)});
    const QByteArrayList entries = range(list);
    for (qsizetype i = 0; i < entries.size(); ++i) {
        if (i % 3 == 0)
            continue;
        DeadLetterNote note;
        note.reason = QStringLiteral("provider said %1").arg(char('a' + i % 5));
        note.attempts = int(1 + (i * 7) % 6);
        note.failedAtMs = 1'700'000'000'000 + i;
        m_redis->command({"HSET", DeadLetterNote::notesKey(list), entries.at(i), note.toJson()});
    }
    DeadLetters deadLetters(*m_redis, *m_keys);
    QVERIFY(!deadLetters.whole(QStringLiteral("payout:7"), 129).has_value());  // one too many
    const auto whole = deadLetters.whole(QStringLiteral("payout:7"), 130);
    QVERIFY(whole.has_value());
    QCOMPARE(whole->entries, entries);
    QCOMPARE(whole->notes.size(), entries.size());
    QCOMPARE(whole->positions.last(), 130);

    QCOMPARE(whole->notes.at(1).attempts, 1 + 7 % 6);
    QVERIFY(!whole->notes.at(0).isKnown());
}

void TestDeadLetters::retryMovesOnlyTheChosenEntries()
{
    DeadLetters deadLetters(*m_redis, *m_keys);
    const qint64 acted = applyDeadLettersAudited(deadLetters, *m_sql, DeadLetterAction::Retry, QStringLiteral("payout:7"), {task(2), task(4)},
                                                 QStringLiteral("alice"), QStringLiteral("test"), 1234);
    QCOMPARE(acted, 2);
    QCOMPARE(range(m_keys->campaignTasks(Campaign)), (QByteArrayList{task(4), task(2)}));
    QCOMPARE(range(m_keys->campaignDeadLetter(Campaign)), (QByteArrayList{task(5), task(3), task(1)}));
    const QList<AuditRow> rows = auditRows(*m_sql);
    QCOMPARE(rows.size(), 2);
    for (const AuditRow &row : rows) {
        QCOMPARE(row.actor, QStringLiteral("alice"));
        QCOMPARE(row.action, QStringLiteral("deadletter.retry"));
        QCOMPARE(row.target, QStringLiteral("payout:7"));
        QCOMPARE(row.detail.value(QStringLiteral("via")).toString(), QStringLiteral("test"));
    }
    QCOMPARE(rows.at(0).detail.value(QStringLiteral("entry")).toObject().value(QStringLiteral("seq")).toString(), QStringLiteral("2"));
    QCOMPARE(rows.at(1).detail.value(QStringLiteral("entry")).toObject().value(QStringLiteral("seq")).toString(), QStringLiteral("4"));
}

void TestDeadLetters::discardRemovesOnlyTheChosenEntries()
{
    m_redis->command({"LPUSH", m_keys->checkinDeadLetter(1), "garbage-a"});
    m_redis->command({"LPUSH", m_keys->checkinDeadLetter(1), "garbage-b"});
    DeadLetters deadLetters(*m_redis, *m_keys);
    QCOMPARE(applyDeadLettersAudited(deadLetters, *m_sql, DeadLetterAction::Discard, QStringLiteral("checkin:1"), {"garbage-a"},
                                     QStringLiteral("bob"), QStringLiteral("test"), 1),
             1);
    QCOMPARE(range(m_keys->checkinDeadLetter(1)), QByteArrayList{"garbage-b"});
    QCOMPARE(m_redis->command({"LLEN", m_keys->checkinQueue(1)}).toInteger(), 0);  // discarded, not queued
    QCOMPARE(range(m_keys->campaignDeadLetter(Campaign)).size(), 5);               // other lists untouched
    const QList<AuditRow> rows = auditRows(*m_sql);
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.at(0).action, QStringLiteral("deadletter.discard"));
    QCOMPARE(rows.at(0).actor, QStringLiteral("bob"));
    QCOMPARE(rows.at(0).target, QStringLiteral("checkin:1"));
    QCOMPARE(rows.at(0).detail.value(QStringLiteral("entry")).toString(), QStringLiteral("garbage-a"));
}

void TestDeadLetters::entryTakenMeanwhileIsSkippedAndNotAudited()
{
    DeadLetters deadLetters(*m_redis, *m_keys);
    // Another operator retried task 3 first.
    QCOMPARE(deadLetters.apply(DeadLetterAction::Retry, QStringLiteral("payout:7"), {task(3)}), QList<bool>{true});
    const qint64 acted = applyDeadLettersAudited(deadLetters, *m_sql, DeadLetterAction::Retry, QStringLiteral("payout:7"), {task(3), task(1)},
                                                 QStringLiteral("carol"), QStringLiteral("test"), 1);
    QCOMPARE(acted, 1);
    QCOMPARE(range(m_keys->campaignTasks(Campaign)), (QByteArrayList{task(1), task(3)}));  // task 3 once, not twice
    const QList<AuditRow> rows = auditRows(*m_sql);
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.at(0).detail.value(QStringLiteral("entry")).toObject().value(QStringLiteral("seq")).toString(), QStringLiteral("1"));
}

// Issue 26: Retry all takes from the list's end (deadletter_take.lua), not by value over the
// whole list; what it is told to leave stays where it was, in order, with its note.
void TestDeadLetters::takeOldestTakesFromTheEndAndLeavesWhatItIsTold()
{
    const QByteArray list = m_keys->campaignDeadLetter(Campaign);
    const QByteArray notes = DeadLetterNote::notesKey(list);
    m_redis->command({"RPUSH", list, "junk-a"});  // older than task 1
    for (const QByteArray &entry : {task(1), task(2), task(3), QByteArray("junk-a")})
        m_redis->command({"HSET", notes, entry, R"({"reason":"provider said no"})"});
    DeadLetters deadLetters(*m_redis, *m_keys);
    const QByteArrayList batch = deadLetters.oldest(QStringLiteral("payout:7"), 3);
    QCOMPARE(batch, (QByteArrayList{"junk-a", task(1), task(2)}));
    const std::optional<qint64> acted = takeOldestDeadLettersAudited(deadLetters, *m_sql, DeadLetterAction::Retry, QStringLiteral("payout:7"), 0, batch,
                                                                     {false, true, true}, QStringLiteral("erin"), QStringLiteral("test"), 1);
    QCOMPARE(acted, std::optional<qint64>(2));
    QCOMPARE(range(list), (QByteArrayList{task(5), task(4), task(3), "junk-a"}));
    QCOMPARE(range(m_keys->campaignTasks(Campaign)), (QByteArrayList{task(2), task(1)}));  // task 1 first out, as it came
    QCOMPARE(m_redis->command({"HEXISTS", notes, task(1)}).toInteger(), 0);
    QCOMPARE(m_redis->command({"HEXISTS", notes, task(2)}).toInteger(), 0);
    QCOMPARE(m_redis->command({"HEXISTS", notes, task(3)}).toInteger(), 1);
    QCOMPARE(m_redis->command({"HEXISTS", notes, "junk-a"}).toInteger(), 1);
    QCOMPARE(auditRows(*m_sql).size(), 2);

    // The next batch starts after what was left; a discard queues nothing.
    const QByteArrayList next = deadLetters.oldest(QStringLiteral("payout:7"), 2, 1);
    QCOMPARE(next, (QByteArrayList{task(3), task(4)}));
    QCOMPARE(deadLetters.takeOldest(DeadLetterAction::Discard, QStringLiteral("payout:7"), 1, next, {true, true}), (QList<bool>{true, true}));
    QCOMPARE(range(list), (QByteArrayList{task(5), "junk-a"}));
    QCOMPARE(m_redis->command({"LLEN", m_keys->campaignTasks(Campaign)}).toInteger(), 2);
}

void TestDeadLetters::takeOldestMovesNothingWhenTheEndChanged()
{
    const QByteArray list = m_keys->campaignDeadLetter(Campaign);
    DeadLetters deadLetters(*m_redis, *m_keys);
    const QByteArrayList batch = deadLetters.oldest(QStringLiteral("payout:7"), 3);
    QCOMPARE(batch, (QByteArrayList{task(1), task(2), task(3)}));
    // Another operator retried task 2 meanwhile, and a new dead letter arrived at the head.
    QCOMPARE(deadLetters.apply(DeadLetterAction::Retry, QStringLiteral("payout:7"), {task(2)}), QList<bool>{true});
    m_redis->command({"LPUSH", list, task(6)});
    const QByteArrayList before = range(list);
    QCOMPARE(takeOldestDeadLettersAudited(deadLetters, *m_sql, DeadLetterAction::Retry, QStringLiteral("payout:7"), 0, batch, {true, true, true},
                                          QStringLiteral("erin"), QStringLiteral("test"), 1),
             std::nullopt);
    QCOMPARE(range(list), before);
    QCOMPARE(range(m_keys->campaignTasks(Campaign)), QByteArrayList{task(2)});
    QVERIFY(auditRows(*m_sql).isEmpty());
    // Only an arrival at the head: the end is as read, and the batch goes.
    const QByteArrayList again = deadLetters.oldest(QStringLiteral("payout:7"), 2);
    m_redis->command({"LPUSH", list, task(7)});
    QCOMPARE(deadLetters.takeOldest(DeadLetterAction::Retry, QStringLiteral("payout:7"), 0, again, {true, true}), (QList<bool>{true, true}));
    QCOMPARE(range(list), (QByteArrayList{task(7), task(6), task(5), task(4)}));
}

// The rows an operator picked are the ones retried: picked from the oldest end, task 1 goes from
// there even when a newer copy of it sits at the head; picked elsewhere, by value.
void TestDeadLetters::aSelectionOfTheOldestIsTakenFromTheEnd()
{
    const QByteArray list = m_keys->campaignDeadLetter(Campaign);
    m_redis->command({"LPUSH", list, task(1)});  // list: 1 (newest copy), 5, 4, 3, 2, 1
    DeadLetters deadLetters(*m_redis, *m_keys);
    const QString name = QStringLiteral("payout:7");
    QCOMPARE(applyDeadLetterBatchAudited(deadLetters, *m_sql, DeadLetterAction::Retry, name, 0, {task(1), task(2)}, {true, true}, false,
                                         QStringLiteral("erin"), QStringLiteral("test"), 1),
             2);
    QCOMPARE(range(list), (QByteArrayList{task(1), task(5), task(4), task(3)}));
    // Not the oldest: by value.
    QCOMPARE(applyDeadLetterBatchAudited(deadLetters, *m_sql, DeadLetterAction::Discard, name, 0, {task(4)}, {true}, false,
                                         QStringLiteral("erin"), QStringLiteral("test"), 1),
             1);
    QCOMPARE(range(list), (QByteArrayList{task(1), task(5), task(3)}));
    QCOMPARE(range(m_keys->campaignTasks(Campaign)), (QByteArrayList{task(2), task(1)}));
    QCOMPARE(auditRows(*m_sql).size(), 3);
}

void TestDeadLetters::unknownListIsRefusedBeforeAnythingMoves()
{
    DeadLetters deadLetters(*m_redis, *m_keys);
    for (const QString &name : {QStringLiteral("payout:x"), QStringLiteral("checkin:4"), QStringLiteral("tasks:7"), QStringLiteral("")}) {
        QVERIFY_THROWS_EXCEPTION(InvalidInputError, applyDeadLettersAudited(deadLetters, *m_sql, DeadLetterAction::Discard, name, {task(1)},
                                                                            QStringLiteral("dave"), QStringLiteral("test"), 1));
    }
    QCOMPARE(range(m_keys->campaignDeadLetter(Campaign)).size(), 5);
    QVERIFY(auditRows(*m_sql).isEmpty());
}

LANTERN_TEST_SUITE(TestDeadLetters);

} // namespace tst_deadletters

#include "tst_deadletters.moc"
