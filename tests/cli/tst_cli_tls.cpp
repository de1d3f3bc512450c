// lanternd with TLS to Redis on every path of the product: a one-shot command, `work`, `serve`'s
// event loops (check-ins and grabs over HTTP), `verify`, against a redis-server with tls-port
// that the test starts, its certificates made by the test with openssl (server-only and mutual
// TLS). The global options and their LANTERN_ variables; --redis-verify none said on stderr at
// start; each refusal with its exit code and plain words (DESIGN §6, docs/connect.md).
#include "clitest.h"
#include "privatemariadb.h"
#include "serveprocess.h"
#include "testcertificates.h"
#include "testsuite.h"

#include <QDateTime>
#include <QTest>

namespace tst_cli_tls {

using namespace lantern::test;
using namespace lantern::test::cli;

namespace {

const QString Secret = QStringLiteral("tls-test-secret");

QString bearerFor(qint64 uid)
{
    return bearerWithSecret(Secret, uid);
}

} // namespace

class TestCliTls : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase() { dropFreshDatabases(); }
    void everyPathOverTls();
    void optionsOrVariables_data();
    void optionsOrVariables();
    void verifyNoneIsSaidAtStart();
    void refusals_data();
    void refusals();
    void mariaDbOverTls();

private:
    /** Each call takes a fresh key prefix (m_prefix). */
    Lanternd lanterndFor(const QString &redisUrl, const SqlTarget &sql);

    QString m_prefix;
    std::unique_ptr<TestCertificates> m_certs;
    CertificateFiles m_client;
    std::unique_ptr<TlsRedis> m_server;  // server-only TLS; CN=localhost, DNS:localhost, IP:127.0.0.1
    std::unique_ptr<TlsRedis> m_mutual;  // clients need a certificate of the test CA
};

void TestCliTls::initTestCase()
{
    m_certs = std::make_unique<TestCertificates>();
    const QStringList local{QStringLiteral("DNS:localhost"), QStringLiteral("IP:127.0.0.1")};
    m_server = std::make_unique<TlsRedis>(*m_certs, m_certs->issue(QStringLiteral("server"), QStringLiteral("localhost"), local));
    m_mutual = std::make_unique<TlsRedis>(*m_certs, m_certs->issue(QStringLiteral("mutual"), QStringLiteral("localhost"), local), true);
    m_client = m_certs->issue(QStringLiteral("client"), QStringLiteral("lantern-worker"), {});
}

Lanternd TestCliTls::lanterndFor(const QString &redisUrl, const SqlTarget &sql)
{
    m_prefix = uniquePrefix();
    Lanternd lanternd(redisUrl, sql.url, m_prefix, QStringLiteral("2026-03-05"));
    lanternd.defaults.insert(QStringLiteral("token-secret"), Secret);
    return lanternd;
}

void TestCliTls::everyPathOverTls()
{
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    Lanternd lanternd = lanterndFor(m_server->urlText(), sql);
    lanternd.defaults.insert(QStringLiteral("redis-ca"), m_certs->caFile());

    const Result checkin = lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("7")});
    LANTERND_VERIFY_OK(checkin);
    QCOMPARE(checkin.json().value(QStringLiteral("points")).toInt(), 10);
    QVERIFY2(checkin.err.isEmpty(), checkin.err.constData());  // verify full: nothing to warn about
    LANTERND_LAUNCH_CAMPAIGN(campaign, lanternd,
                             (QStringList{QStringLiteral("--name"), QStringLiteral("tls"), QStringLiteral("--total-cents"),
                                          QStringLiteral("1000"), QStringLiteral("--count"), QStringLiteral("4")}));

    // serve: its event loops' pipes reach Redis over TLS too.
    ServeClient server(lanternd);
    QVERIFY2(server.waitListening(), server.stderrText().constData());
    const HttpReply http = server.request("POST", QStringLiteral("/v1/checkin"), bearerFor(8));
    QVERIFY2(http.status == 200, http.describe().constData());
    QCOMPARE(http.json().value(QStringLiteral("points")).toInt(), 10);
    for (qint64 uid = 1; uid <= 5; ++uid) {
        const HttpReply grab = server.request("POST", QStringLiteral("/v1/campaigns/%1/grab").arg(campaign), bearerFor(uid));
        QVERIFY2(grab.status == 200, grab.describe().constData());
        QCOMPARE(grab.json().value(QStringLiteral("status")).toString(), uid <= 4 ? QStringLiteral("ok") : QStringLiteral("sold_out"));
    }
    QCOMPARE(server.stop().first, 0);

    // The worker persists and pays over TLS; the ledger balances.
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("work"), QStringLiteral("--once"), QStringLiteral("--id"), QStringLiteral("w1")}));
    QCOMPARE(sqlNumber(sql.db, QStringLiteral("SELECT COUNT(*) FROM checkin_log")), 2);
    const Result verify = lanternd.run({QStringLiteral("verify"), QStringLiteral("--campaign"), campaign});
    LANTERND_VERIFY_OK(verify);
    QVERIFY2(verify.json().value(QStringLiteral("ok")).toBool(), verify.out.constData());
}

void TestCliTls::optionsOrVariables_data()
{
    QTest::addColumn<bool>("mutual");
    QTest::addColumn<bool>("asVariables");  // LANTERN_REDIS_CA ... instead of --redis-ca ...
    QTest::newRow("server-only TLS, --redis-ca") << false << false;
    QTest::newRow("server-only TLS, LANTERN_REDIS_CA") << false << true;
    QTest::newRow("mutual TLS, --redis-ca --redis-cert --redis-key") << true << false;
    QTest::newRow("mutual TLS, LANTERN_REDIS_CA, _CERT, _KEY") << true << true;
}

void TestCliTls::optionsOrVariables()
{
    QFETCH(bool, mutual);
    QFETCH(bool, asVariables);
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    Lanternd lanternd = lanterndFor((mutual ? m_mutual : m_server)->urlText(QStringLiteral("localhost")), sql);
    QMap<QString, QString> tls{{QStringLiteral("redis-ca"), m_certs->caFile()}};
    if (mutual) {
        tls.insert(QStringLiteral("redis-cert"), m_client.cert);
        tls.insert(QStringLiteral("redis-key"), m_client.key);
    }
    for (auto it = tls.cbegin(); it != tls.cend(); ++it) {
        if (asVariables)
            lanternd.extraEnv.insert(QStringLiteral("LANTERN_") + it.key().toUpper().replace(QLatin1Char('-'), QLatin1Char('_')), it.value());
        else
            lanternd.defaults.insert(it.key(), it.value());
    }
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("11")}));
    if (!mutual)
        return;
    // Without the client certificate, the same server refuses: exit 3, in words.
    Lanternd without = lanterndFor(m_mutual->urlText(), sql);
    without.defaults.insert(QStringLiteral("redis-ca"), m_certs->caFile());
    const Result refused = without.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("12")});
    QCOMPARE(refused.exitCode, 3);
    QVERIFY2(refused.err.contains("--redis-cert"), refused.describe().constData());
}

void TestCliTls::verifyNoneIsSaidAtStart()
{
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    Lanternd lanternd = lanterndFor(m_server->urlText(), sql);
    lanternd.defaults.insert(QStringLiteral("redis-verify"), QStringLiteral("none"));  // no CA: only none lets it in
    const Result result = lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("21")});
    LANTERND_VERIFY_OK(result);
    QVERIFY2(result.err.startsWith("lanternd: warning: TLS to rediss://127.0.0.1:"), result.err.constData());
    QVERIFY2(result.err.contains("checks no certificate (--redis-verify none)"), result.err.constData());

    ServeClient server(lanternd);  // serve says it too, before it listens
    QVERIFY2(server.waitListening(), server.stderrText().constData());
    QVERIFY2(server.stderrText().contains("checks no certificate"), server.stderrText().constData());
    QCOMPARE(server.stop().first, 0);
}

void TestCliTls::refusals_data()
{
    QTest::addColumn<QString>("url");  // %1: the TLS port, %2: the plaintext port
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QStringList>("words");
    const QString ca = QStringLiteral("--redis-ca");
    QTest::newRow("untrusted: the CA not given") << QStringLiteral("rediss://127.0.0.1:%1") << QStringList{} << 3
                                                 << QStringList{QStringLiteral("untrusted certificate"), QStringLiteral("--redis-ca FILE")};
    QTest::newRow("a name mismatch, --redis-sni names another host")
            << QStringLiteral("rediss://127.0.0.1:%1") << QStringList{ca, QStringLiteral("CA"), QStringLiteral("--redis-sni"), QStringLiteral("db.example")}
            << 3 << QStringList{QStringLiteral("for localhost, 127.0.0.1"), QStringLiteral("reached as db.example")};
    QTest::newRow("a plaintext client on the TLS port") << QStringLiteral("redis://127.0.0.1:%1") << QStringList{} << 3
                                                        << QStringList{QStringLiteral("rediss://")};
    QTest::newRow("TLS options with a redis:// URL") << QStringLiteral("redis://127.0.0.1:%2") << QStringList{ca, QStringLiteral("CA")} << 2
                                                     << QStringList{QStringLiteral("use a rediss:// URL")};
    QTest::newRow("an unknown verify mode") << QStringLiteral("rediss://127.0.0.1:%1") << QStringList{QStringLiteral("--redis-verify"), QStringLiteral("host")}
                                            << 2 << QStringList{QStringLiteral("--redis-verify"), QStringLiteral("full (chain and host name)")};
    QTest::newRow("a key without its certificate") << QStringLiteral("rediss://127.0.0.1:%1") << QStringList{QStringLiteral("--redis-key"), QStringLiteral("CA")}
                                                   << 2 << QStringList{QStringLiteral("--redis-cert")};
    QTest::newRow("a CA file that does not exist") << QStringLiteral("rediss://127.0.0.1:%1")
                                                   << QStringList{ca, QStringLiteral("/nonexistent/ca.pem")} << 2
                                                   << QStringList{QStringLiteral("cannot use the Redis CA file /nonexistent/ca.pem")};
}

void TestCliTls::refusals()
{
    QFETCH(QString, url);
    QFETCH(QStringList, options);
    QFETCH(int, exitCode);
    QFETCH(QStringList, words);
    options.replaceInStrings(QStringLiteral("CA"), m_certs->caFile());
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    const Lanternd lanternd = lanterndFor(url.arg(m_server->tlsPort()).arg(m_server->plainPort()), sql);
    const Result result = lanternd.run(QStringList{QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("31")} + options);
    QVERIFY2(result.exitCode == exitCode, result.describe().constData());
    for (const QString &word : words)
        QVERIFY2(result.err.contains(word.toUtf8()), result.describe().constData());
    lantern::RedisClient redis(lantern::RedisUrl::parse(m_server->server().urlText()));  // the plaintext port
    QCOMPARE(snapshotRedis(redis, m_prefix.toUtf8()).keys.size(), 0);  // nothing written
}

void TestCliTls::mariaDbOverTls()
{
    const CertificateFiles cert = m_certs->issue(QStringLiteral("mariadb"), QStringLiteral("localhost"), {QStringLiteral("IP:127.0.0.1")});
    PrivateMariaDb mariadb({QStringLiteral("--ssl-ca=") + m_certs->caFile(), QStringLiteral("--ssl-cert=") + cert.cert,
                            QStringLiteral("--ssl-key=") + cert.key});
    mariadb.createDatabase(QStringLiteral("lantern_cli_tls"));
    mariadb.execAsRoot(QStringLiteral("CREATE USER 'lantern'@'%' IDENTIFIED BY 'pw' REQUIRE SSL"));
    mariadb.execAsRoot(QStringLiteral("GRANT ALL ON lantern_cli_tls.* TO 'lantern'@'%'"));
    const QString db = QStringLiteral("mysql://lantern:pw@127.0.0.1:%1/lantern_cli_tls").arg(mariadb.port());

    // Both servers over TLS: Redis with --redis-ca, MariaDB with --db-ca.
    Lanternd lanternd(m_server->urlText(), db, uniquePrefix(), QStringLiteral("2026-03-05"));
    lanternd.defaults.insert(QStringLiteral("redis-ca"), m_certs->caFile());
    lanternd.extraEnv.insert(QStringLiteral("LANTERN_DB_CA"), m_certs->caFile());
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QStringLiteral("41")}));
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("work"), QStringLiteral("--once"), QStringLiteral("--id"), QStringLiteral("w1")}));
    const Result calendar = lanternd.run({QStringLiteral("calendar"), QStringLiteral("--uid"), QStringLiteral("41")});
    LANTERND_VERIFY_OK(calendar);
    QCOMPARE(calendar.json().value(QStringLiteral("points_balance")).toInt(), 10);  // persisted over TLS

    // The same account without TLS: exit 3, and the words say TLS is what is missing.
    Lanternd plain(m_server->urlText(), db, uniquePrefix(), QStringLiteral("2026-03-05"));
    plain.defaults.insert(QStringLiteral("redis-ca"), m_certs->caFile());
    const Result refused = plain.run({QStringLiteral("migrate")});
    QCOMPARE(refused.exitCode, 3);
    QVERIFY2(refused.err.contains("the account requires TLS (REQUIRE SSL)"), refused.describe().constData());

    // --db-ca is for MySQL and MariaDB.
    const SqlTarget sqlite = freshSql(QStringLiteral("sqlite"));
    Lanternd onSqlite(m_server->urlText(), sqlite.url, uniquePrefix());
    const Result wrong = onSqlite.run({QStringLiteral("migrate"), QStringLiteral("--db-ca"), m_certs->caFile()});
    QCOMPARE(wrong.exitCode, 2);
    QVERIFY2(wrong.err.contains("not SQLite"), wrong.describe().constData());
}

LANTERN_TEST_SUITE(TestCliTls);

} // namespace tst_cli_tls

#include "tst_cli_tls.moc"
