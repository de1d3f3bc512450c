// Transitions audited once (issue 15): ten lanternd processes launch, pause, resume and close one
// campaign at the same moment, round after round; each change writes exactly one audit_log row
// (with the refund every process printed), the repeats print the campaign and write nothing.
// Also the crash catch-up under the same race (Redis moved, the process died before SQL: the next
// invocations record it once) and pauses racing closes. Real binary, both SQL dialects.

#include "clitest.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QJsonDocument>
#include <QRegularExpression>
#include <QSqlQuery>
#include <QTest>

namespace tst_cli_campaign_race {

using namespace lantern::test::cli;
using lantern::KeySchema;
using lantern::LuaScript;
using lantern::RedisClient;
using lantern::SqlConnection;

namespace {

constexpr int Processes = 10;
constexpr int Rounds = 4;
constexpr qint64 TotalCents = 10'000;
constexpr qint64 Envelopes = 10;

void addDialectRows(const char *what)
{
    QTest::addColumn<QString>("dialect");
    for (const QString &dialect : dialects())
        QTest::newRow(qPrintable(dialect + QStringLiteral(": ") + QLatin1String(what))) << dialect;
}

/** `campaign <verb> --id ID` by `Processes` operators at once, each under a name of its own. */
QList<QStringList> sameTransition(const QString &verb, qint64 id)
{
    QList<QStringList> runs;
    for (int i = 1; i <= Processes; ++i)
        runs << QStringList{QStringLiteral("campaign"), verb, QStringLiteral("--id"), QString::number(id), QStringLiteral("--operator"),
                            QStringLiteral("op%1").arg(i)};
    return runs;
}

/** The audit rows of one campaign: action -> the detail of each row. */
QMap<QString, QList<QJsonObject>> auditRows(const lantern::DbUrl &db, qint64 id)
{
    SqlConnection sql(db);
    QSqlQuery query = sql.exec(QStringLiteral("SELECT action, actor, detail FROM audit_log WHERE target = ? ORDER BY id"),
                               {QStringLiteral("campaign:%1").arg(id)});
    QMap<QString, QList<QJsonObject>> rows;
    while (query.next()) {
        QJsonObject detail = QJsonDocument::fromJson(query.value(2).toString().toUtf8()).object();
        detail.insert(QStringLiteral("actor"), query.value(1).toString());
        rows[query.value(0).toString()] << detail;
    }
    return rows;
}

/** "round R: action xN, ..." in action order: one line that shows every count when a comparison fails. */
QString auditCounts(int round, const QMap<QString, QList<QJsonObject>> &rows)
{
    QStringList counts;
    for (auto it = rows.cbegin(); it != rows.cend(); ++it)
        counts << it.key() + QStringLiteral(" x") + QString::number(it.value().size());
    return QStringLiteral("round %1: ").arg(round) + counts.join(QStringLiteral(", "));
}

/** What `status` and `refunded_cents` SQL holds for the campaign, as "closed/9000". */
QString sqlState(const lantern::DbUrl &db, qint64 id)
{
    SqlConnection sql(db);
    QSqlQuery query = sql.exec(QStringLiteral("SELECT status, refunded_cents FROM campaign WHERE id = ?"), {id});
    return query.next() ? query.value(0).toString() + QLatin1Char('/') + query.value(1).toString() : QString();
}

} // namespace

class TestCliCampaignRace final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanupTestCase() { dropFreshDatabases(); }

    void concurrentTransitions_data() { addDialectRows("10 x launch, pause, resume, close at once, 4 rounds -> one audit row each"); }
    void concurrentTransitions();
    void concurrentCatchUp_data() { addDialectRows("Redis moved, SQL not (a crash), then 10 x the same move -> one audit row"); }
    void concurrentCatchUp();
    void pausesRaceCloses_data() { addDialectRows("5 x pause and 5 x close of a live campaign at once -> a pause row only if one paused"); }
    void pausesRaceCloses();

private:
    /** Creates a draft of `Envelopes` envelopes and returns its id (0 on failure). */
    static qint64 createCampaign(const Lanternd &lanternd);
    /** Runs the same transition `Processes` times at once; every run must exit 0 and print the
        same campaign with `status` (and `refunded_cents` when not negative). */
    static void raceTransition(const Lanternd &lanternd, const QString &verb, qint64 id, const QString &status, qint64 refundedCents = -1);
};

qint64 TestCliCampaignRace::createCampaign(const Lanternd &lanternd)
{
    const Result created = lanternd.run({QStringLiteral("campaign"), QStringLiteral("create"), QStringLiteral("--name"), QStringLiteral("race"),
                                         QStringLiteral("--total-cents"), QString::number(TotalCents), QStringLiteral("--count"),
                                         QString::number(Envelopes), QStringLiteral("--seed"), QStringLiteral("7")});
    return created.exitCode == 0 ? created.json().value(QLatin1String("id")).toInteger() : 0;
}

void TestCliCampaignRace::raceTransition(const Lanternd &lanternd, const QString &verb, qint64 id, const QString &status, qint64 refundedCents)
{
    const QList<Result> results = lanternd.runConcurrently(sameTransition(verb, id));
    for (const Result &result : results) {
        LANTERND_VERIFY_OK(result);
        const QJsonObject printed = result.json();
        QCOMPARE(printed.value(QLatin1String("id")).toInteger(), id);
        QCOMPARE(printed.value(QLatin1String("status")).toString(), status);
        if (refundedCents >= 0)
            QCOMPARE(printed.value(QLatin1String("refunded_cents")).toInteger(-1), refundedCents);
    }
}

void TestCliCampaignRace::concurrentTransitions()
{
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const Lanternd lanternd(redisUrlText(), sql.url, lantern::test::uniquePrefix());
    for (int round = 1; round <= Rounds; ++round) {
        const qint64 id = createCampaign(lanternd);
        QVERIFY(id > 0);

        raceTransition(lanternd, QStringLiteral("launch"), id, QStringLiteral("live"));
        if (QTest::currentTestFailed())
            return;
        // Three users grab before the close, so the refund is not simply the total.
        qint64 grabbed = 0;
        for (int uid = 1; uid <= 3; ++uid) {
            const Result grab = lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), QString::number(id), QStringLiteral("--uid"),
                                              QString::number(uid)});
            LANTERND_VERIFY_OK(grab);
            grabbed += grab.json().value(QLatin1String("amount_cents")).toInteger();
        }
        QVERIFY(grabbed > 0);
        raceTransition(lanternd, QStringLiteral("pause"), id, QStringLiteral("paused"));
        raceTransition(lanternd, QStringLiteral("resume"), id, QStringLiteral("live"));
        raceTransition(lanternd, QStringLiteral("close"), id, QStringLiteral("closed"), TotalCents - grabbed);
        if (QTest::currentTestFailed())
            return;

        const QMap<QString, QList<QJsonObject>> rows = auditRows(sql.db, id);
        QCOMPARE(auditCounts(round, rows),
                 QStringLiteral("round %1: campaign.close x1, campaign.create x1, campaign.launch x1, campaign.pause x1, campaign.resume x1").arg(round));
        // Recorded under the name of one of the processes that asked.
        for (const char *action : {"campaign.launch", "campaign.pause", "campaign.resume", "campaign.close"}) {
            const QString actor = rows.value(QLatin1String(action)).constFirst().value(QLatin1String("actor")).toString();
            QVERIFY2(QRegularExpression(QStringLiteral("^op([1-9]|10)$")).match(actor).hasMatch(), qPrintable(actor));
        }
        const QJsonObject closed = rows.value(QStringLiteral("campaign.close")).constFirst();
        QCOMPARE(closed.value(QLatin1String("status")).toString(), QStringLiteral("closed"));
        QCOMPARE(closed.value(QLatin1String("refunded_cents")).toInteger(), TotalCents - grabbed);
        QCOMPARE(rows.value(QStringLiteral("campaign.launch")).constFirst().value(QLatin1String("status")).toString(), QStringLiteral("live"));
        QCOMPARE(sqlState(sql.db, id), QStringLiteral("closed/%1").arg(TotalCents - grabbed));
    }
}

void TestCliCampaignRace::concurrentCatchUp()
{
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const QString prefix = lantern::test::uniquePrefix();
    const Lanternd lanternd(redisUrlText(), sql.url, prefix);
    RedisClient redis(redisUrlOf());
    const KeySchema keys(prefix);
    const LuaScript status(QStringLiteral("campaign_status"));
    for (int round = 1; round <= Rounds; ++round) {
        const qint64 id = createCampaign(lanternd);
        QVERIFY(id > 0);
        LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("campaign"), QStringLiteral("launch"), QStringLiteral("--id"), QString::number(id)}));

        // A pause, then a close, that each moved Redis and died before SQL followed.
        const QByteArrayList campaignKeys{keys.campaignMeta(id), keys.campaignPool(id), keys.campaignRepairLock(id)};
        QCOMPARE(status.run(redis, campaignKeys, {"paused", QByteArray::number(Envelopes)}).elements.at(0).toBytes(), QByteArray("ok"));
        QCOMPARE(sqlState(sql.db, id), QStringLiteral("live/0"));
        raceTransition(lanternd, QStringLiteral("pause"), id, QStringLiteral("paused"));
        QCOMPARE(status.run(redis, campaignKeys, {"closed", QByteArray::number(Envelopes)}).elements.at(0).toBytes(), QByteArray("ok"));
        QCOMPARE(sqlState(sql.db, id), QStringLiteral("paused/0"));
        raceTransition(lanternd, QStringLiteral("close"), id, QStringLiteral("closed"), TotalCents);
        if (QTest::currentTestFailed())
            return;

        const QMap<QString, QList<QJsonObject>> rows = auditRows(sql.db, id);
        QCOMPARE(auditCounts(round, rows),
                 QStringLiteral("round %1: campaign.close x1, campaign.create x1, campaign.launch x1, campaign.pause x1").arg(round));
        QCOMPARE(rows.value(QStringLiteral("campaign.close")).constFirst().value(QLatin1String("refunded_cents")).toInteger(), TotalCents);
        QCOMPARE(sqlState(sql.db, id), QStringLiteral("closed/%1").arg(TotalCents));
    }
}

void TestCliCampaignRace::pausesRaceCloses()
{
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const Lanternd lanternd(redisUrlText(), sql.url, lantern::test::uniquePrefix());
    for (int round = 1; round <= Rounds; ++round) {
        const qint64 id = createCampaign(lanternd);
        QVERIFY(id > 0);
        LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("campaign"), QStringLiteral("launch"), QStringLiteral("--id"), QString::number(id)}));

        QList<QStringList> runs = sameTransition(QStringLiteral("pause"), id).mid(0, Processes / 2);
        runs << sameTransition(QStringLiteral("close"), id).mid(Processes / 2);
        bool somePaused = false;
        for (const Result &result : lanternd.runConcurrently(runs)) {
            // A pause that comes after the close is refused (exit 4) with nothing written.
            if (result.exitCode == 4 && result.out.isEmpty())
                continue;
            LANTERND_VERIFY_OK(result);
            const QString printed = result.json().value(QLatin1String("status")).toString();
            QVERIFY2(printed == QLatin1String("paused") || printed == QLatin1String("closed"), result.describe().constData());
            somePaused = somePaused || printed == QLatin1String("paused");
            if (printed == QLatin1String("closed"))
                QCOMPARE(result.json().value(QLatin1String("refunded_cents")).toInteger(), TotalCents);
        }
        const QString expected = somePaused ? QStringLiteral("round %1: campaign.close x1, campaign.create x1, campaign.launch x1, campaign.pause x1")
                                            : QStringLiteral("round %1: campaign.close x1, campaign.create x1, campaign.launch x1");
        QCOMPARE(auditCounts(round, auditRows(sql.db, id)), expected.arg(round));
        QCOMPARE(sqlState(sql.db, id), QStringLiteral("closed/%1").arg(TotalCents));
    }
}

LANTERN_TEST_SUITE(TestCliCampaignRace);

} // namespace tst_cli_campaign_race

#include "tst_cli_campaign_race.moc"
