// The Connections view's TLS and Sentinel fields (issue 29, point 4) against servers the test
// starts: a redis-server with a TLS port and certificates made with openssl, three sentinels with
// a master and a replica, a mariadbd with TLS. The fields keep the Redis URL in step; the
// profile file holds lanternd's settings (redis-ca, ..., sentinel-user) and no sentinel password;
// "Test connection" reports each hop: Sentinel (the master it named), TLS (the certificate's
// subject and expiry; `none` as a warning), Redis (its role), SQL TLS; and an SSH tunnel through
// an sshd the test starts, whose host key is asked about first. Waits on signals only.
#include "connections/connectioncheckreport.h"
#include "connections/connectionprofileform.h"
#include "connections/connectionsview.h"
#include "connectionsviewdriver.h"
#include "common/filepathfield.h"
#include "console/connections/profilesecrets.h"
#include "console/connections/profilestore.h"
#include "console/connections/redisurlparts.h"
#include "core/errors.h"
#include "privatemariadb.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "connections/profilesentinelfields.h"
#include "connections/profilesshfields.h"
#include "connections/profiletlsfields.h"
#include "testcertificates.h"
#include "testsentinels.h"
#include "testsshd.h"
#include "testservers.h"
#include "testsuite.h"
#include "tunnel/sshtunnel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QComboBox>
#include <QSpinBox>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QDir>
#include <QScopeGuard>
#include <QTest>

namespace tst_connectionsecurity {

using namespace lantern;
using lantern::ui::ConnectionsView;

namespace {
constexpr int AnswerTimeoutMs = 20000;
const QString SentinelSecret = QStringLiteral("sentinel-Secret-5521");
} // namespace

class TestConnectionSecurity final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void urlPartsSplitAndJoin_data();
    void urlPartsSplitAndJoin();
    void fieldsKeepTheUrlInStep();
    void profileFileHoldsTheSettingsLanterndReads();
    void testReportsTheTlsHop_data();
    void testReportsTheTlsHop();
    void sentinelHopNamesTheMaster();
    void mariaDbOverTlsIsReported();
    void sshTunnelAsksForTheHostKeyFirst();
    void lanterndRefusesAProfileWithATunnel();

private:
    std::unique_ptr<ConnectionsView> makeView();
    ConnectionCheck runTest(ConnectionsView &view);
    /** A new profile in the form: `redis` and the harness's SQLite. */
    void fillForm(ConnectionsView &view, const QString &redis);

    std::unique_ptr<QTemporaryDir> m_profiles;
    Config m_session;
    std::unique_ptr<test::TestCertificates> m_certs;
    std::unique_ptr<test::TlsRedis> m_tlsRedis;
};

void TestConnectionSecurity::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/lantern-test-bus");  // memory only
    m_session.redis = test::redisUrl();
    m_session.db = test::sqliteUrl();
    openMigrated(m_session.db);  // the profiles' SQL: a file that exists, so their tests can pass
    m_certs = std::make_unique<test::TestCertificates>();
    const test::CertificateFiles server = m_certs->issue(QStringLiteral("redis"), QStringLiteral("redis.test"),
                                                          {QStringLiteral("DNS:localhost"), QStringLiteral("IP:127.0.0.1")});
    m_tlsRedis = std::make_unique<test::TlsRedis>(*m_certs, server);
}

void TestConnectionSecurity::init()
{
    m_profiles = std::make_unique<QTemporaryDir>();
    QVERIFY(m_profiles->isValid());
}

std::unique_ptr<ConnectionsView> TestConnectionSecurity::makeView()
{
    return test::makeConnectionsView(m_profiles->path(), m_session);
}

void TestConnectionSecurity::fillForm(ConnectionsView &view, const QString &redis)
{
    view.newProfile();
    view.nameField()->setText(QStringLiteral("secure"));
    view.redisUrlField()->clear();
    QTest::keyClicks(view.redisUrlField(), redis);  // typed: the TLS and Sentinel tabs follow
    view.dbUrlField()->setText(QStringLiteral("sqlite://") + m_session.db.path);
}

ConnectionCheck TestConnectionSecurity::runTest(ConnectionsView &view)
{
    return test::runConnectionTest(view, AnswerTimeoutMs);
}

void TestConnectionSecurity::urlPartsSplitAndJoin_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("tls");
    QTest::addColumn<bool>("sentinel");
    QTest::addColumn<QString>("hosts");
    QTest::addColumn<QString>("master");
    QTest::newRow("plain, account and db") << "redis://ops@h:6379/2" << false << false << "h:6379" << "";
    QTest::newRow("tls seed list") << "rediss://h1:7000,h2:7001" << true << false << "h1:7000,h2:7001" << "";
    QTest::newRow("sentinel over tls") << "rediss-sentinel://u:p@s1:26379,s2:26379/3#mymaster" << true << true << "s1:26379,s2:26379"
                                       << "mymaster";
}

void TestConnectionSecurity::urlPartsSplitAndJoin()
{
    QFETCH(QString, url);
    const RedisUrlParts parts = RedisUrlParts::split(url);
    QTEST(parts.tls, "tls");
    QTEST(parts.sentinel, "sentinel");
    QTEST(parts.hosts, "hosts");
    QTEST(parts.master, "master");
    QCOMPARE(parts.join(), url);  // as typed, both ways
}

void TestConnectionSecurity::fieldsKeepTheUrlInStep()
{
    auto view = makeView();
    ui::ConnectionProfileForm *form = view->form();
    fillForm(*view, QStringLiteral("redis://ops@10.0.0.5:6379/2"));
    QVERIFY(!form->tlsFields()->redisTls());
    QVERIFY(!form->tlsFields()->verifyBox()->isEnabled());

    QTest::mouseClick(form->tlsFields()->redisTlsBox(), Qt::LeftButton);  // TLS on: rediss://
    QCOMPARE(view->redisUrlField()->text(), QStringLiteral("rediss://ops@10.0.0.5:6379/2"));
    QVERIFY(form->tlsFields()->verifyBox()->isEnabled());

    QVERIFY(form->tlsFields()->verifyWarning()->isHidden());  // full: no warning
    form->tlsFields()->verifyBox()->setCurrentIndex(form->tlsFields()->verifyBox()->findData(QStringLiteral("none")));
    QVERIFY(!form->tlsFields()->verifyWarning()->isHidden());  // none: said in the form

    ui::ProfileSentinelFields *sentinel = form->sentinelFields();
    QTest::mouseClick(sentinel->sentinelBox(), Qt::LeftButton);
    QTest::keyClicks(sentinel->sentinelsField(), QStringLiteral("s1:26379,s2:26379"));
    QTest::keyClicks(sentinel->masterField(), QStringLiteral("mymaster"));
    QCOMPARE(view->redisUrlField()->text(), QStringLiteral("rediss-sentinel://ops@s1:26379,s2:26379/2#mymaster"));
    QTest::mouseClick(sentinel->sentinelBox(), Qt::LeftButton);  // off: the server comes back
    QCOMPARE(view->redisUrlField()->text(), QStringLiteral("rediss://ops@10.0.0.5:6379/2"));

    view->redisUrlField()->clear();
    QTest::keyClicks(view->redisUrlField(), QStringLiteral("redis-sentinel://a:26379#other"));  // typed: the fields follow
    QVERIFY(!form->tlsFields()->redisTls());
    QVERIFY(sentinel->sentinelBox()->isChecked());
    QCOMPARE(sentinel->sentinelsField()->text(), QStringLiteral("a:26379"));
    QCOMPARE(sentinel->masterField()->text(), QStringLiteral("other"));
}

void TestConnectionSecurity::profileFileHoldsTheSettingsLanterndReads()
{
    auto view = makeView();
    fillForm(*view, QStringLiteral("rediss-sentinel://127.0.0.1:26379,127.0.0.1:26380#mymaster"));
    ui::ConnectionProfileForm *form = view->form();
    form->tlsFields()->redisCaField()->setText(m_certs->caFile());
    form->tlsFields()->verifyBox()->setCurrentIndex(form->tlsFields()->verifyBox()->findData(QStringLiteral("ca")));
    form->sentinelFields()->userField()->setText(QStringLiteral("watcher"));
    form->sentinelFields()->passwordField()->setText(SentinelSecret);
    QSignalSpy saved(view.get(), &ConnectionsView::profileSaved);
    QVERIFY(view->saveProfile());
    QVERIFY(saved.wait(AnswerTimeoutMs));

    const QString file = ProfileStore(m_profiles->path()).fileOf(QStringLiteral("secure"));
    QFile read(file);
    QVERIFY(read.open(QIODevice::ReadOnly));
    const QByteArray text = read.readAll();
    QVERIFY2(!text.contains(SentinelSecret.toUtf8()), text.constData());
    // lanternd --config FILE reads the same file: the same TLS and sentinel settings.
    const Config config = Config::resolve({{QStringLiteral("config"), file}}, QProcessEnvironment());
    QVERIFY(config.redis.tls.enabled);
    QCOMPARE(config.redis.tls.caFile, m_certs->caFile());
    QCOMPARE(config.redis.tls.verify, RedisTlsOptions::Verify::Ca);
    QCOMPARE(config.redis.sentinelMaster, QStringLiteral("mymaster"));
    QCOMPARE(config.redis.sentinelUser, QStringLiteral("watcher"));
    QVERIFY(config.redis.sentinelPassword.isEmpty());
    QCOMPARE(view->secrets()->inMemory(QStringLiteral("secure"))->sentinelPassword, SentinelSecret);

    // Read back into the form: every field as saved, the password from the keychain (memory here).
    view->reloadProfiles();
    QSignalSpy loaded(view.get(), &ConnectionsView::secretsLoaded);
    QVERIFY(view->selectProfile(QStringLiteral("secure")));
    QVERIFY(loaded.wait(AnswerTimeoutMs));
    QVERIFY(form->tlsFields()->redisTls());
    QCOMPARE(form->tlsFields()->redisCaField()->text(), m_certs->caFile());
    QCOMPARE(form->tlsFields()->verifyBox()->currentData().toString(), QStringLiteral("ca"));
    QCOMPARE(form->sentinelFields()->masterField()->text(), QStringLiteral("mymaster"));
    QCOMPARE(form->sentinelFields()->passwordField()->text(), SentinelSecret);
}

void TestConnectionSecurity::testReportsTheTlsHop_data()
{
    QTest::addColumn<QString>("verify");
    QTest::addColumn<bool>("trustedCa");
    QTest::addColumn<bool>("ok");
    QTest::newRow("full, our CA: TLS ✓ and Redis ✓") << "full" << true << true;
    QTest::newRow("none: TLS ⚠ said, Redis ✓") << "none" << false << true;
    QTest::newRow("full, another CA: TLS ✗") << "full" << false << false;
}

void TestConnectionSecurity::testReportsTheTlsHop()
{
    QFETCH(QString, verify);
    QFETCH(bool, trustedCa);
    QFETCH(bool, ok);
    auto view = makeView();
    fillForm(*view, m_tlsRedis->urlText());
    ui::ConnectionProfileForm *form = view->form();
    QVERIFY(form->tlsFields()->redisTls());  // rediss:// typed: TLS on
    form->tlsFields()->redisCaField()->setText(trustedCa ? m_certs->caFile() : m_certs->otherCaFile());
    form->tlsFields()->verifyBox()->setCurrentIndex(form->tlsFields()->verifyBox()->findData(verify));

    const ConnectionCheck result = runTest(*view);
    const QString report = view->resultLabel()->text();
    QCOMPARE(result.redisOk, ok);
    if (!ok) {
        QCOMPARE(result.redisFailedHop, ConnectionCheck::Hop::Tls);
        QVERIFY2(report.contains(QStringLiteral("<b>TLS</b>")) && report.contains(QStringLiteral("✗")), qPrintable(report));
        return;
    }
    QVERIFY2(result.redisTls.contains(QStringLiteral("CN=redis.test")), qPrintable(result.redisTls));
    QVERIFY2(result.redisTls.contains(QStringLiteral("valid until")), qPrintable(result.redisTls));
    QCOMPARE(result.redisRole, QStringLiteral("master"));
    QVERIFY2(report.contains(QStringLiteral("role master")), qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("CN=redis.test")), qPrintable(report));
    QCOMPARE(result.redisTlsWarning.isEmpty(), verify != QLatin1String("none"));
    QCOMPARE(report.contains(QStringLiteral("⚠")), verify == QLatin1String("none"));
}

void TestConnectionSecurity::sentinelHopNamesTheMaster()
{
    test::TestSentinels sentinels(QStringLiteral("lantern"), SentinelSecret.toUtf8());
    auto view = makeView();
    fillForm(*view, sentinels.urlText());
    QVERIFY(view->form()->sentinelFields()->sentinelBox()->isChecked());
    view->form()->sentinelFields()->passwordField()->setText(QStringLiteral("wrong"));
    ConnectionCheck result = runTest(*view);
    QVERIFY(!result.redisOk);  // the sentinels refuse the password: the Sentinel hop fails
    QCOMPARE(result.redisFailedHop, ConnectionCheck::Hop::Sentinel);
    QVERIFY2(view->resultLabel()->text().contains(QStringLiteral("<b>Sentinel</b>")), qPrintable(view->resultLabel()->text()));

    view->form()->sentinelFields()->passwordField()->setText(SentinelSecret);
    result = runTest(*view);
    QVERIFY2(result.redisOk, qPrintable(result.redisFailure.message));
    const QString master = QStringLiteral("127.0.0.1:%1").arg(sentinels.masterPort());
    QVERIFY2(result.sentinelMaster.contains(master), qPrintable(result.sentinelMaster));
    QCOMPARE(result.redisRole, QStringLiteral("master"));
    QVERIFY2(view->resultLabel()->text().contains(QStringLiteral("master “lantern” at ") + master), qPrintable(view->resultLabel()->text()));
}

void TestConnectionSecurity::mariaDbOverTlsIsReported()
{
    const test::CertificateFiles server = m_certs->issue(QStringLiteral("db"), QStringLiteral("db.test"), {QStringLiteral("IP:127.0.0.1")});
    test::PrivateMariaDb mariadb({QStringLiteral("--ssl-ca=") + m_certs->caFile(), QStringLiteral("--ssl-cert=") + server.cert,
                                  QStringLiteral("--ssl-key=") + server.key});
    const DbUrl db = mariadb.createDatabase(QStringLiteral("lantern_tls"));
    auto view = makeView();
    fillForm(*view, QStringLiteral("redis://%1:%2").arg(m_session.redis.host).arg(m_session.redis.port));
    view->dbUrlField()->setText(test::PrivateMariaDb::urlText(db));
    ConnectionCheck result = runTest(*view);
    QVERIFY2(result.sqlOk, qPrintable(result.sqlFailure.message));
    QCOMPARE(result.sqlTls, QString());  // no CA: plain, and no TLS row
    QVERIFY(!view->resultLabel()->text().contains(QStringLiteral("SQL TLS")));

    view->form()->tlsFields()->dbCaField()->setText(m_certs->caFile());
    result = runTest(*view);
    QVERIFY2(result.sqlOk, qPrintable(result.sqlFailure.message));
    QVERIFY2(result.sqlTls.startsWith(QLatin1String("TLSv1.")), qPrintable(result.sqlTls));
    QVERIFY2(view->resultLabel()->text().contains(QStringLiteral("SQL TLS")), qPrintable(view->resultLabel()->text()));
    QVERIFY(view->resultLabel()->text().contains(QStringLiteral("not the host name")));
}

void TestConnectionSecurity::sshTunnelAsksForTheHostKeyFirst()
{
    test::TestSshd sshd;
    QTemporaryDir home;
    QVERIFY(QDir(home.path()).mkpath(QStringLiteral(".ssh")));
    const QByteArray oldHome = qgetenv("HOME");
    qputenv("HOME", home.path().toUtf8());  // ~/.ssh/known_hosts of the test's own
    const auto restore = qScopeGuard([&] { qputenv("HOME", oldHome); });

    auto view = makeView();
    fillForm(*view, QStringLiteral("redis://%1:%2").arg(m_session.redis.host).arg(m_session.redis.port));
    ui::ProfileSshFields *ssh = view->form()->sshFields();
    QTest::mouseClick(ssh->tunnelBox(), Qt::LeftButton);
    ssh->hostField()->setText(QStringLiteral("127.0.0.1"));
    ssh->portField()->setValue(sshd.port());
    ssh->userField()->setText(sshd.user());
    ssh->authBox()->setCurrentIndex(ssh->authBox()->findData(QStringLiteral("key")));
    ssh->keyField()->setText(sshd.passphraseKeyFile());
    ssh->secretField()->setText(test::TestSshd::passphrase());

    QStringList asked;
    bool answer = false;
    view->setHostKeyConfirmation([&](QWidget *, const QString &server, const QString &fingerprint) {
        asked << server + QLatin1Char(' ') + fingerprint;
        return answer;
    });
    ConnectionCheck result = runTest(*view);
    QCOMPARE(asked.size(), 1);
    QVERIFY(result.sshUsed);
    QVERIFY(!result.sshOk);  // no: nothing logged in, nothing recorded
    QVERIFY2(asked.first().contains(result.sshUnknownFingerprint) && result.sshUnknownFingerprint.startsWith(QLatin1String("SHA256:")),
             qPrintable(asked.first()));
    QVERIFY(!result.redisOk);
    QVERIFY(!QFile::exists(home.filePath(QStringLiteral(".ssh/known_hosts"))));
    QVERIFY2(view->resultLabel()->text().contains(QStringLiteral("<b>SSH</b>")), qPrintable(view->resultLabel()->text()));

    answer = true;  // yes: recorded, and the test goes on through the tunnel
    result = runTest(*view);
    QCOMPARE(asked.size(), 2);
    QVERIFY2(result.sshOk, qPrintable(result.sshFailure.message));
    QVERIFY2(result.redisOk, qPrintable(result.redisFailure.message));
    QVERIFY(result.tunnel && result.tunnel->channelsOpened() >= 1);
    QVERIFY2(view->resultLabel()->text().contains(result.sshSummary.toHtmlEscaped()), qPrintable(view->resultLabel()->text()));
    QVERIFY(QFile::exists(home.filePath(QStringLiteral(".ssh/known_hosts"))));

    result = runTest(*view);  // known now: no question
    QCOMPARE(asked.size(), 2);
    QVERIFY(result.sshOk);

    // Use: the session gets the servers through the tunnel its test opened, and keeps it.
    view->setSwitchConfirmation([](QWidget *, const QString &, const QString &) { return true; });
    QSignalSpy activated(view.get(), &ConnectionsView::profileActivated);
    QSignalSpy declined(view.get(), &ConnectionsView::switchDeclined);
    QVERIFY(view->useProfile());
    QVERIFY2(activated.wait(AnswerTimeoutMs), declined.isEmpty() ? "no answer" : qPrintable(declined.first().first().toString()));
    const Config session = activated.first().first().value<Config>();
    QVERIFY(session.redis.route);
    QVERIFY2(view->findChild<QLabel *>(QStringLiteral("activeConnection"))->text().contains(QStringLiteral("SSH")),
             qPrintable(view->findChild<QLabel *>(QStringLiteral("activeConnection"))->text()));
    auto *tunnel = dynamic_cast<SshTunnel *>(session.redis.route.get());
    QVERIFY(tunnel);
    const int before = tunnel->channelsOpened();
    RedisClient redis(session.redis);
    QCOMPARE(redis.command({"PING"}).toBytes(), QByteArray("PONG"));
    QCOMPARE(tunnel->channelsOpened(), before + 1);
}

void TestConnectionSecurity::lanterndRefusesAProfileWithATunnel()
{
    ConnectionProfile profile;
    profile.name = QStringLiteral("bastion");
    profile.redisUrl = QStringLiteral("redis://10.0.0.7:6379");
    profile.dbUrl = QStringLiteral("mysql://lantern@db.internal:3306/lantern");
    profile.sshHost = QStringLiteral("bastion.example.com");
    profile.sshUser = QStringLiteral("ops");
    const ProfileStore store(m_profiles->path());
    store.save(profile);
    QCOMPARE(store.list().value(0).sshHost, QStringLiteral("bastion.example.com"));  // the console reads it back
    try {
        Config::resolve({{QStringLiteral("config"), store.fileOf(profile.name)}}, QProcessEnvironment());
        QFAIL("lanternd took a profile whose servers are behind an SSH tunnel it cannot open");
    } catch (const InvalidInputError &refused) {
        QVERIFY2(refused.message().contains(QStringLiteral("SSH tunnel")), qPrintable(refused.message()));
    }
}

LANTERN_WIDGET_TEST_SUITE(TestConnectionSecurity);

} // namespace tst_connectionsecurity

#include "tst_connectionsecurity.moc"
