// HttpServer, `lanternd serve`'s server, run in this process (no executable) against the
// private Redis: it listens on a port the kernel chose, answers health and check-ins over its
// loops (a check-in once new, then already), refuses a request without a bearer, counts what it
// answered, and stops with the requests under way answered. A bad address and a port another
// socket holds are clear errors.
#include "api/apihandler.h"
#include "core/errors.h"
#include "envelope/campaignservice.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "serve/httpserver.h"
#include "settings/config.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"
#include "token/usertoken.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

namespace tst_httpserver {

using namespace lantern;

namespace {

const QByteArray TokenSecret = QByteArrayLiteral("in-process-serve-secret");

Config serverConfig(const QString &prefix, const DbUrl &db = test::sqliteUrl())
{
    return Config::resolve({{QStringLiteral("redis"), qEnvironmentVariable("LANTERN_TEST_REDIS")},
                            {QStringLiteral("db"), db.redacted()},
                            {QStringLiteral("prefix"), prefix},
                            {QStringLiteral("today"), QStringLiteral("2026-11-23")},
                            {QStringLiteral("token-secret"), QString::fromLatin1(TokenSecret)}},
                           QProcessEnvironment());
}

struct Answer {
    int status = 0;
    QJsonObject json;
};

/** One request on its own connection (Connection: close), read to the end. */
Answer ask(quint16 port, const QByteArray &method, const QByteArray &path, const QByteArray &bearer = {})
{
    QTcpSocket socket;
    socket.connectToHost(QStringLiteral("127.0.0.1"), port);
    if (!socket.waitForConnected(5000))
        return {};
    QByteArray request = method + ' ' + path + " HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: 0\r\n";
    if (!bearer.isEmpty())
        request += "Authorization: Bearer " + bearer + "\r\n";
    socket.write(request + "\r\n");
    QByteArray response;
    while (socket.state() == QAbstractSocket::ConnectedState && socket.waitForReadyRead(5000))
        response += socket.readAll();
    response += socket.readAll();
    const qsizetype bodyAt = response.indexOf("\r\n\r\n");
    if (!response.startsWith("HTTP/1.1 ") || bodyAt < 0)
        return {};
    return {response.mid(9, 3).toInt(), QJsonDocument::fromJson(response.mid(bodyAt + 4)).object()};
}

QByteArray bearerFor(qint64 uid)
{
    return UserTokens(QStringLiteral("lantern"), TokenSecret).mintBearer(uid, QDateTime::currentSecsSinceEpoch() + 3600).toUtf8();
}

} // namespace

class TestHttpServer final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void servesInProcess();
    void campaignOfSubPools();
    void badAddressesAreRefused_data();
    void badAddressesAreRefused();
    void aPortTakenIsAClearError();
};

void TestHttpServer::servesInProcess()
{
    ApiShared shared(serverConfig(test::uniquePrefix()));
    HttpServer server(shared, HttpServer::parseAddress(QStringLiteral("127.0.0.1:0")), 2);
    QVERIFY(server.port() != 0);
    QCOMPARE(server.where(), QStringLiteral("127.0.0.1:%1").arg(server.port()));
    QVERIFY(!shared.redisCluster());  // the private Redis is one server

    const Answer health = ask(server.port(), "GET", "/healthz");
    QCOMPARE(health.status, 200);
    QCOMPARE(health.json.value(QLatin1String("status")).toString(), QStringLiteral("ok"));
    const Answer first = ask(server.port(), "POST", "/v1/checkin", bearerFor(7));
    QCOMPARE(first.status, 200);
    QCOMPARE(first.json.value(QLatin1String("uid")).toInt(), 7);
    QCOMPARE(first.json.value(QLatin1String("already")).toBool(true), false);
    const Answer again = ask(server.port(), "POST", "/v1/checkin", bearerFor(7));
    QCOMPARE(again.json.value(QLatin1String("already")).toBool(false), true);
    QCOMPARE(ask(server.port(), "POST", "/v1/checkin").status, 401);

    server.stop();
    QCOMPARE(shared.metrics().requests(ApiEndpoint::Checkin, 200), quint64(2));
    QCOMPARE(shared.metrics().requests(ApiEndpoint::Checkin, 401), quint64(1));
    QCOMPARE(shared.metrics().requests(ApiEndpoint::Health, 200), quint64(1));
    QCOMPARE(ask(server.port(), "GET", "/healthz").status, 0);  // nothing listens any more
}

void TestHttpServer::campaignOfSubPools()
{
    // Grabs and GET /v1/campaigns/{id} of a campaign of three sub-pools: the pools' counts are
    // summed, and the caller's envelope is read from its home pool.
    const QString prefix = test::uniquePrefix();
    const DbUrl db = test::sqliteUrl();
    test::resetTables(db);
    qint64 id = 0;
    {
        RedisClient redis(RedisUrl::parse(qEnvironmentVariable("LANTERN_TEST_REDIS")));
        SqlConnection sql(db);
        const KeySchema keys(prefix);
        CampaignService service(redis, sql, keys);
        CampaignDraft draft;
        draft.name = QStringLiteral("http pools");
        draft.totalCents = 3'000;
        draft.count = 6;
        draft.pools = 3;
        id = service.create(draft, 1795000000000).id;
        service.launch(id);
    }
    ApiShared shared(serverConfig(prefix, db));
    HttpServer server(shared, HttpServer::parseAddress(QStringLiteral("127.0.0.1:0")), 2);
    const QByteArray path = "/v1/campaigns/" + QByteArray::number(id);
    qint64 cents = 0;
    for (qint64 uid = 1; uid <= 8; ++uid) {
        const Answer grab = ask(server.port(), "POST", path + "/grab", bearerFor(uid));
        QCOMPARE(grab.status, 200);
        const QString status = grab.json.value(QLatin1String("status")).toString();
        QCOMPARE(status, uid <= 6 ? QStringLiteral("ok") : QStringLiteral("sold_out"));  // a dry home pool borrows until all are dry
        cents += grab.json.value(QLatin1String("amount_cents")).toInteger();
        const Answer shown = ask(server.port(), "GET", path, bearerFor(uid));
        QCOMPARE(shown.status, 200);
        QCOMPARE(shown.json.value(QLatin1String("grabbed_count")).toInteger(), std::min<qint64>(uid, 6));
        QCOMPARE(shown.json.value(QLatin1String("remaining_count")).toInteger(), 6 - std::min<qint64>(uid, 6));
        if (uid <= 6)
            QCOMPARE(shown.json.value(QLatin1String("mine")).toObject().value(QLatin1String("envelope")).toInteger(),
                     grab.json.value(QLatin1String("envelope")).toInteger());
        else
            QVERIFY(shown.json.value(QLatin1String("mine")).isNull());
    }
    QCOMPARE(cents, 3'000);
    server.stop();
}

void TestHttpServer::badAddressesAreRefused_data()
{
    QTest::addColumn<QString>("address");
    QTest::newRow("no port") << QStringLiteral("127.0.0.1");
    QTest::newRow("a name, not an address") << QStringLiteral("localhost:8080");
    QTest::newRow("port out of range") << QStringLiteral("127.0.0.1:65536");
    QTest::newRow("not a number") << QStringLiteral("127.0.0.1:http");
    QTest::newRow("empty") << QString();
}

void TestHttpServer::badAddressesAreRefused()
{
    QFETCH(QString, address);
    try {
        HttpServer::parseAddress(address);
        QFAIL("accepted");
    } catch (const InvalidInputError &error) {
        QVERIFY2(error.message().contains(QStringLiteral("expected HOST:PORT")), qPrintable(error.message()));
    }
}

void TestHttpServer::aPortTakenIsAClearError()
{
    QTcpServer holder;  // listens without SO_REUSEPORT: nobody else may bind the port
    QVERIFY(holder.listen(QHostAddress::LocalHost));
    ApiShared shared(serverConfig(test::uniquePrefix()));
    HttpServer::Address address{QHostAddress::LocalHost, holder.serverPort()};
    try {
        HttpServer server(shared, address, 1);
        QFAIL("listened on a port another socket holds");
    } catch (const LanternError &error) {
        QVERIFY2(error.message().startsWith(QStringLiteral("cannot listen on 127.0.0.1:%1").arg(holder.serverPort())),
                 qPrintable(error.message()));
    }
}

LANTERN_TEST_SUITE(TestHttpServer);

} // namespace tst_httpserver

#include "tst_httpserver.moc"
