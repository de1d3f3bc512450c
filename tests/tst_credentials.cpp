// Settings from systemd credentials (LoadCredential= puts them in $CREDENTIALS_DIRECTORY, one file
// per setting): read, between the flag and the environment in the order of Config::resolve.
#include "core/errors.h"
#include "settings/config.h"
#include "testsuite.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

namespace tst_credentials {

using namespace lantern;

class TestCredentials : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void settingsFromCredentials();
    void order_data();
    void order();
    void lineBreaks_data();
    void lineBreaks();
    void unreadableCredentialIsInvalidInput();
    void noDirectoryNoCredentials();

private:
    void writeCredential(const QString &name, const QByteArray &value);

    std::unique_ptr<QTemporaryDir> m_dir;
    QProcessEnvironment m_environment;
};

void TestCredentials::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_environment = QProcessEnvironment();
    m_environment.insert(QStringLiteral("CREDENTIALS_DIRECTORY"), m_dir->path());
}

void TestCredentials::writeCredential(const QString &name, const QByteArray &value)
{
    QFile file(m_dir->filePath(name));
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(value), value.size());
}

void TestCredentials::settingsFromCredentials()
{
    writeCredential(QStringLiteral("redis"), "redis://worker:s3cret@cachehost:6380\n");
    writeCredential(QStringLiteral("db"), "mysql://lantern:pa55@dbhost:3306/lantern?unix_socket=/run/mysqld/mysqld.sock\n");
    writeCredential(QStringLiteral("token-secret"), "signing key\n");
    const Config config = Config::resolve({}, m_environment);
    QCOMPARE(config.redis.host, QStringLiteral("cachehost"));
    QCOMPARE(config.redis.port, 6380);
    QCOMPARE(config.redis.password, QStringLiteral("s3cret"));
    QCOMPARE(config.db.password, QStringLiteral("pa55"));
    QCOMPARE(config.db.unixSocket, QStringLiteral("/run/mysqld/mysqld.sock"));
    QCOMPARE(config.tokenSecret, QStringLiteral("signing key"));
}

void TestCredentials::order_data()
{
    QTest::addColumn<bool>("flag");
    QTest::addColumn<bool>("credential");
    QTest::addColumn<bool>("variable");
    QTest::addColumn<QString>("expectedHost");
    QTest::newRow("flag beats credential and variable") << true << true << true << QStringLiteral("flaghost");
    QTest::newRow("credential beats the environment file's variable") << false << true << true << QStringLiteral("credhost");
    QTest::newRow("variable when there is no credential") << false << false << true << QStringLiteral("envhost");
    QTest::newRow("default when there is nothing") << false << false << false << QStringLiteral("127.0.0.1");
}

void TestCredentials::order()
{
    QFETCH(bool, flag);
    QFETCH(bool, credential);
    QFETCH(bool, variable);
    QFETCH(QString, expectedHost);
    QHash<QString, QString> flags;
    if (flag)
        flags.insert(QStringLiteral("redis"), QStringLiteral("redis://flaghost:1"));
    if (credential)
        writeCredential(QStringLiteral("redis"), "redis://credhost:2");
    if (variable)
        m_environment.insert(QStringLiteral("LANTERN_REDIS"), QStringLiteral("redis://envhost:3"));
    QCOMPARE(Config::resolve(flags, m_environment).redis.host, expectedHost);
}

void TestCredentials::lineBreaks_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("expected");
    QTest::newRow("no line break") << QByteArray("abc") << QStringLiteral("abc");
    QTest::newRow("one final newline dropped") << QByteArray("abc\n") << QStringLiteral("abc");
    QTest::newRow("CRLF dropped") << QByteArray("abc\r\n") << QStringLiteral("abc");
    QTest::newRow("only the last of two newlines dropped") << QByteArray("abc\n\n") << QStringLiteral("abc\n");
    QTest::newRow("spaces kept: a secret may have them") << QByteArray(" a b \n") << QStringLiteral(" a b ");
}

void TestCredentials::lineBreaks()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, expected);
    writeCredential(QStringLiteral("token-secret"), content);
    QCOMPARE(Config::resolve({}, m_environment).tokenSecret, expected);
}

void TestCredentials::unreadableCredentialIsInvalidInput()
{
    // A directory where the file should be: it exists and cannot be read as a credential.
    QVERIFY(QDir(m_dir->path()).mkdir(QStringLiteral("db")));
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, Config::resolve({}, m_environment));
}

void TestCredentials::noDirectoryNoCredentials()
{
    writeCredential(QStringLiteral("redis"), "redis://credhost:2");
    QProcessEnvironment without;
    without.insert(QStringLiteral("LANTERN_REDIS"), QStringLiteral("redis://envhost:3"));
    QCOMPARE(Config::resolve({}, without).redis.host, QStringLiteral("envhost"));
}

LANTERN_TEST_SUITE(TestCredentials);

} // namespace tst_credentials

#include "tst_credentials.moc"
