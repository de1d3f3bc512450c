// lanternd serve (issue 5): the client HTTP API as a real process on a real port, against the
// private Redis and both SQL dialects. Every refusal (401, 400, 404, 405, 429, 503) is checked to
// have written nothing.
#include "clitest.h"
#include "serveprocess.h"
#include "checkin/checkinlayout.h"
#include "envelope/grabservice.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "testservers.h"
#include "token/usertoken.h"
#include "testsuite.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTimer>
#include <QTest>

namespace tst_cli_serve {

using namespace lantern::test::cli;

namespace {

const QString Secret = QStringLiteral("serve-test-secret");

using Reply = HttpReply;
using Server = ServeClient;

QString bearerFor(qint64 uid, qint64 expiresAt = QDateTime::currentSecsSinceEpoch() + 3600)
{
    return lantern::UserTokens(QStringLiteral("lantern"), Secret.toUtf8()).mintBearer(uid, expiresAt);
}

#define REPLY_COMPARE(reply, expectedStatus) QVERIFY2((reply).status == (expectedStatus), (reply).describe().constData())

} // namespace

class TestCliServe : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void cleanupTestCase() { dropFreshDatabases(); }

    void checkinAndCalendar_data() { addDialects(); }
    void checkinAndCalendar();
    void refusalsWriteNothing_data() { addDialects(); }
    void refusalsWriteNothing();
    void grabAndCampaign_data() { addDialects(); }
    void grabAndCampaign();
    void workerPayoutsAreVisible();
    void rateLimit();
    void featureSwitch();
    void redisDown();
    void badServeOptions();

private:
    static void addDialects()
    {
        QTest::addColumn<QString>("dialect");
        for (const QString &dialect : dialects())
            QTest::newRow(qPrintable(dialect)) << dialect;
    }
    Lanternd lanterndFor(const SqlTarget &sql) const
    {
        Lanternd lanternd(redisUrlText(), sql.url, m_prefix, QStringLiteral("2026-03-05"));
        lanternd.defaults.insert(QStringLiteral("token-secret"), Secret);
        return lanternd;
    }

    QString m_prefix;
};

void TestCliServe::init()
{
    m_prefix = lantern::test::uniquePrefix();
}

void TestCliServe::cleanup()
{
    lantern::RedisClient redis(redisUrlOf());
    deleteKeys(redis, m_prefix.toUtf8());
}

void TestCliServe::checkinAndCalendar()
{
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const Lanternd lanternd = lanterndFor(sql);
    Server server(lanternd);
    QVERIFY2(server.waitListening(), server.stderrText().constData());
    const QString bearer = bearerFor(42);

    const Reply first = server.request("POST", QStringLiteral("/v1/checkin"), bearer);
    REPLY_COMPARE(first, 200);
    QCOMPARE(first.headers.value("content-type"), QByteArrayLiteral("application/json"));
    QCOMPARE(first.json(), (QJsonObject{{QStringLiteral("uid"), 42}, {QStringLiteral("date"), QStringLiteral("2026-03-05")},
                                        {QStringLiteral("kind"), QStringLiteral("normal")}, {QStringLiteral("already"), false},
                                        {QStringLiteral("streak"), 1}, {QStringLiteral("month_count"), 1}, {QStringLiteral("points"), 10}}));
    const Reply again = server.request("POST", QStringLiteral("/v1/checkin"), bearer, QByteArrayLiteral("{}"));
    REPLY_COMPARE(again, 200);
    QCOMPARE(again.json().value(QStringLiteral("already")).toBool(), true);
    QCOMPARE(again.json().value(QStringLiteral("points")).toInt(-1), 0);

    // The worker persists it; the calendar shows the day and the persisted balance.
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("work"), QStringLiteral("--once"), QStringLiteral("--id"), QStringLiteral("w1")}));
    const Reply calendar = server.request("GET", QStringLiteral("/v1/calendar?month=2026-03"), bearer);
    REPLY_COMPARE(calendar, 200);
    QCOMPARE(calendar.json().value(QStringLiteral("signed")).toArray(), QJsonArray{5});
    QCOMPARE(calendar.json().value(QStringLiteral("points_balance")).toInteger(-1), 10);
    const Reply current = server.request("GET", QStringLiteral("/v1/calendar"), bearer);
    REPLY_COMPARE(current, 200);
    QCOMPARE(current.json().value(QStringLiteral("month")).toString(), QStringLiteral("2026-03"));
    const Reply other = server.request("GET", QStringLiteral("/v1/calendar?month=2026-02"), bearer);
    QCOMPARE(other.json().value(QStringLiteral("signed")).toArray(), QJsonArray());

    const Reply health = server.request("GET", QStringLiteral("/healthz"));
    REPLY_COMPARE(health, 200);
    QCOMPARE(health.json().value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
    const Reply live = server.request("GET", QStringLiteral("/livez"));
    REPLY_COMPARE(live, 200);
    QCOMPARE(live.body, QByteArray("{\"status\":\"ok\"}"));

    const Reply metrics = server.request("GET", QStringLiteral("/metrics"));
    REPLY_COMPARE(metrics, 200);
    QVERIFY(metrics.headers.value("content-type").startsWith("text/plain"));
    for (const char *line : {"lantern_http_requests_total{endpoint=\"checkin\",code=\"200\"} 2\n",
                             "lantern_http_requests_total{endpoint=\"calendar\",code=\"200\"} 3\n",
                             "lantern_http_requests_total{endpoint=\"livez\",code=\"200\"} 1\n",
                             "lantern_http_request_duration_seconds_count{endpoint=\"checkin\"} 2\n",
                             "lantern_checkins_total{result=\"new\"} 1\n", "lantern_checkins_total{result=\"already\"} 1\n",
                             "lantern_queue_depth{queue=\"checkin\"} 0\n", "lantern_redis_up 1\n"})
        QVERIFY2(metrics.body.contains(line), line);

    const auto [code, out] = server.stop();
    QCOMPARE(code, 0);
    const QJsonObject summary = QJsonDocument::fromJson(out).object();
    QCOMPARE(summary.value(QStringLiteral("requests")).toInteger(-1), 8);  // /metrics itself is counted after it renders
}

void TestCliServe::refusalsWriteNothing()
{
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const Lanternd lanternd = lanterndFor(sql);
    // A live campaign, so grab refusals would have something to take.
    LANTERND_LAUNCH_CAMPAIGN(id, lanternd, (QStringList{QStringLiteral("--name"), QStringLiteral("r"),
                                                        QStringLiteral("--total-cents"), QStringLiteral("1000"), QStringLiteral("--count"), QStringLiteral("10")}));
    Server server(lanternd);
    QVERIFY2(server.waitListening(), server.stderrText().constData());

    const QString good = bearerFor(7);
    QString forged = good;
    forged[forged.size() - 2] = forged.at(forged.size() - 2) == QLatin1Char('A') ? QLatin1Char('B') : QLatin1Char('A');
    const QString expired = bearerFor(7, QDateTime::currentSecsSinceEpoch() - 5);
    const QString otherSecret = lantern::UserTokens(QStringLiteral("lantern"), QByteArrayLiteral("another")).mintBearer(7, QDateTime::currentSecsSinceEpoch() + 60);
    const QString grabPath = QStringLiteral("/v1/campaigns/%1/grab").arg(id);

    struct Row {
        const char *name;
        QByteArray method;
        QString path;
        QString bearer;
        QByteArray body;
        int status;
        const char *error;
    };
    const QList<Row> rows{
            {"checkin: no token", "POST", QStringLiteral("/v1/checkin"), QString(), {}, 401, "unauthorized"},
            {"checkin: forged", "POST", QStringLiteral("/v1/checkin"), forged, {}, 401, "unauthorized"},
            {"checkin: expired", "POST", QStringLiteral("/v1/checkin"), expired, {}, 401, "unauthorized"},
            {"checkin: other secret", "POST", QStringLiteral("/v1/checkin"), otherSecret, {}, 401, "unauthorized"},
            {"checkin: garbage token", "POST", QStringLiteral("/v1/checkin"), QStringLiteral("x.y.z"), {}, 401, "unauthorized"},
            {"grab: no token", "POST", grabPath, QString(), {}, 401, "unauthorized"},
            {"grab: forged", "POST", grabPath, forged, {}, 401, "unauthorized"},
            {"calendar: expired", "GET", QStringLiteral("/v1/calendar"), expired, {}, 401, "unauthorized"},
            {"checkin: malformed JSON", "POST", QStringLiteral("/v1/checkin"), good, "{\"a\":", 400, "bad_request"},
            {"checkin: array body", "POST", QStringLiteral("/v1/checkin"), good, "[1,2]", 400, "bad_request"},
            {"checkin: unknown field", "POST", QStringLiteral("/v1/checkin"), good, "{\"date\":\"2026-03-01\"}", 400, "bad_request"},
            {"checkin: oversized", "POST", QStringLiteral("/v1/checkin"), good, "{\"pad\":\"" + QByteArray(20000, 'x') + "\"}", 400, "bad_request"},
            {"grab: unknown field", "POST", grabPath, good, "{\"amount\":5}", 400, "bad_request"},
            {"grab: string body", "POST", grabPath, good, "\"grab\"", 400, "bad_request"},
            {"grab: id not a number", "POST", QStringLiteral("/v1/campaigns/abc/grab"), good, {}, 400, "bad_request"},
            {"grab: id zero", "POST", QStringLiteral("/v1/campaigns/0/grab"), good, {}, 400, "bad_request"},
            {"grab: id overflows", "POST", QStringLiteral("/v1/campaigns/99999999999999999999/grab"), good, {}, 400, "bad_request"},
            {"grab: id one past int64, 19 digits", "POST", QStringLiteral("/v1/campaigns/9223372036854775808/grab"), good, {}, 400, "bad_request"},
            {"grab: negative id", "POST", QStringLiteral("/v1/campaigns/-1/grab"), good, {}, 400, "bad_request"},
            {"calendar: bad month", "GET", QStringLiteral("/v1/calendar?month=2026-13"), good, {}, 400, "bad_request"},
            {"calendar: unknown parameter", "GET", QStringLiteral("/v1/calendar?uid=1"), good, {}, 400, "bad_request"},
            {"calendar: injection in month", "GET", QStringLiteral("/v1/calendar?month=2026-03%27%3B%20DROP%20TABLE%20grab"), good, {}, 400, "bad_request"},
            {"unknown route", "GET", QStringLiteral("/v1/nothing"), good, {}, 404, "not_found"},
            {"unknown nested route", "POST", QStringLiteral("/v1/campaigns/1/grab/more"), good, {}, 404, "not_found"},
            {"checkin: wrong method", "GET", QStringLiteral("/v1/checkin"), good, {}, 405, "method_not_allowed"},
            {"grab: wrong method", "DELETE", grabPath, good, {}, 405, "method_not_allowed"},
    };

    lantern::RedisClient redis(redisUrlOf());
    const QStringList tables{QStringLiteral("checkin_log"), QStringLiteral("points_ledger"), QStringLiteral("audit_log"),
                             QStringLiteral("grab"), QStringLiteral("payout")};
    const RedisSnapshot redisBefore = snapshotRedis(redis, m_prefix.toUtf8());
    const SqlRowsSnapshot sqlBefore = snapshotSqlRows(sql.db, tables);
    for (const Row &row : rows) {
        const Reply reply = server.request(row.method, row.path, row.bearer, row.body);
        QVERIFY2(reply.status == row.status, QByteArray(QByteArray(row.name) + ": " + reply.describe()).constData());
        QVERIFY2(reply.json().value(QStringLiteral("error")).toString() == QLatin1String(row.error),
                 QByteArray(QByteArray(row.name) + ": " + reply.describe()).constData());
        QVERIFY2(!reply.json().value(QStringLiteral("message")).toString().isEmpty(), row.name);
        if (row.status == 401)
            QCOMPARE(reply.headers.value("www-authenticate"), QByteArrayLiteral("Bearer"));
        if (row.status == 405)
            QVERIFY2(!reply.headers.value("allow").isEmpty(), row.name);
        const RedisSnapshot redisAfter = snapshotRedis(redis, m_prefix.toUtf8());
        QVERIFY2(redisAfter.keys == redisBefore.keys, QByteArray(QByteArray(row.name) + ": " + redisBefore.describeChange(redisAfter)).constData());
    }
    const SqlRowsSnapshot sqlAfter = snapshotSqlRows(sql.db, tables);
    QVERIFY2(sqlAfter == sqlBefore, sqlBefore.describeChange(sqlAfter).constData());

    // The same server still answers a good request.
    REPLY_COMPARE(server.request("POST", grabPath, good), 200);
    QCOMPARE(server.stop().first, 0);
}

void TestCliServe::grabAndCampaign()
{
    QFETCH(QString, dialect);
    const SqlTarget sql = freshSql(dialect);
    const Lanternd lanternd = lanterndFor(sql);
    const Result created = lanternd.run({QStringLiteral("campaign"), QStringLiteral("create"), QStringLiteral("--name"), QStringLiteral("g"),
                                         QStringLiteral("--total-cents"), QStringLiteral("300"), QStringLiteral("--count"), QStringLiteral("3")});
    LANTERND_VERIFY_OK(created);
    const QString id = QString::number(created.json().value(QStringLiteral("id")).toInteger());
    Server server(lanternd);
    QVERIFY2(server.waitListening(), server.stderrText().constData());
    const QString grabPath = QStringLiteral("/v1/campaigns/%1/grab").arg(id);
    const QString showPath = QStringLiteral("/v1/campaigns/%1").arg(id);

    REPLY_COMPARE(server.request("GET", showPath, bearerFor(1)), 404);  // a draft is not public
    QCOMPARE(server.request("POST", grabPath, bearerFor(1)).json().value(QStringLiteral("status")).toString(), QStringLiteral("not_live"));
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("campaign"), QStringLiteral("launch"), QStringLiteral("--id"), id}));

    qint64 sum = 0;
    for (qint64 uid = 1; uid <= 3; ++uid) {
        const Reply reply = server.request("POST", grabPath, bearerFor(uid));
        REPLY_COMPARE(reply, 200);
        QCOMPARE(reply.json().value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(sortedKeys(reply.json()), (QStringList{QStringLiteral("amount_cents"), QStringLiteral("envelope"), QStringLiteral("status")}));
        sum += reply.json().value(QStringLiteral("amount_cents")).toInteger();
    }
    QCOMPARE(sum, 300);
    const Reply again = server.request("POST", grabPath, bearerFor(2));
    QCOMPARE(again.json().value(QStringLiteral("status")).toString(), QStringLiteral("already"));
    QCOMPARE(server.request("POST", grabPath, bearerFor(4)).json().value(QStringLiteral("status")).toString(), QStringLiteral("sold_out"));

    const Reply shown = server.request("GET", showPath, bearerFor(2));
    REPLY_COMPARE(shown, 200);
    QCOMPARE(shown.json().value(QStringLiteral("status")).toString(), QStringLiteral("live"));
    QCOMPARE(shown.json().value(QStringLiteral("remaining_count")).toInteger(-1), 0);
    QCOMPARE(shown.json().value(QStringLiteral("grabbed_count")).toInteger(-1), 3);
    QCOMPARE(shown.json().value(QStringLiteral("mine")).toObject().value(QStringLiteral("amount_cents")).toInteger(),
             again.json().value(QStringLiteral("amount_cents")).toInteger());
    QVERIFY(server.request("GET", showPath, bearerFor(9)).json().value(QStringLiteral("mine")).isNull());

    const Reply metrics = server.request("GET", QStringLiteral("/metrics"));
    for (const char *line : {"lantern_grabs_total{outcome=\"ok\"} 3\n", "lantern_grabs_total{outcome=\"already\"} 1\n",
                             "lantern_grabs_total{outcome=\"sold_out\"} 1\n", "lantern_grabs_total{outcome=\"not_live\"} 1\n"})
        QVERIFY2(metrics.body.contains(line), line);
    QVERIFY(metrics.body.contains(QByteArray("lantern_queue_depth{queue=\"payout:" + id.toUtf8() + "\"} 3\n")));

    // The worker pays exactly what the API handed out.
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("work"), QStringLiteral("--once"), QStringLiteral("--id"), QStringLiteral("w1")}));
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COALESCE(SUM(amount_cents), 0) FROM payout WHERE campaign_id = ? AND status = 'paid'"),
                       {id.toLongLong()}),
             300);
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("verify"), QStringLiteral("--campaign"), id}));
    QCOMPARE(server.stop().first, 0);
}

void TestCliServe::workerPayoutsAreVisible()
{
    // A long-running worker paying through a provider that fails a third of its calls says what it
    // did with each beat: `queues` and /metrics show its payouts, calls out and provider errors.
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd = lanterndFor(sql);
    constexpr qint64 Envelopes = 40;
    LANTERND_LAUNCH_CAMPAIGN(idText, lanternd, (QStringList{QStringLiteral("--name"), QStringLiteral("v"),
                                                            QStringLiteral("--total-cents"), QStringLiteral("4000"), QStringLiteral("--count"), QString::number(Envelopes)}));
    const qint64 id = idText.toLongLong();
    lantern::RedisClient redis(redisUrlOf());
    const lantern::KeySchema keys(m_prefix);
    lantern::GrabService grabs(redis, keys);
    for (qint64 uid = 1; uid <= Envelopes; ++uid)
        QCOMPARE(grabs.grab(id, uid, 1).status, QStringLiteral("ok"));

    QProcess worker;
    QProcessEnvironment environment = sandboxEnvironment();
    environment.insert(QStringLiteral("LANTERN_PAYOUT_FAIL_RATE"), QStringLiteral("0.3"));
    environment.insert(QStringLiteral("LANTERN_HEARTBEAT_TTL_S"), QStringLiteral("1"));
    worker.setProcessEnvironment(environment);
    worker.start(QStringLiteral(LANTERND_PATH), lanternd.withDefaults({QStringLiteral("work"), QStringLiteral("--id"), QStringLiteral("w-fig")}));
    QVERIFY(worker.waitForStarted());
    const auto stopWorker = qScopeGuard([&worker] {
        worker.terminate();
        worker.waitForFinished(10000);
    });

    // Every envelope paid, then a beat that says so.
    QJsonObject figures;
    const auto allPaidReported = [&] {
        const Result shown = lanternd.run({QStringLiteral("queues")});
        const QJsonArray workers = shown.json().value(QStringLiteral("workers")).toArray();
        figures = workers.isEmpty() ? QJsonObject() : workers.at(0).toObject().value(QStringLiteral("payouts")).toObject();
        return figures.value(QStringLiteral("paid")).toInteger() == Envelopes;
    };
    QTRY_VERIFY_WITH_TIMEOUT(allPaidReported(), 30000);
    QCOMPARE(sortedKeys(figures), (QStringList{QStringLiteral("calls"), QStringLiteral("in_flight"), QStringLiteral("paid"),
                                               QStringLiteral("paid_per_s"), QStringLiteral("provider_errors")}));
    const qint64 calls = figures.value(QStringLiteral("calls")).toInteger();
    const qint64 errors = figures.value(QStringLiteral("provider_errors")).toInteger();
    QCOMPARE(calls, Envelopes + errors);  // every call ended paid or not, and every envelope is paid
    QVERIFY(errors > 0);
    QCOMPARE(figures.value(QStringLiteral("in_flight")).toInteger(-1), 0);
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ? AND status = 'paid'"), {id}), Envelopes);

    Server server(lanternd);
    QVERIFY2(server.waitListening(), server.stderrText().constData());
    const Reply metrics = server.request("GET", QStringLiteral("/metrics"));
    REPLY_COMPARE(metrics, 200);
    for (const QByteArray &line : QByteArrayList{QByteArray("lantern_worker_payouts_paid_total{worker=\"w-fig\"} ") + QByteArray::number(Envelopes) + '\n',
                                   QByteArray("lantern_worker_payout_calls_total{worker=\"w-fig\"} ") + QByteArray::number(calls) + '\n',
                                   QByteArray("lantern_worker_payout_provider_errors_total{worker=\"w-fig\"} ") + QByteArray::number(errors) + '\n',
                                   QByteArray("lantern_worker_payouts_in_flight{worker=\"w-fig\"} 0\n"),
                                   QByteArray("# TYPE lantern_worker_payouts_per_second gauge\nlantern_worker_payouts_per_second{worker=\"w-fig\"} ")})
        QVERIFY2(metrics.body.contains(line), line.constData());
    QCOMPARE(server.stop().first, 0);
}

void TestCliServe::rateLimit()
{
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd = lanterndFor(sql);
    Server server(lanternd, {QStringLiteral("--rate-checkin"), QStringLiteral("1/2")});
    QVERIFY2(server.waitListening(), server.stderrText().constData());

    // 1 token a second, burst 2: of 10 back-to-back requests at most 2 + (elapsed seconds) + 1 pass.
    QElapsedTimer clock;
    clock.start();
    int passed = 0;
    int limited = 0;
    for (qint64 uid = 1; uid <= 10; ++uid) {
        const Reply reply = server.request("POST", QStringLiteral("/v1/checkin"), bearerFor(uid));
        if (reply.status == 200) {
            ++passed;
        } else {
            REPLY_COMPARE(reply, 429);
            QCOMPARE(reply.json().value(QStringLiteral("error")).toString(), QStringLiteral("rate_limited"));
            QVERIFY(reply.headers.value("retry-after").toInt() >= 1);
            ++limited;
        }
    }
    const double elapsedS = clock.elapsed() / 1000.0;
    QVERIFY2(passed >= 2 && passed <= 3 + int(elapsedS), qPrintable(QStringLiteral("%1 passed in %2 s").arg(passed).arg(elapsedS)));
    if (elapsedS < 7.0)
        QVERIFY(limited >= 1);
    // Only the check-ins that passed were written.
    lantern::RedisClient redis(redisUrlOf());
    const lantern::KeySchema keys(m_prefix);
    qint64 queued = 0;
    for (int shard = 0; shard < keys.shards(); ++shard)
        queued += redis.command({QByteArrayLiteral("LLEN"), keys.checkinQueue(shard)}).toInteger();
    QCOMPARE(queued, qint64(passed));
    // Other endpoints have their own buckets.
    REPLY_COMPARE(server.request("GET", QStringLiteral("/v1/calendar"), bearerFor(1)), 200);
    QCOMPARE(server.stop().first, 0);
}

void TestCliServe::featureSwitch()
{
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd = lanterndFor(sql);
    Server server(lanternd);
    QVERIFY2(server.waitListening(), server.stderrText().constData());
    REPLY_COMPARE(server.request("POST", QStringLiteral("/v1/checkin"), bearerFor(1)), 200);

    const Result off = lanternd.run({QStringLiteral("switch"), QStringLiteral("--feature"), QStringLiteral("checkin"), QStringLiteral("--state"),
                                     QStringLiteral("off"), QStringLiteral("--operator"), QStringLiteral("oncall")});
    LANTERND_VERIFY_OK(off);
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = 'api.switch' AND actor = 'oncall'")), 1);
    // Every server thread rereads the switches within a second.
    Reply refused;
    qint64 probe = 100;  // a new user per try: the refused one must not have been written
    QTRY_VERIFY_WITH_TIMEOUT((refused = server.request("POST", QStringLiteral("/v1/checkin"), bearerFor(++probe))).status == 503, 10000);
    QCOMPARE(refused.json().value(QStringLiteral("error")).toString(), QStringLiteral("switched_off"));
    QVERIFY(!refused.headers.value("retry-after").isEmpty());
    // Grabs are not affected by the check-in switch.
    QCOMPARE(server.request("POST", QStringLiteral("/v1/campaigns/1/grab"), bearerFor(2)).json().value(QStringLiteral("status")).toString(),
             QStringLiteral("not_live"));
    // Nothing was written for the refused user.
    lantern::RedisClient redis(redisUrlOf());
    const lantern::KeySchema keys(m_prefix);
    const lantern::CheckinLayout layout(keys);
    QCOMPARE(lantern::CheckinLayout::word(redis.command(layout.readSign(probe, QDate(2026, 3, 1)))), 0u);
    QVERIFY(lantern::CheckinLayout::word(redis.command(layout.readSign(1, QDate(2026, 3, 1)))) != 0);

    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("switch"), QStringLiteral("--feature"), QStringLiteral("checkin"), QStringLiteral("--state"),
                                     QStringLiteral("on")}));
    QTRY_COMPARE_WITH_TIMEOUT(server.request("POST", QStringLiteral("/v1/checkin"), bearerFor(3)).status, 200, 10000);

    const Result bad = lanternd.run({QStringLiteral("switch"), QStringLiteral("--feature"), QStringLiteral("payout"), QStringLiteral("--state"),
                                     QStringLiteral("off")});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("unknown feature"));
    QCOMPARE(server.stop().first, 0);
}

void TestCliServe::redisDown()
{
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    Lanternd lanternd = lanterndFor(sql);
    lanternd.defaults.insert(QStringLiteral("redis"), unreachableRedisUrl());
    Server server(lanternd);
    QVERIFY2(server.waitListening(), server.stderrText().constData());
    QElapsedTimer clock;
    clock.start();
    const Reply checkin = server.request("POST", QStringLiteral("/v1/checkin"), bearerFor(1));
    REPLY_COMPARE(checkin, 503);
    QCOMPARE(checkin.json().value(QStringLiteral("error")).toString(), QStringLiteral("unavailable"));
    QCOMPARE(checkin.headers.value("retry-after"), QByteArrayLiteral("1"));
    REPLY_COMPARE(server.request("POST", QStringLiteral("/v1/campaigns/1/grab"), bearerFor(1)), 503);
    REPLY_COMPARE(server.request("GET", QStringLiteral("/healthz")), 503);
    REPLY_COMPARE(server.request("GET", QStringLiteral("/livez")), 200);  // alive, if not ready
    const Reply metrics = server.request("GET", QStringLiteral("/metrics"));
    REPLY_COMPARE(metrics, 200);
    QVERIFY(metrics.body.contains("lantern_redis_up 0\n"));
    QVERIFY(metrics.body.contains("lantern_http_requests_total{endpoint=\"checkin\",code=\"503\"} 1\n"));
    QCOMPARE(server.stop().first, 0);
}

void TestCliServe::badServeOptions()
{
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd withSecret = lanterndFor(sql);
    const Lanternd withoutSecret(redisUrlText(), sql.url, m_prefix);
    struct Row {
        const Lanternd *lanternd;
        QStringList arguments;
        const char *message;
    };
    const QList<Row> rows{
            {&withoutSecret, {QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")}, "token secret"},
            {&withSecret, {QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("localhost")}, "invalid --listen"},
            {&withSecret, {QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:70000")}, "invalid --listen"},
            {&withSecret, {QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("nohost:80")}, "invalid --listen"},
            {&withSecret, {QStringLiteral("serve"), QStringLiteral("--threads"), QStringLiteral("0")}, "--threads"},
            {&withSecret, {QStringLiteral("serve"), QStringLiteral("--rate-grab"), QStringLiteral("fast")}, "invalid rate limit"},
            {&withSecret, {QStringLiteral("serve"), QStringLiteral("--rate-grab"), QStringLiteral("10/0")}, "invalid rate limit"},
            {&withSecret, {QStringLiteral("serve"), QStringLiteral("--uid"), QStringLiteral("1")}, "unknown option"},
            {&withSecret, {QStringLiteral("switch"), QStringLiteral("--feature"), QStringLiteral("grab")}, "--state"},
            {&withSecret, {QStringLiteral("switch"), QStringLiteral("--feature"), QStringLiteral("grab"), QStringLiteral("--state"), QStringLiteral("maybe")},
             "invalid --state"},
    };
    lantern::RedisClient redis(redisUrlOf());
    for (const Row &row : rows) {
        const Result result = row.lanternd->run(row.arguments);
        QVERIFY2(result.exitCode == 2, result.describe().constData());
        QVERIFY2(result.err.contains(row.message), result.describe().constData());
        QVERIFY2(result.out.isEmpty(), result.describe().constData());
    }
    QCOMPARE(snapshotRedis(redis, m_prefix.toUtf8()).keys.size(), 0);
}

LANTERN_TEST_SUITE(TestCliServe);

} // namespace tst_cli_serve

#include "tst_cli_serve.moc"
