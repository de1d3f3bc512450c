// The Connections view against the harness's Redis and SQL: profiles saved as the files
// `--profile NAME` reads and never holding a password; on this headless machine (no Secret
// Service on D-Bus) the keychain job fails and the passwords stay in memory only; the connection
// test's round trips and its failures in plain words; a read-only profile applied as a read-only
// Config. The test waits on signals only.
#include "connections/connectionsview.h"
#include "connectionsviewdriver.h"
#include "console/connections/connectionprofilemodel.h"
#include "console/connections/profilesecrets.h"
#include "console/connections/profilestore.h"
#include "common/messagebanner.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QDirIterator>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace tst_connectionsview {

using namespace lantern;
using lantern::ui::ConnectionsView;

namespace {

constexpr int AnswerTimeoutMs = 15000;
const QString RedisSecret = QStringLiteral("redis-Secret-7731");
const QString SqlSecret = QStringLiteral("sql-Secret-4409");
const QString SqlUser = QStringLiteral("lt_profile_user");

/** Every byte under `directory`, file by file, for "is the secret anywhere on disk?". */
QByteArray everythingUnder(const QString &directory)
{
    QByteArray all;
    QDirIterator it(directory, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile file(it.next());
        if (file.open(QIODevice::ReadOnly))
            all += file.readAll();
    }
    return all;
}

QString redisText()
{
    const RedisUrl url = test::redisUrl();
    return QStringLiteral("redis://%1:%2").arg(url.host).arg(url.port);
}

} // namespace

class TestConnectionsView final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();

    void profileModelPassesTheTester();
    void profileFileHoldsNoPasswordAndIsAProfileForConfig();
    void keychainFailureKeepsSecretsInMemoryOnly();
    void testConnectionMeasuresRoundTrips_data();
    void testConnectionMeasuresRoundTrips();
    void testConnectionExplainsFailures_data();
    void testConnectionExplainsFailures();
    void readOnlyProfileIsAppliedReadOnly();
    void switchTestsTheProfileFirst_data();
    void switchTestsTheProfileFirst();
    void latencyOfTheConnectionInUse();
    void noSwitchOntoTheSandboxsOwnServers_data();
    void noSwitchOntoTheSandboxsOwnServers();
    void backToTheSandbox();

private:
    /** A view on a fresh profile directory, attached to `m_session`. */
    std::unique_ptr<ConnectionsView> makeView();
    void fillForm(ConnectionsView &view, const QString &name, const QString &redis, const QString &redisPassword, const QString &db,
                  const QString &dbPassword);
    ConnectionCheck runTest(ConnectionsView &view);

    std::unique_ptr<QTemporaryDir> m_profiles;
    Config m_session;
    DbUrl m_mysql;      // the harness's MariaDB, as the password-protected user of this test
    DbUrl m_sqlite;
};

void TestConnectionsView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    // Headless: no session bus at all, whatever the machine running the test has. The keychain
    // job must fail, and the view must fall back to memory.
    qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/lantern-test-bus");

    m_sqlite = test::sqliteUrl();
    openMigrated(m_sqlite);
    const DbUrl admin = test::mysqlUrl();
    {
        SqlConnection sql(admin);
        Migrator(sql).migrate();
        sql.exec(QStringLiteral("DROP USER IF EXISTS '%1'@'%'").arg(SqlUser));
        sql.exec(QStringLiteral("CREATE USER '%1'@'%' IDENTIFIED BY '%2'").arg(SqlUser, SqlSecret));
        sql.exec(QStringLiteral("GRANT SELECT ON %1.* TO '%2'@'%'").arg(admin.database, SqlUser));
    }
    m_mysql = admin;
    m_mysql.user = SqlUser;
    m_mysql.unixSocket.clear();  // over TCP, as a remote profile would
    m_mysql.password.clear();

    m_session.redis = test::redisUrl();
    m_session.db = m_sqlite;
    m_session.todayOverride = QDate(2025, 3, 10);
}

void TestConnectionsView::cleanupTestCase()
{
    SqlConnection sql(test::mysqlUrl());
    sql.exec(QStringLiteral("DROP USER IF EXISTS '%1'@'%'").arg(SqlUser));
}

void TestConnectionsView::init()
{
    m_profiles = std::make_unique<QTemporaryDir>();
    QVERIFY(m_profiles->isValid());
}

std::unique_ptr<ConnectionsView> TestConnectionsView::makeView()
{
    return test::makeConnectionsView(m_profiles->path(), m_session);
}

void TestConnectionsView::fillForm(ConnectionsView &view, const QString &name, const QString &redis, const QString &redisPassword,
                                   const QString &db, const QString &dbPassword)
{
    view.newProfile();
    view.nameField()->setText(name);
    view.redisUrlField()->setText(redis);
    view.redisPasswordField()->setText(redisPassword);
    view.dbUrlField()->setText(db);
    view.dbPasswordField()->setText(dbPassword);
}

ConnectionCheck TestConnectionsView::runTest(ConnectionsView &view)
{
    return test::runConnectionTest(view, AnswerTimeoutMs);
}

void TestConnectionsView::profileModelPassesTheTester()
{
    ConnectionProfileModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ConnectionProfile a;
    a.name = QStringLiteral("alpha");
    a.dbUrl = QStringLiteral("sqlite:///tmp/a.db");
    ConnectionProfile b = a;
    b.name = QStringLiteral("beta");
    b.readOnly = true;
    model.setProfiles({a, b});
    QCOMPARE(model.rowCount(), 2);
    model.setActiveName(QStringLiteral("beta"));
    QVERIFY(model.data(model.index(1), ConnectionProfileModel::ActiveRole).toBool());
    QVERIFY(model.data(model.index(1), ConnectionProfileModel::ReadOnlyRole).toBool());
    QVERIFY(!model.data(model.index(0), ConnectionProfileModel::ActiveRole).toBool());
    QVERIFY(model.data(model.index(1)).toString().contains(QLatin1String("read-only")));
    QVERIFY(model.data(model.index(1)).toString().contains(QLatin1String("in use")));
    QCOMPARE(model.rowOf(QStringLiteral("alpha")), 0);
    model.setActiveName({});
    model.setProfiles({});
    QCOMPARE(model.rowCount(), 0);
}

void TestConnectionsView::profileFileHoldsNoPasswordAndIsAProfileForConfig()
{
    ConnectionProfile profile;
    profile.name = QStringLiteral("staging");
    profile.redisUrl = QStringLiteral("redis://ops:%1@10.0.0.5:6380/2").arg(RedisSecret);
    profile.dbUrl = QStringLiteral("mysql://lantern:%1@10.0.0.6:3306/lantern").arg(SqlSecret);
    profile.keyPrefix = QStringLiteral("stg:");
    profile.timeZone = QStringLiteral("Asia/Shanghai");
    profile.readOnly = true;
    const ProfileStore store(ProfileStore::defaultDirectory());
    store.save(profile);  // even when handed URLs with passwords
    const QByteArray file = everythingUnder(store.directory());
    QVERIFY(!file.isEmpty());
    QVERIFY(!file.contains(RedisSecret.toUtf8()));
    QVERIFY(!file.contains(SqlSecret.toUtf8()));

    // `--profile staging` reads what the view saved.
    const Config config = Config::resolve({{QStringLiteral("profile"), QStringLiteral("staging")}}, QProcessEnvironment());
    QCOMPARE(config.redis.host, QStringLiteral("10.0.0.5"));
    QCOMPARE(config.redis.port, 6380);
    QCOMPARE(config.redis.db, 2);
    QCOMPARE(config.redis.user, QStringLiteral("ops"));
    QVERIFY(config.redis.password.isEmpty());
    QCOMPARE(config.db.host, QStringLiteral("10.0.0.6"));
    QVERIFY(config.db.password.isEmpty());
    QCOMPARE(config.keyPrefix, QStringLiteral("stg:"));
    QCOMPARE(config.timeZone.id(), QByteArray("Asia/Shanghai"));
    QVERIFY(config.readOnly);
    QCOMPARE(config.profile, QStringLiteral("staging"));

    const QList<ConnectionProfile> listed = store.list();
    QCOMPARE(listed.size(), 1);
    QCOMPARE(listed.first().redisUrl, QStringLiteral("redis://ops@10.0.0.5:6380/2"));
    QVERIFY(store.remove(QStringLiteral("staging")));
    QVERIFY(store.list().isEmpty());
}

void TestConnectionsView::keychainFailureKeepsSecretsInMemoryOnly()
{
    auto view = makeView();
    QSignalSpy saved(view.get(), &ConnectionsView::profileSaved);
    fillForm(*view, QStringLiteral("remote"), QStringLiteral("redis://10.0.0.5:6379"), RedisSecret,
             QStringLiteral("mysql://lantern@10.0.0.6:3306/lantern"), SqlSecret);
    QVERIFY(view->saveProfile());
    QVERIFY(saved.wait(AnswerTimeoutMs));
    QCOMPARE(saved.first().at(0).toString(), QStringLiteral("remote"));
    QCOMPARE(saved.first().at(1).toBool(), false);  // not in a keychain: there is none here
    QVERIFY(view->secrets()->isKeychainUnavailable());
    QVERIFY(view->keychainLabel()->text().contains(QLatin1String("in memory")));

    // Nothing on disk holds a password: not the profile, not the console's own settings.
    const QByteArray disk = everythingUnder(m_profiles->path())
            + everythingUnder(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation))
            + everythingUnder(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation));
    QVERIFY(disk.contains("10.0.0.5"));
    QVERIFY(!disk.contains(RedisSecret.toUtf8()));
    QVERIFY(!disk.contains(SqlSecret.toUtf8()));

    // In memory for the session: back on the profile, the passwords are there again.
    QCOMPARE(view->secrets()->inMemory(QStringLiteral("remote")), (ProfileSecret{RedisSecret, SqlSecret, {}, {}}));
    view->newProfile();
    QSignalSpy loaded(view.get(), &ConnectionsView::secretsLoaded);
    QVERIFY(view->selectProfile(QStringLiteral("remote")));
    QVERIFY(loaded.wait(AnswerTimeoutMs));
    QCOMPARE(view->redisPasswordField()->text(), RedisSecret);
    QCOMPARE(view->dbPasswordField()->text(), SqlSecret);

    // A new console (a new secrets store) finds the profile but no password: it asks again.
    auto restarted = makeView();
    QSignalSpy reloaded(restarted.get(), &ConnectionsView::secretsLoaded);
    QVERIFY(restarted->selectProfile(QStringLiteral("remote")));
    QVERIFY(reloaded.wait(AnswerTimeoutMs));
    QCOMPARE(restarted->nameField()->text(), QStringLiteral("remote"));
    QVERIFY(restarted->redisPasswordField()->text().isEmpty());
    QVERIFY(restarted->dbPasswordField()->text().isEmpty());
    QVERIFY(restarted->secrets()->isKeychainUnavailable());
}

void TestConnectionsView::testConnectionMeasuresRoundTrips_data()
{
    QTest::addColumn<QString>("db");
    QTest::addColumn<QString>("password");
    QTest::newRow("sqlite") << QStringLiteral("sqlite://") + m_sqlite.path << QString();
    QTest::newRow("mysql, password from the password field")
            << QStringLiteral("mysql://%1@127.0.0.1:%2/%3").arg(SqlUser).arg(m_mysql.port).arg(m_mysql.database) << SqlSecret;
}

void TestConnectionsView::testConnectionMeasuresRoundTrips()
{
    QFETCH(QString, db);
    QFETCH(QString, password);
    auto view = makeView();
    fillForm(*view, QStringLiteral("local"), redisText(), {}, db, password);
    const ConnectionCheck result = runTest(*view);
    QVERIFY2(result.redisOk, qPrintable(result.redisFailure.message + QLatin1Char(' ') + result.redisFailure.detail));
    QVERIFY2(result.sqlOk, qPrintable(result.sqlFailure.message + QLatin1Char(' ') + result.sqlFailure.detail));
    QVERIFY(result.redisMs >= 0 && result.redisMs < AnswerTimeoutMs);
    QVERIFY(result.sqlMs >= 0 && result.sqlMs < AnswerTimeoutMs);
    QVERIFY(!result.redisVersion.isEmpty());
    QCOMPARE(result.schemaVersion, Migrator::latestVersion());
    QVERIFY(view->resultLabel()->text().contains(QLatin1String("PING answered in")));
    QVERIFY(view->resultLabel()->text().contains(QLatin1String("SELECT 1 answered in")));
}

void TestConnectionsView::testConnectionExplainsFailures_data()
{
    QTest::addColumn<QString>("redis");
    QTest::addColumn<QString>("redisPassword");
    QTest::addColumn<QString>("db");
    QTest::addColumn<QString>("dbPassword");
    QTest::addColumn<QString>("redisWords");
    QTest::addColumn<QString>("sqlWords");
    const QString mysql = QStringLiteral("mysql://%1@127.0.0.1:%2/%3").arg(SqlUser).arg(m_mysql.port).arg(m_mysql.database);
    QTest::newRow("servers down") << QStringLiteral("redis://127.0.0.1:1") << QString() << QStringLiteral("mysql://lantern@127.0.0.1:1/lantern")
                                  << QString() << QStringLiteral("Redis at redis://127.0.0.1:1/0 does not answer")
                                  << QStringLiteral("The database at mysql://lantern@127.0.0.1:1/lantern cannot be reached");
    QTest::newRow("wrong passwords") << redisText() << QStringLiteral("wrong") << mysql << QStringLiteral("wrong")
                                     << QStringLiteral("refused the user name or password")
                                     << QStringLiteral("refused the user name or password");
    QTest::newRow("no such SQLite file, never created") << redisText() << QString() << QStringLiteral("sqlite:///nonexistent/lantern.db")
                                                        << QString() << QString() << QStringLiteral("There is no database file at /nonexistent/lantern.db");
}

void TestConnectionsView::testConnectionExplainsFailures()
{
    QFETCH(QString, redis);
    QFETCH(QString, redisPassword);
    QFETCH(QString, db);
    QFETCH(QString, dbPassword);
    QFETCH(QString, redisWords);
    QFETCH(QString, sqlWords);
    auto view = makeView();
    fillForm(*view, QStringLiteral("broken"), redis, redisPassword, db, dbPassword);
    const ConnectionCheck result = runTest(*view);
    if (redisWords.isEmpty()) {
        QVERIFY(result.redisOk);
    } else {
        QVERIFY(!result.redisOk);
        QVERIFY2(result.redisFailure.message.contains(redisWords), qPrintable(result.redisFailure.message));
        QVERIFY(view->resultLabel()->text().contains(redisWords.toHtmlEscaped()));
    }
    QVERIFY(!result.sqlOk);
    QVERIFY2(result.sqlFailure.message.contains(sqlWords), qPrintable(result.sqlFailure.message));
    QVERIFY(!QFile::exists(QStringLiteral("/nonexistent/lantern.db")));
}

void TestConnectionsView::readOnlyProfileIsAppliedReadOnly()
{
    auto view = makeView();
    QSignalSpy activated(view.get(), &ConnectionsView::profileActivated);
    fillForm(*view, QStringLiteral("support"), redisText(), {},
             QStringLiteral("mysql://%1@127.0.0.1:%2/%3").arg(SqlUser).arg(m_mysql.port).arg(m_mysql.database), SqlSecret);
    view->readOnlyBox()->setChecked(true);
    QVERIFY(view->saveProfile());
    const ConnectionCheck tested = runTest(*view);
    QVERIFY(tested.readOnly);
    QVERIFY(tested.redisOk && tested.sqlOk);

    QString asked;
    view->setSwitchConfirmation([&asked](QWidget *, const QString &, const QString &text) {
        asked = text;
        return true;
    });
    QVERIFY(view->useProfile());
    QVERIFY(activated.wait(AnswerTimeoutMs));
    QCOMPARE(activated.size(), 1);
    QVERIFY2(asked.contains(QStringLiteral("“support” is read-only")), qPrintable(asked));
    const auto config = activated.first().first().value<Config>();
    QVERIFY(config.readOnly);
    QCOMPARE(config.profile, QStringLiteral("support"));
    QCOMPARE(config.db.user, SqlUser);
    QCOMPARE(config.db.password, SqlSecret);  // from memory, for the reconnect
    QCOMPARE(config.todayOverride, m_session.todayOverride);  // the session's other settings stay
    QCOMPARE(view->activeProfileName(), QStringLiteral("support"));
    const int row = view->model()->rowOf(QStringLiteral("support"));
    QVERIFY(view->model()->data(view->model()->index(row), ConnectionProfileModel::ActiveRole).toBool());
}

void TestConnectionsView::switchTestsTheProfileFirst_data()
{
    QTest::addColumn<QString>("redis");
    QTest::addColumn<bool>("sandbox");
    QTest::addColumn<bool>("confirm");
    QTest::addColumn<bool>("asked");
    QTest::addColumn<bool>("switched");
    QTest::addColumn<QString>("words");  // in the confirmation when asked, else in the banner
    QTest::newRow("Redis down: refused before asking, the sandbox stays")
            << QStringLiteral("redis://127.0.0.1:1") << true << true << false << false
            << QStringLiteral("Not switched to “next”: Redis at redis://127.0.0.1:1/0 does not answer");
    QTest::newRow("servers answer, the operator says no") << redisText() << false << false << true << false
                                                          << QStringLiteral("The console leaves the servers given on the command line.");
    QTest::newRow("servers answer, sandbox: told it stops, yes") << redisText() << true << true << true << true
                                                                 << QStringLiteral("The sandbox stops");
}

void TestConnectionsView::switchTestsTheProfileFirst()
{
    QFETCH(QString, redis);
    QFETCH(bool, sandbox);
    QFETCH(bool, confirm);
    QFETCH(bool, asked);
    QFETCH(bool, switched);
    QFETCH(QString, words);
    auto view = makeView();
    view->setSandboxSession(sandbox);
    if (sandbox) {
        // The sandbox's own private Redis is not the profile's (refused: noSwitchOntoTheSandboxsOwnServers).
        Config own = m_session;
        own.redis.port = 2;  // not the profile's 1, nor the harness's
        own.db = test::sqliteUrl();
        view->showActive(own);
    }
    QString question;
    int askedCount = 0;
    view->setSwitchConfirmation([&](QWidget *, const QString &title, const QString &text) {
        ++askedCount;
        question = title + QLatin1Char('\n') + text;
        return confirm;
    });
    QSignalSpy activated(view.get(), &ConnectionsView::profileActivated);
    QSignalSpy declined(view.get(), &ConnectionsView::switchDeclined);
    fillForm(*view, QStringLiteral("next"), redis, {}, QStringLiteral("sqlite://") + m_sqlite.path, {});
    QVERIFY(view->useProfile());
    QVERIFY(view->isSwitching());
    QVERIFY(!view->useProfile());  // one switch at a time
    QVERIFY(activated.isEmpty());  // never before the test answered
    QVERIFY(switched ? activated.wait(AnswerTimeoutMs) : declined.wait(AnswerTimeoutMs));
    QVERIFY(!view->isSwitching());
    QCOMPARE(askedCount, asked ? 1 : 0);
    QCOMPARE(activated.size(), switched ? 1 : 0);
    QCOMPARE(declined.size(), switched ? 0 : 1);
    if (asked)
        QVERIFY2(question.contains(words), qPrintable(question));
    else
        QVERIFY2(view->banner()->text().contains(words), qPrintable(view->banner()->text()));
    if (switched) {
        QCOMPARE(view->activeProfileName(), QStringLiteral("next"));
        QCOMPARE(activated.first().first().value<Config>().redis.port, test::redisUrl().port);
    } else {
        QCOMPARE(view->activeProfileName(), m_session.profile);  // the session in use stays marked
        QVERIFY(view->banner()->text().contains(sandbox ? QLatin1String("the sandbox") : QLatin1String("the servers given")));
    }
}

void TestConnectionsView::latencyOfTheConnectionInUse()
{
    auto view = makeView();
    QSignalSpy latency(view.get(), &ConnectionsView::latencyMeasured);
    view->refresh();
    QVERIFY(latency.wait(AnswerTimeoutMs));
    QVERIFY(latency.first().at(0).toDouble() >= 0);
    QVERIFY(latency.first().at(1).toDouble() >= 0);
}

// Issue 24, point 4: a profile of the sandbox's own servers would be stopped by the very switch.
void TestConnectionsView::noSwitchOntoTheSandboxsOwnServers_data()
{
    QTest::addColumn<QString>("redis");
    QTest::addColumn<bool>("sameFile");
    const RedisUrl own = test::redisUrl();
    QTest::newRow("the sandbox's Redis, as it is written") << QStringLiteral("redis://%1:%2").arg(own.host).arg(own.port) << false;
    QTest::newRow("the sandbox's Redis, as localhost") << QStringLiteral("redis://localhost:%1/3").arg(own.port) << false;
    QTest::newRow("another Redis, the sandbox's SQLite file") << QStringLiteral("redis://127.0.0.1:1") << true;
}

void TestConnectionsView::noSwitchOntoTheSandboxsOwnServers()
{
    QFETCH(QString, redis);
    QFETCH(bool, sameFile);
    auto view = makeView();
    view->setSandboxSession(true);
    QVERIFY(!view->sandboxButton()->isVisible());  // already on it

    // A new profile starts empty, not with the sandbox's URLs.
    view->newProfile();
    QVERIFY(!view->redisUrlField()->text().contains(QString::number(m_session.redis.port)));
    QVERIFY(!view->dbUrlField()->text().contains(m_sqlite.path));

    int asked = 0;
    view->setSwitchConfirmation([&](QWidget *, const QString &, const QString &) { return ++asked > 0; });
    QSignalSpy checks(view.get(), &ConnectionsView::checkRequested);
    QSignalSpy activated(view.get(), &ConnectionsView::profileActivated);
    const QString db = sameFile ? QStringLiteral("sqlite://") + m_sqlite.path : QStringLiteral("sqlite://") + test::sqliteUrl().path;
    fillForm(*view, QStringLiteral("loop"), redis, {}, db, {});
    QVERIFY(!view->useProfile());
    QVERIFY(!view->isSwitching());
    QCOMPARE(checks.size(), 0);
    QCOMPARE(asked, 0);
    QCOMPARE(activated.size(), 0);
    QVERIFY2(view->banner()->text().contains(QStringLiteral("points at this console's sandbox")), qPrintable(view->banner()->text()));
}

// Issue 24, point 4: once left, the sandbox is one confirmed click away.
void TestConnectionsView::backToTheSandbox()
{
    auto view = makeView();
    view->setSandboxSession(false);
    QVERIFY(view->sandboxButton()->isVisible());
    QSignalSpy requested(view.get(), &ConnectionsView::sandboxRequested);
    bool answer = false;
    QString question;
    view->setSwitchConfirmation([&](QWidget *, const QString &title, const QString &) {
        question = title;
        return answer;
    });
    QVERIFY(!view->returnToSandbox());  // declined: nothing happens
    QCOMPARE(requested.size(), 0);
    QVERIFY(question.contains(QStringLiteral("sandbox")));
    answer = true;
    QTest::mouseClick(view->sandboxButton(), Qt::LeftButton);
    QCOMPARE(requested.size(), 1);
}

LANTERN_WIDGET_TEST_SUITE(TestConnectionsView);

} // namespace tst_connectionsview

#include "tst_connectionsview.moc"
