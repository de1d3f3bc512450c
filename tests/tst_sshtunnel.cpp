// SSH tunnels (issue 29, points 4 and 5) through an sshd the test starts on loopback
// (openssh-server: its own host key, config and authorized_keys in a temp dir, a private port):
// a host key that known_hosts does not hold is refused until the user says yes to its
// fingerprint (and then recorded), a changed key is refused even then, a key sshd does not know
// and a wrong passphrase are refused, the agent's key lets in (an ssh-agent of the test's own), and the tunnel carries Redis (plain and TLS, the server's
// own name checked) and MariaDB traffic to the harness's servers.
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "settings/config.h"
#include "sql/sqlconnection.h"
#include "testcertificates.h"
#include "testservers.h"
#include "testsshd.h"
#include "testsuite.h"
#include "tunnel/sshtunnel.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

namespace tst_sshtunnel {

using namespace lantern;

class TestSshTunnel final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void unknownHostKeyNeedsTheUsersYes();
    void changedHostKeyIsRefused();
    void loginRefusals_data();
    void loginRefusals();
    void loginWithTheAgent();
    void loginWithAPassword();
    void wrongPasswordIsRefused();
    void tunnelCarriesRedisAndMariaDb();
    void tunnelCarriesRedisTlsCheckingTheServersName();

private:
    /** Key login to the test's sshd, with this test's known_hosts file. */
    SshOptions options() const;
    /** Known hosts: the test's sshd (or the one `login` goes to) accepted once. */
    void trustServer();
    void trustServer(const SshOptions &login);
    QByteArray knownHosts() const;
    /** Password login to the password sshd (started on first use), the server trusted. */
    SshOptions passwordLogin(const QString &password);

    std::unique_ptr<test::TestSshd> m_sshd;
    std::unique_ptr<test::TestSshd> m_passwordSshd;
    std::unique_ptr<QTemporaryDir> m_home;
};

void TestSshTunnel::initTestCase()
{
    m_sshd = std::make_unique<test::TestSshd>();
}

void TestSshTunnel::init()
{
    m_home = std::make_unique<QTemporaryDir>();
    QVERIFY(m_home->isValid());
}

SshOptions TestSshTunnel::options() const
{
    SshOptions options;
    options.host = QStringLiteral("127.0.0.1");
    options.port = m_sshd->port();
    options.user = m_sshd->user();
    options.auth = SshOptions::Auth::Key;
    options.keyFile = m_sshd->keyFile();
    options.knownHostsFile = m_home->filePath(QStringLiteral("known_hosts"));
    return options;
}

QByteArray TestSshTunnel::knownHosts() const
{
    QFile file(m_home->filePath(QStringLiteral("known_hosts")));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void TestSshTunnel::trustServer()
{
    trustServer(options());
}

void TestSshTunnel::trustServer(const SshOptions &login)
{
    QString fingerprint;
    try {
        SshSession first(login);
    } catch (const SshUnknownHostError &unknown) {
        fingerprint = unknown.fingerprint();
    }
    QVERIFY(!fingerprint.isEmpty());
    SshOptions yes = login;
    yes.acceptedFingerprint = fingerprint;
    SshSession accepted(yes);
}

SshOptions TestSshTunnel::passwordLogin(const QString &password)
{
    if (!m_passwordSshd)
        m_passwordSshd = std::make_unique<test::TestSshd>(test::TestSshd::Login::KeysAndPassword);
    SshOptions login = options();
    login.port = m_passwordSshd->port();
    login.user = test::TestSshd::passwordUser();
    login.auth = SshOptions::Auth::Password;
    login.keyFile.clear();
    login.secret = test::TestSshd::password();
    trustServer(login);  // with the right password: the host key is asked before any login
    login.secret = password;
    return login;
}

void TestSshTunnel::unknownHostKeyNeedsTheUsersYes()
{
    QString fingerprint;
    try {
        SshSession session(options());
        QFAIL("an unknown host key was accepted without the user's yes");
    } catch (const SshUnknownHostError &unknown) {
        fingerprint = unknown.fingerprint();
        QVERIFY2(unknown.message().contains(QStringLiteral("is not known yet")), qPrintable(unknown.message()));
    }
    QVERIFY2(fingerprint.startsWith(QLatin1String("SHA256:")), qPrintable(fingerprint));
    QVERIFY(knownHosts().isEmpty());  // nothing recorded without a yes

    SshOptions otherYes = options();
    otherYes.acceptedFingerprint = QStringLiteral("SHA256:someOtherKeyTheUserWasToldAbout");
    QVERIFY_THROWS_EXCEPTION(SshUnknownHostError, SshSession{otherYes});
    QVERIFY(knownHosts().isEmpty());

    SshOptions yes = options();
    yes.acceptedFingerprint = fingerprint;
    {
        SshSession session(yes);
        QCOMPARE(session.fingerprint(), fingerprint);
    }
    QVERIFY2(knownHosts().contains(QStringLiteral("[127.0.0.1]:%1").arg(m_sshd->port()).toUtf8()), knownHosts().constData());
    SshSession again(options());  // known now: no question
    QCOMPARE(again.fingerprint(), fingerprint);
}

void TestSshTunnel::changedHostKeyIsRefused()
{
    QFile file(m_home->filePath(QStringLiteral("known_hosts")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(m_sshd->changedKnownHostsLine().toUtf8());
    file.close();
    QString fingerprint;
    try {
        SshSession session(options());
        QFAIL("a changed host key was accepted");
    } catch (const SshUnknownHostError &) {
        QFAIL("a changed host key was taken for an unknown one");
    } catch (const SshError &changed) {
        QVERIFY2(changed.message().contains(QStringLiteral("impersonating")), qPrintable(changed.message()));
        fingerprint = changed.message().section(QStringLiteral("host key "), 1).section(QLatin1Char(','), 0, 0);
    }
    // Even a yes to the key presented does not override a changed key.
    SshOptions yes = options();
    yes.acceptedFingerprint = fingerprint;
    QVERIFY_THROWS_EXCEPTION(SshError, SshSession{yes});
    QCOMPARE(knownHosts(), m_sshd->changedKnownHostsLine().toUtf8());  // untouched
}

void TestSshTunnel::loginRefusals_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("passphrase");
    QTest::addColumn<QString>("expected");  // empty: logged in
    QTest::newRow("a key sshd does not know: refused") << "stranger" << "" << "refused the login";
    QTest::newRow("a wrong passphrase: the key cannot be read") << "passphrase" << "wrong" << "passphrase is wrong";
    QTest::newRow("the right passphrase: in") << "passphrase" << test::TestSshd::passphrase() << "";
    QTest::newRow("a key file that is not there") << "missing" << "" << "cannot read the SSH key";
}

void TestSshTunnel::loginRefusals()
{
    QFETCH(QString, key);
    QFETCH(QString, passphrase);
    QFETCH(QString, expected);
    trustServer();
    SshOptions login = options();
    login.keyFile = key == QLatin1String("stranger")     ? m_sshd->strangerKeyFile()
                    : key == QLatin1String("passphrase") ? m_sshd->passphraseKeyFile()
                                                         : m_home->filePath(QStringLiteral("no_such_key"));
    login.secret = passphrase;
    try {
        SshSession session(login);
        QVERIFY2(expected.isEmpty(), "logged in where the login should have been refused");
    } catch (const SshError &error) {
        QVERIFY2(!expected.isEmpty() && error.message().contains(expected), qPrintable(error.message()));
    }
}

void TestSshTunnel::loginWithTheAgent()
{
    trustServer();
    SshOptions agent = options();
    agent.auth = SshOptions::Auth::Agent;
    agent.keyFile.clear();
    const QByteArray oldSocket = qgetenv("SSH_AUTH_SOCK");
    const auto restore = qScopeGuard([&] { qputenv("SSH_AUTH_SOCK", oldSocket); });
    qunsetenv("SSH_AUTH_SOCK");
    try {
        SshSession session(agent);
        QFAIL("logged in with an agent that does not run");
    } catch (const SshError &none) {
        QVERIFY2(none.message().contains(QStringLiteral("SSH_AUTH_SOCK")), qPrintable(none.message()));
    }

    // An ssh-agent of the test's own holding the key sshd accepts.
    const QString socket = m_home->filePath(QStringLiteral("agent.sock"));
    QProcess sshAgent;
    sshAgent.setProcessChannelMode(QProcess::MergedChannels);
    sshAgent.start(QStringLiteral("ssh-agent"), {QStringLiteral("-D"), QStringLiteral("-a"), socket});
    QVERIFY(sshAgent.waitForStarted());
    const auto stopAgent = qScopeGuard([&] {
        sshAgent.terminate();
        sshAgent.waitForFinished();
    });
    const QDeadlineTimer deadline(10000);
    while (!QFile::exists(socket) && !deadline.hasExpired())
        sshAgent.waitForReadyRead(50);  // its "SSH_AUTH_SOCK=..." line, or the next look
    QVERIFY2(QFile::exists(socket), sshAgent.readAll().constData());
    qputenv("SSH_AUTH_SOCK", socket.toUtf8());
    QProcess add;
    add.setProcessChannelMode(QProcess::MergedChannels);
    add.start(QStringLiteral("ssh-add"), {m_sshd->keyFile()});
    QVERIFY(add.waitForFinished());
    QVERIFY2(add.exitCode() == 0, add.readAll().constData());
    SshSession session(agent);
    QVERIFY(!session.fingerprint().isEmpty());
}

void TestSshTunnel::loginWithAPassword()
{
    try {
        const SshOptions login = passwordLogin(test::TestSshd::password());
        // In, and the account's tunnel carries Redis traffic.
        auto tunnel = std::make_shared<SshTunnel>(login);
        Config direct;
        direct.redis = test::redisUrl();
        direct.db = test::sqliteUrl();
        RedisClient redis(SshTunnel::through(direct, tunnel).redis);
        QCOMPARE(redis.command({"PING"}).toBytes(), QByteArray("PONG"));
        QCOMPARE(tunnel->channelsOpened(), 1);
    } catch (const std::runtime_error &fixture) {
        QFAIL(fixture.what());  // no root, or sshd did not start: said, never skipped
    }
}

void TestSshTunnel::wrongPasswordIsRefused()
{
    try {
        const SshOptions login = passwordLogin(QStringLiteral("not-the-Password-47"));
        SshSession session(login);
        QFAIL("logged in with a wrong password");
    } catch (const SshError &refused) {
        QCOMPARE(refused.message(), QStringLiteral("SSH server %1 refused the login of %2 with the password")
                                            .arg(QStringLiteral("%1@127.0.0.1:%2").arg(test::TestSshd::passwordUser()).arg(m_passwordSshd->port()),
                                                 test::TestSshd::passwordUser()));
    } catch (const std::runtime_error &fixture) {
        QFAIL(fixture.what());
    }
}

void TestSshTunnel::tunnelCarriesRedisAndMariaDb()
{
    trustServer();
    auto tunnel = std::make_shared<SshTunnel>(options());
    Config direct;
    direct.redis = test::redisUrl();
    direct.db = test::mysqlUrl();
    direct.db.unixSocket.clear();  // over TCP, as a server behind a bastion is reached
    const Config config = SshTunnel::through(direct, tunnel);
    QCOMPARE(config.db.host, QStringLiteral("127.0.0.1"));
    QVERIFY(config.db.port != direct.db.port);  // the forwarded port

    const QByteArray key = "tst_sshtunnel:{t}:value";
    RedisClient redis(config.redis);
    redis.command({"SET", key, "through the tunnel"});
    QCOMPARE(redis.command({"GET", key}).toBytes(), QByteArray("through the tunnel"));
    redis.command({"DEL", key});
    QCOMPARE(redis.connectedNode(), direct.redis.seeds().first().text());  // named as the server, not the local port

    SqlConnection sql(config.db);
    QSqlQuery one = sql.exec(QStringLiteral("SELECT 40 + 2"));
    QVERIFY(one.next());
    QCOMPARE(one.value(0).toInt(), 42);
    QVERIFY2(tunnel->channelsOpened() >= 2, qPrintable(QString::number(tunnel->channelsOpened())));
}

void TestSshTunnel::tunnelCarriesRedisTlsCheckingTheServersName()
{
    trustServer();
    test::TestCertificates certificates;
    // The certificate names localhost only: the check must use the server's name, never the
    // tunnel's local address 127.0.0.1.
    const test::CertificateFiles server = certificates.issue(QStringLiteral("redis"), QStringLiteral("redis.test"), {QStringLiteral("DNS:localhost")});
    test::TlsRedis tlsRedis(certificates, server);
    auto tunnel = std::make_shared<SshTunnel>(options());
    Config direct;
    direct.redis = RedisUrl::parse(tlsRedis.urlText(QStringLiteral("localhost")));
    direct.redis.tls.caFile = certificates.caFile();
    direct.db = test::sqliteUrl();
    const Config config = SshTunnel::through(direct, tunnel);
    RedisClient redis(config.redis);
    QCOMPARE(redis.command({"PING"}).toBytes(), QByteArray("PONG"));
    QVERIFY2(redis.transportSummary().contains(QStringLiteral("CN=redis.test")), qPrintable(redis.transportSummary()));
    QCOMPARE(tunnel->channelsOpened(), 1);

    // A name the certificate does not hold is still refused, through the tunnel as without it.
    Config wrongName = config;
    wrongName.redis.tls.serverName = QStringLiteral("redis.elsewhere");
    QVERIFY_THROWS_EXCEPTION(RedisTlsError, RedisClient(wrongName.redis).command({"PING"}));
}

LANTERN_TEST_SUITE(TestSshTunnel);

} // namespace tst_sshtunnel

#include "tst_sshtunnel.moc"
