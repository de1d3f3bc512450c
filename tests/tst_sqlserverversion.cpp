// Which server a connection talks to, read at connect (SqlServerVersion): the texts MariaDB and
// MySQL 8 report, and the private MariaDB and SQLite themselves. Statements whose form differs
// between MySQL 8 and MariaDB are chosen from it (docs/decisions.md, "MySQL 8 and MariaDB").
#include "sql/sqlconnection.h"
#include "sql/sqlserverversion.h"
#include "testservers.h"
#include "testsuite.h"

#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTest>

namespace tst_sqlserverversion {

using namespace lantern;
using Flavour = SqlServerVersion::Flavour;

class TestSqlServerVersion : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesWhatServersReport_data();
    void parsesWhatServersReport();
    void readsTheMariaDbItTalksTo();
    void readsSqlite();
};

void TestSqlServerVersion::parsesWhatServersReport_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<Flavour>("flavour");
    QTest::addColumn<QString>("version");
    const auto row = [](const char *text, Flavour flavour, const char *version) {
        QTest::newRow(text) << QString::fromLatin1(text) << flavour << QString::fromLatin1(version);
    };
    row("10.11.19-MariaDB-0+deb12u1", Flavour::MariaDb, "10.11.19");
    row("5.5.5-10.11.6-MariaDB-log", Flavour::MariaDb, "10.11.6");  // the handshake's form
    row("11.4.2-MariaDB", Flavour::MariaDb, "11.4.2");
    row("8.0.36", Flavour::MySql, "8.0.36");
    row("8.4.0-commercial", Flavour::MySql, "8.4.0");
    row("8.0.36-28", Flavour::MySql, "8.0.36");  // Percona Server
    row("8.0.35-0ubuntu0.22.04.1", Flavour::MySql, "8.0.35");
}

void TestSqlServerVersion::parsesWhatServersReport()
{
    QFETCH(QString, text);
    QFETCH(Flavour, flavour);
    QFETCH(QString, version);
    const SqlServerVersion parsed = SqlServerVersion::parse(DbUrl::Dialect::MySql, text);
    QCOMPARE(parsed.flavour, flavour);
    QCOMPARE(QStringLiteral("%1.%2.%3").arg(parsed.major).arg(parsed.minor).arg(parsed.patch), version);
    QCOMPARE(parsed.text, text);
    const QStringList parts = version.split(QLatin1Char('.'));
    QVERIFY(parsed.isAtLeast(parts[0].toInt(), parts[1].toInt(), parts[2].toInt()));
    QVERIFY(!parsed.isAtLeast(parts[0].toInt(), parts[1].toInt(), parts[2].toInt() + 1));
    QVERIFY(parsed.isAtLeast(parts[0].toInt() - 1, 99, 99));
}

void TestSqlServerVersion::readsTheMariaDbItTalksTo()
{
    SqlConnection sql(test::mysqlUrl());
    const SqlServerVersion server = SqlServerVersion::of(sql);
    QCOMPARE(server.flavour, Flavour::MariaDb);
    // The same server binary the harness started, as its own --version prints it.
    QString binary = QStandardPaths::findExecutable(QStringLiteral("mariadbd"));
    if (binary.isEmpty())
        binary = QStandardPaths::findExecutable(QStringLiteral("mariadbd"), {QStringLiteral("/usr/sbin")});
    QVERIFY2(!binary.isEmpty(), "mariadbd, which the harness runs, is not on PATH nor in /usr/sbin");
    QProcess mariadbd;
    mariadbd.start(binary, {QStringLiteral("--version")});
    QVERIFY(mariadbd.waitForFinished(10000));
    const auto match = QRegularExpression(QStringLiteral("Ver (\\d+)\\.(\\d+)\\.(\\d+)")).match(QString::fromLocal8Bit(mariadbd.readAllStandardOutput()));
    QVERIFY2(match.hasMatch(), "mariadbd --version printed no version");
    QCOMPARE(server.major, match.captured(1).toInt());
    QCOMPARE(server.minor, match.captured(2).toInt());
    QCOMPARE(server.patch, match.captured(3).toInt());
    QVERIFY(server.isAtLeast(10, 6));  // DESIGN §3: MariaDB 10.6+
}

void TestSqlServerVersion::readsSqlite()
{
    SqlConnection sql(test::sqliteUrl());
    const SqlServerVersion server = SqlServerVersion::of(sql);
    QCOMPARE(server.flavour, Flavour::Sqlite);
    QCOMPARE(server.major, 3);
    QVERIFY(server.isAtLeast(3, 16));  // pragma_table_info() as a table, which the migrator's SchemaChange uses
}

LANTERN_TEST_SUITE(TestSqlServerVersion);

} // namespace tst_sqlserverversion

#include "tst_sqlserverversion.moc"
