// TLS to Redis on both clients (the blocking RedisClient and serve's event-loop RedisPipe)
// against redis-servers of the test's own with tls-port, their certificates made by the test
// with openssl: server-only and mutual TLS, each verify mode, AUTH and SELECT inside TLS, and each
// refusal in plain words within the connect timeout (untrusted, another CA, expired, a name
// mismatch naming both names, a TLS client on a plaintext port and the reverse, a client
// certificate missing or refused, a CA file that cannot be read).
#include "core/errors.h"
#include "pipedriver.h"
#include "redis/redisclient.h"
#include "redis/redisconnection.h"
#include "redis/rediserror.h"
#include "redis/redispipe.h"
#include "testcertificates.h"
#include "testsuite.h"

#include <QElapsedTimer>
#include <QTest>

Q_DECLARE_METATYPE(lantern::RedisUrl)

namespace tst_redistls {

using namespace lantern;
using namespace lantern::test;
using namespace std::chrono_literals;

namespace {

constexpr auto ConnectTimeout = 1000ms;

/** What one command on one path gave. */
struct Attempt {
    QByteArray reply;
    std::exception_ptr error;
    qint64 ms = 0;
};

Attempt attempt(const QString &path, const RedisUrl &url, const QByteArrayList &command = {"PING"})
{
    const RedisOptions options{ConnectTimeout, 2000ms};
    Attempt result;
    QElapsedTimer clock;
    clock.start();
    if (path == QLatin1String("blocking")) {
        try {
            RedisClient client(url, options);
            result.reply = client.command(command).toBytes();
        } catch (...) {
            result.error = std::current_exception();
        }
    } else {
        RedisPipe pipe(url, options);
        const CommandResult outcome = runCommand(pipe, command);
        result.error = outcome.error;
        if (!outcome.error)
            result.reply = outcome.reply.toBytes();
    }
    result.ms = clock.elapsed();
    return result;
}

QString kindOf(const std::exception_ptr &error)
{
    if (holds<RedisTlsError>(error))
        return QStringLiteral("tls");
    if (holds<RedisTimeoutError>(error))
        return QStringLiteral("timeout");
    if (holds<RedisIoError>(error))
        return QStringLiteral("io");
    if (holds<InvalidInputError>(error))
        return QStringLiteral("input");
    return QStringLiteral("other");
}

const QStringList Paths{QStringLiteral("blocking"), QStringLiteral("pipe")};

} // namespace

class TestRedisTls : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void connects_data();
    void connects();
    void refuses_data();
    void refuses();
    void summaryNamesTheCertificate();

private:
    std::unique_ptr<TestCertificates> m_certs;
    CertificateFiles m_client;
    std::unique_ptr<TlsRedis> m_good;      // CN=localhost, DNS:localhost, IP:127.0.0.1
    std::unique_ptr<TlsRedis> m_expired;   // the same names, expired yesterday
    std::unique_ptr<TlsRedis> m_hostOnly;  // DNS:redis.example only
    std::unique_ptr<TlsRedis> m_mutual;    // clients need a certificate of the test CA
};

void TestRedisTls::initTestCase()
{
    m_certs = std::make_unique<TestCertificates>();
    const QStringList local{QStringLiteral("DNS:localhost"), QStringLiteral("IP:127.0.0.1")};
    m_good = std::make_unique<TlsRedis>(*m_certs, m_certs->issue(QStringLiteral("good"), QStringLiteral("localhost"), local));
    m_expired = std::make_unique<TlsRedis>(*m_certs, m_certs->issue(QStringLiteral("expired"), QStringLiteral("localhost"), local, -1));
    m_hostOnly = std::make_unique<TlsRedis>(
            *m_certs, m_certs->issue(QStringLiteral("hostonly"), QStringLiteral("redis.example"), {QStringLiteral("DNS:redis.example")}));
    m_mutual = std::make_unique<TlsRedis>(*m_certs, m_certs->issue(QStringLiteral("mutual"), QStringLiteral("localhost"), local), true);
    m_client = m_certs->issue(QStringLiteral("client"), QStringLiteral("lantern-worker"), {});
    m_good->server().command({"ACL", "SETUSER", "tlsuser", "on", ">pa:ss", "~*", "+@all"});
}

void TestRedisTls::connects_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<RedisUrl>("url");
    QTest::addColumn<QByteArrayList>("command");
    QTest::addColumn<QByteArray>("expected");  // in the reply
    const auto url = [&](const TlsRedis &server, const QString &host, RedisTlsOptions::Verify verify, const QString &ca,
                         const QString &sni = {}) {
        RedisUrl result = RedisUrl::parse(server.urlText(host));
        result.tls.caFile = ca;
        result.tls.verify = verify;
        result.tls.serverName = sni;
        return result;
    };
    using Verify = RedisTlsOptions::Verify;
    const QString ca = m_certs->caFile();
    for (const QString &path : Paths) {
        const auto row = [&](const char *name, const RedisUrl &target, const QByteArrayList &command, const QByteArray &expected) {
            QTest::newRow(qPrintable(path + QStringLiteral(": ") + QLatin1String(name))) << path << target << command << expected;
        };
        row("reached by IP, the IP in the certificate, verify full", url(*m_good, QStringLiteral("127.0.0.1"), Verify::Full, ca), {"PING"},
            "PONG");
        row("reached by name, verify full", url(*m_good, QStringLiteral("localhost"), Verify::Full, ca), {"PING"}, "PONG");
        row("a host-only certificate reached by IP, verify ca", url(*m_hostOnly, QStringLiteral("127.0.0.1"), Verify::Ca, ca), {"PING"},
            "PONG");
        row("a host-only certificate reached by IP with --redis-sni, verify full",
            url(*m_hostOnly, QStringLiteral("127.0.0.1"), Verify::Full, ca, QStringLiteral("redis.example")), {"PING"}, "PONG");
        row("an untrusted certificate, verify none", url(*m_good, QStringLiteral("127.0.0.1"), Verify::None, {}), {"PING"}, "PONG");
        row("an expired certificate, verify none", url(*m_expired, QStringLiteral("127.0.0.1"), Verify::None, ca), {"PING"}, "PONG");
        RedisUrl withAuth = url(*m_good, QStringLiteral("127.0.0.1"), Verify::Full, ca);
        withAuth.user = QStringLiteral("tlsuser");
        withAuth.password = QStringLiteral("pa:ss");
        withAuth.db = 3;
        row("AUTH and SELECT inside TLS", withAuth, {"CLIENT", "INFO"}, " db=3 ");
        row("AUTH as the URL's user inside TLS", withAuth, {"ACL", "WHOAMI"}, "tlsuser");
        RedisUrl mutual = url(*m_mutual, QStringLiteral("127.0.0.1"), Verify::Full, ca);
        mutual.tls.certFile = m_client.cert;
        mutual.tls.keyFile = m_client.key;
        row("mutual TLS with a client certificate of the server's CA", mutual, {"PING"}, "PONG");
    }
}

void TestRedisTls::connects()
{
    QFETCH(QString, path);
    QFETCH(RedisUrl, url);
    QFETCH(QByteArrayList, command);
    QFETCH(QByteArray, expected);
    const Attempt result = attempt(path, url, command);
    QVERIFY2(!result.error, qPrintable(messageOf(result.error)));
    QVERIFY2(result.reply.contains(expected), result.reply.constData());
}

void TestRedisTls::refuses_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<RedisUrl>("url");
    QTest::addColumn<QString>("kind");        // tls, timeout, io, input
    QTest::addColumn<QStringList>("words");   // each in the message
    QTest::addColumn<bool>("waitsTheTimeout");  // the only way to tell is the connect timeout
    using Verify = RedisTlsOptions::Verify;
    const QString ca = m_certs->caFile();
    const auto url = [&](const QString &text, const QString &caFile, Verify verify = Verify::Full) {
        RedisUrl result = RedisUrl::parse(text);
        result.tls.caFile = caFile;
        result.tls.verify = verify;
        return result;
    };
    const QString otherCa = m_certs->otherCaFile();
    for (const QString &path : Paths) {
        const auto row = [&](const char *name, const RedisUrl &target, const QString &kind, const QStringList &words, bool waits = false) {
            QTest::newRow(qPrintable(path + QStringLiteral(": ") + QLatin1String(name))) << path << target << kind << words << waits;
        };
        row("no CA given: the system's CAs do not know the test CA", url(m_good->urlText(), {}), QStringLiteral("tls"),
            {QStringLiteral("untrusted certificate"), QStringLiteral("Lantern Test CA"), QStringLiteral("--redis-ca")});
        row("another CA: untrusted", url(m_good->urlText(), otherCa), QStringLiteral("tls"),
            {QStringLiteral("untrusted certificate"), QStringLiteral("did not sign it"), otherCa});
        row("an expired certificate", url(m_expired->urlText(), ca), QStringLiteral("tls"), {QStringLiteral("expired on")});
        row("an expired certificate, verify ca", url(m_expired->urlText(), ca, Verify::Ca), QStringLiteral("tls"),
            {QStringLiteral("expired on")});
        row("a name mismatch names both names", url(m_hostOnly->urlText(), ca), QStringLiteral("tls"),
            {QStringLiteral("for redis.example"), QStringLiteral("reached as 127.0.0.1"), QStringLiteral("--redis-verify ca")});
        row("a name mismatch by host name", url(m_hostOnly->urlText(QStringLiteral("localhost")), ca), QStringLiteral("tls"),
            {QStringLiteral("for redis.example"), QStringLiteral("reached as localhost")});
        row("a TLS client on a plaintext port", url(QStringLiteral("rediss://127.0.0.1:%1").arg(m_good->plainPort()), ca),
            QStringLiteral("timeout"), {QStringLiteral("did not complete the TLS handshake"), QStringLiteral("redis://")}, true);
        row("a plaintext client on a TLS port", url(QStringLiteral("redis://127.0.0.1:%1").arg(m_good->tlsPort()), {}), QStringLiteral("io"),
            {QStringLiteral("closed the connection before answering"), QStringLiteral("rediss://")});
        row("mutual TLS without a client certificate", url(m_mutual->urlText(), ca), QStringLiteral("tls"),
            {QStringLiteral("asks for a client certificate"), QStringLiteral("--redis-cert")});
        RedisUrl strangerCert = url(m_mutual->urlText(), ca);
        strangerCert.tls.certFile = otherCa;  // self-signed by a CA the server does not know
        strangerCert.tls.keyFile = m_certs->dir() + QStringLiteral("/other-ca.key");
        row("a client certificate the server does not trust", strangerCert, QStringLiteral("tls"),
            {QStringLiteral("refused the client certificate"), otherCa});
        row("a CA file that cannot be read", url(m_good->urlText(), QStringLiteral("/nonexistent/ca.pem")), QStringLiteral("input"),
            {QStringLiteral("cannot use the Redis CA file /nonexistent/ca.pem")});
    }
}

void TestRedisTls::refuses()
{
    QFETCH(QString, path);
    QFETCH(RedisUrl, url);
    QFETCH(QString, kind);
    QFETCH(QStringList, words);
    QFETCH(bool, waitsTheTimeout);
    const Attempt result = attempt(path, url);
    QVERIFY2(result.error, result.reply.constData());
    const QString message = messageOf(result.error);
    QVERIFY2(kindOf(result.error) == kind, qPrintable(kindOf(result.error) + QStringLiteral(": ") + message));
    for (const QString &word : words)
        QVERIFY2(message.contains(word), qPrintable(message));
    QVERIFY2(message.contains(QString::number(url.port)) || kind == QLatin1String("input"), qPrintable(message));  // names the node
    // Never a hang: within the connect timeout (plus a margin for a loaded machine).
    QVERIFY2(result.ms < ConnectTimeout.count() + 1500, qPrintable(QString::number(result.ms)));
    if (waitsTheTimeout)
        QVERIFY2(result.ms >= ConnectTimeout.count() - 50, qPrintable(QString::number(result.ms)));
}

void TestRedisTls::summaryNamesTheCertificate()
{
    // What a per-hop report shows: protocol, the certificate's subject, its expiry, the mode.
    RedisUrl url = RedisUrl::parse(m_good->urlText());
    url.tls.caFile = m_certs->caFile();
    RedisConnection connection(url.seeds().first(), url, RedisOptions{});
    connection.open();
    const QString summary = connection.transportSummary();
    QVERIFY2(summary.startsWith(QLatin1String("TLSv1.3, certificate CN=localhost, valid until 20")), qPrintable(summary));
    QVERIFY2(summary.endsWith(QLatin1String("verify full")), qPrintable(summary));
    RedisClient client(url);  // what the console's connection test reports, through the client
    client.ensureConnected();
    QCOMPARE(client.transportSummary(), summary);
    QCOMPARE(client.connectedNode(), QStringLiteral("127.0.0.1:%1").arg(m_good->tlsPort()));
    RedisConnection plain(RedisEndpoint{QStringLiteral("127.0.0.1"), m_good->plainPort()}, RedisUrl::parse(m_good->server().urlText()),
                          RedisOptions{});
    plain.open();
    QVERIFY(plain.transportSummary().isEmpty());
}

LANTERN_TEST_SUITE(TestRedisTls);

} // namespace tst_redistls
#include "tst_redistls.moc"
