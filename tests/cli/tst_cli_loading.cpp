// A Redis that is loading its dataset is an outage, not a crash (issue 15): while a restarted
// redis-server of the test's own really loads a large dataset (slowed by key-load-delay until the
// test lifts it), one-shot commands exit 3, `lanternd serve` answers 503 with Retry-After on every
// endpoint, and a long-running `lanternd work` waits it out and then drains what was queued before
// the restart. No step waits for time: each polls for a state, and the test checks that Redis was
// still loading after every answer it attributes to loading.
#include "clitest.h"
#include "privateredis.h"
#include "serveprocess.h"

#include "redis/keyschema.h"
#include "testsuite.h"
#include "token/usertoken.h"

#include <QDateTime>
#include <QEventLoop>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QScopeGuard>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <csignal>

namespace tst_cli_loading {

using namespace lantern;
using namespace lantern::test;
using namespace lantern::test::cli;

namespace {

// Loading these at key-load-delay's 50 ms a key would take minutes: every test lifts the delay
// (finishLoading) once it has seen what it came for.
constexpr int FillerKeys = 4000;
constexpr int PollTimeoutMs = 60000;
const QString Today = QStringLiteral("2026-03-05");
const QString Secret = QStringLiteral("loading-test-secret");

/** The persistence of a production Redis: every write in the AOF before it is acknowledged. */
QStringList aofOptions()
{
    return {QStringLiteral("--appendonly"), QStringLiteral("yes"), QStringLiteral("--appendfsync"), QStringLiteral("always")};
}

struct HttpReply {
    int status = 0;
    QByteArray body;
    QByteArray retryAfter;

    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QByteArray describe() const { return QByteArray::number(status) + ' ' + body; }
};

HttpReply httpRequest(quint16 port, const QByteArray &method, const QString &path, const QString &bearer = {})
{
    QNetworkAccessManager network;
    network.setProxy(QNetworkProxy::NoProxy);
    QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(path)));
    if (!bearer.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + bearer.toUtf8());
    QNetworkReply *reply = network.sendCustomRequest(request, method);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(15000, &loop, &QEventLoop::quit);  // a hang fails the comparison that follows
    loop.exec();
    HttpReply result;
    if (reply->isFinished()) {
        result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        result.body = reply->readAll();
        result.retryAfter = reply->rawHeader("Retry-After");
    }
    delete reply;
    return result;
}

QString bearerFor(qint64 uid)
{
    return UserTokens(QStringLiteral("lantern"), Secret.toUtf8()).mintBearer(uid, QDateTime::currentSecsSinceEpoch() + 3600);
}

/** lanternd on `server` and `sql`, with the token secret serve needs. */
Lanternd lanterndFor(const PrivateRedis &server, const SqlTarget &sql)
{
    Lanternd lanternd(server.urlText(), sql.url, QStringLiteral("load:"), Today);
    lanternd.defaults.insert(QStringLiteral("token-secret"), Secret);
    return lanternd;
}

/** The state letter of /proc/PID/stat ('T' once a SIGSTOP has taken effect). */
char processState(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return '?';
    const QByteArray text = stat.readAll();
    const qsizetype close = text.lastIndexOf(')');
    return close >= 0 && close + 2 < text.size() ? text.at(close + 2) : '?';
}

/** Restarts `server` on its data, loading slowly; returns once it answers -LOADING. */
void restartLoading(PrivateRedis &server)
{
    server.stop();
    server.start(PrivateRedis::slowLoading());
    QVERIFY2(server.isLoading(), "the restarted server is not loading");
}

#define EXPECT_LOADING_EXIT(result)                                                                                  \
    do {                                                                                                             \
        const Result &lantern_result_ = (result);                                                                    \
        QVERIFY2(lantern_result_.exitCode == 3, lantern_result_.describe().constData());                             \
        QVERIFY2(lantern_result_.out.isEmpty(), lantern_result_.describe().constData());                             \
        QVERIFY2(lantern_result_.err.contains("is loading its dataset"), lantern_result_.describe().constData());    \
        QVERIFY2(lantern_result_.err.contains("try again in a moment"), lantern_result_.describe().constData());     \
    } while (false)

} // namespace

class TestCliLoading : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void oneShotCommandsExit3();
    void serveAnswers503();
    void metricsSayLoadingAndRestart();
    void workerWaitsOutLoadingThenDrains();
};

void TestCliLoading::oneShotCommandsExit3()
{
    PrivateRedis server(aofOptions());
    server.fill(FillerKeys);
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd(server.urlText(), sql.url, QStringLiteral("load:"), Today);
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("1")}));

    restartLoading(server);
    EXPECT_LOADING_EXIT(lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("2")}));
    EXPECT_LOADING_EXIT(lanternd.run({QStringLiteral("calendar"), QStringLiteral("--uid"), QStringLiteral("1"), QStringLiteral("--month"),
                                      QStringLiteral("2026-03")}));
    EXPECT_LOADING_EXIT(lanternd.run({QStringLiteral("grab"), QStringLiteral("--campaign"), QStringLiteral("1"), QStringLiteral("--uid"),
                                      QStringLiteral("2")}));
    EXPECT_LOADING_EXIT(lanternd.run({QStringLiteral("queues")}));
    QVERIFY2(server.isLoading(), "loading ended before the commands ran: their answers prove nothing");

    // Once loaded, the refused check-in goes through and the earlier one is there.
    server.finishLoading();
    const Result second = lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("2")});
    LANTERND_VERIFY_OK(second);
    QCOMPARE(second.json().value(QLatin1String("already")).toBool(), false);
    const Result first = lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("1")});
    LANTERND_VERIFY_OK(first);
    QCOMPARE(first.json().value(QLatin1String("already")).toBool(), true);
}

void TestCliLoading::serveAnswers503()
{
    PrivateRedis server(aofOptions());
    server.fill(FillerKeys);
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd = lanterndFor(server, sql);
    LANTERND_LAUNCH_CAMPAIGN(id, lanternd, (QStringList{QStringLiteral("--name"), QStringLiteral("loading"),
                                                        QStringLiteral("--total-cents"), QStringLiteral("1000"), QStringLiteral("--count"), QStringLiteral("10")}));
    const QString grabPath = QStringLiteral("/v1/campaigns/%1/grab").arg(id);

    restartLoading(server);
    ServeProcess serve(lanternd);
    QVERIFY2(serve.waitListening(), serve.stderrText().constData());
    const HttpReply health = httpRequest(serve.port(), "GET", QStringLiteral("/healthz"));
    QVERIFY2(health.status == 503, health.describe().constData());
    QCOMPARE(health.json().value(QLatin1String("error")).toString(), QStringLiteral("unavailable"));
    QVERIFY2(health.json().value(QLatin1String("message")).toString().contains(QLatin1String("is loading its dataset")), health.body.constData());
    QCOMPARE(health.retryAfter, QByteArrayLiteral("1"));
    const struct {
        QByteArray method;
        QString path;
    } endpoints[] = {{"POST", grabPath},
                     {"GET", QStringLiteral("/v1/campaigns/%1").arg(id)},
                     {"POST", QStringLiteral("/v1/checkin")},
                     {"GET", QStringLiteral("/v1/calendar")}};
    for (const auto &endpoint : endpoints) {
        const HttpReply reply = httpRequest(serve.port(), endpoint.method, endpoint.path, bearerFor(7));
        QVERIFY2(reply.status == 503, QByteArray(endpoint.path.toUtf8() + ": " + reply.describe()).constData());
        QCOMPARE(reply.retryAfter, QByteArrayLiteral("1"));
    }
    QVERIFY2(server.isLoading(), "loading ended before the requests: their answers prove nothing");

    server.finishLoading();
    const HttpReply healthy = httpRequest(serve.port(), "GET", QStringLiteral("/healthz"));
    QVERIFY2(healthy.status == 200, healthy.describe().constData());
    const HttpReply grabbed = httpRequest(serve.port(), "POST", grabPath, bearerFor(7));
    QVERIFY2(grabbed.status == 200, grabbed.describe().constData());
    QCOMPARE(grabbed.json().value(QLatin1String("status")).toString(), QStringLiteral("ok"));
    const auto [exitCode, out] = serve.stop();
    QVERIFY2(exitCode == 0, out.constData());
}

void TestCliLoading::metricsSayLoadingAndRestart()
{
    // What the alerts LanternRedisLoading and LanternRedisRestarted read (issue 27): serve's scrape
    // says Redis is loading (and not up) while it loads, and counts the restart (a new run_id).
    PrivateRedis server(aofOptions());
    server.fill(FillerKeys);
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd = lanterndFor(server, sql);
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("migrate")}));
    ServeProcess serve(lanternd);
    QVERIFY2(serve.waitListening(), serve.stderrText().constData());
    QByteArray scraped = httpRequest(serve.port(), "GET", QStringLiteral("/metrics")).body;
    for (const char *line : {"lantern_redis_up 1\n", "lantern_redis_loading 0\n", "lantern_redis_restarts_total 0\n"})
        QVERIFY2(scraped.contains(line), scraped.constData());

    restartLoading(server);
    const auto scrapedHas = [&](const QByteArrayList &lines) {
        scraped = httpRequest(serve.port(), "GET", QStringLiteral("/metrics")).body;
        return std::all_of(lines.cbegin(), lines.cend(), [&](const QByteArray &line) { return scraped.contains(line); });
    };
    // The first scrape after the restart may still meet the connection the restart cut.
    QTRY_VERIFY2_WITH_TIMEOUT(scrapedHas({"lantern_redis_up 0\n", "lantern_redis_loading 1\n"}), scraped.constData(), PollTimeoutMs);
    QVERIFY2(server.isLoading(), "loading ended before the scrape: it proves nothing");
    server.finishLoading();
    QTRY_VERIFY2_WITH_TIMEOUT(scrapedHas({"lantern_redis_up 1\n", "lantern_redis_loading 0\n", "lantern_redis_restarts_total 1\n"}),
                              scraped.constData(), PollTimeoutMs);
    const auto [exitCode, out] = serve.stop();
    QVERIFY2(exitCode == 0, out.constData());
}

void TestCliLoading::workerWaitsOutLoadingThenDrains()
{
    PrivateRedis server(aofOptions());
    server.fill(FillerKeys);
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const QString prefix = QStringLiteral("load:");
    const Lanternd lanternd(server.urlText(), sql.url, prefix, Today);
    const QString workerId = QStringLiteral("loading-worker");
    const KeySchema keys(prefix);

    WorkerProcess worker(lanternd, workerId);
    QVERIFY(worker.started());
    const auto workerStderr = [&worker]() -> const QByteArray & { return worker.err(); };
    // Its loop runs once it has beaten.
    QTRY_VERIFY2_WITH_TIMEOUT(
            server.command({"EXISTS", keys.workerHeartbeat(workerId)}) == "1" || !worker.running(),
            workerStderr().constData(), PollTimeoutMs);
    QVERIFY2(worker.running(), workerStderr().constData());

    // Frozen, it cannot drain: these check-ins are still queued when Redis restarts.
    QCOMPARE(test::signalChild(worker.pid(), SIGSTOP), 0);
    QTRY_VERIFY_WITH_TIMEOUT(processState(worker.pid()) == 'T', PollTimeoutMs);
    const QList<qint64> uids{11, 12, 13};
    for (const qint64 uid : uids)
        LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QString::number(uid)}));

    restartLoading(server);
    QCOMPARE(test::signalChild(worker.pid(), SIGCONT), 0);
    // It finds its connection broken, reconnects, meets -LOADING and waits, alive.
    QTRY_VERIFY2_WITH_TIMEOUT(workerStderr().contains("is loading its dataset") || !worker.running(),
                              workerStderr().constData(), PollTimeoutMs);
    QVERIFY2(worker.running(), workerStderr().constData());
    QVERIFY2(workerStderr().contains("retrying in"), workerStderr().constData());
    QVERIFY2(server.isLoading(), "loading ended before the worker met it: this proves nothing");
    const QString checkinQuery = QStringLiteral("SELECT COUNT(*) FROM checkin_log WHERE day = ?");
    QCOMPARE(sqlNumber(sql.db, checkinQuery, {Today}), 0LL);

    // Loaded: the check-ins queued before the restart are persisted, by the same process.
    server.finishLoading();
    QTRY_VERIFY2_WITH_TIMEOUT(sqlNumber(sql.db, checkinQuery, {Today}) == qint64(uids.size()) || !worker.running(),
                              workerStderr().constData(), PollTimeoutMs);
    QVERIFY2(worker.running(), workerStderr().constData());
    for (const qint64 uid : uids)
        QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM checkin_log WHERE uid = ? AND day = ?"), {uid, Today}), 1LL);

    QVERIFY2(worker.stop(PollTimeoutMs), workerStderr().constData());
    const QJsonObject stats = QJsonDocument::fromJson(worker.out()).object();
    QCOMPARE(stats.value(QLatin1String("persisted")).toInteger(), qint64(uids.size()));
    QCOMPARE(stats.value(QLatin1String("dead_lettered")).toInteger(), 0LL);
}

LANTERN_TEST_SUITE(TestCliLoading);

} // namespace tst_cli_loading

#include "tst_cli_loading.moc"
