// MySQL 8.0 as well as MariaDB, checked without a MySQL 8 server (none can be installed here):
// every migration under resources/sql/mysql and every SQL string of models/, app/ and ui/ is read
// by MySqlPortabilityCheck, which refuses what MariaDB takes and MySQL 8.0 does not. The planted
// rows feed the same check text that must be refused (or let through), so the check itself is
// tested; the project rows must come out clean.
#include "mysqlportability.h"
#include "sql/migrator.h"
#include "testsuite.h"

#include <QTest>

namespace tst_mysqlportability {

using namespace lantern;
using test::MySqlPortabilityCheck;
using test::PortabilityFinding;

namespace {
enum class Source { Migration, Cpp };

QString listed(const QList<PortabilityFinding> &findings)
{
    QStringList lines;
    for (const PortabilityFinding &finding : findings)
        lines << finding.toString();
    return lines.join(QLatin1Char('\n'));
}
} // namespace

class TestMySqlPortability : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void plantedText_data();
    void plantedText();
    void project_data();
    void project();
};

void TestMySqlPortability::plantedText_data()
{
    QTest::addColumn<Source>("source");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("refused");  // a finding's construct, as written; empty: nothing refused

    const auto migration = [](const char *name, const char *text, const char *refused) {
        QTest::newRow(name) << Source::Migration << QString::fromUtf8(text) << QString::fromUtf8(refused);
    };
    const auto cpp = [](const char *name, const char *text, const char *refused) {
        QTest::newRow(name) << Source::Cpp << QString::fromUtf8(text) << QString::fromUtf8(refused);
    };
    // What the issue found, planted back.
    migration("planted ADD COLUMN IF NOT EXISTS is refused",
              "-- sub-pools\nALTER TABLE campaign ADD COLUMN IF NOT EXISTS pools INT NOT NULL DEFAULT 1;\n", "ADD COLUMN IF NOT EXISTS");
    migration("planted ADD UNIQUE KEY IF NOT EXISTS is refused",
              "ALTER TABLE payout ADD UNIQUE KEY IF NOT EXISTS uq_payout_user (campaign_id, uid);\n", "ADD UNIQUE KEY IF NOT EXISTS");
    migration("planted CREATE INDEX IF NOT EXISTS is refused", "CREATE INDEX IF NOT EXISTS idx_audit_actor ON audit_log (actor, id);\n",
              "CREATE INDEX IF NOT EXISTS");
    migration("planted DROP COLUMN IF EXISTS is refused", "ALTER TABLE campaign DROP COLUMN IF EXISTS pools;\n", "DROP COLUMN IF EXISTS");
    migration("planted DROP INDEX IF EXISTS is refused", "DROP INDEX IF EXISTS idx_audit_actor ON audit_log;\n", "DROP INDEX IF EXISTS");
    migration("planted ALTER TABLE IF EXISTS is refused", "ALTER TABLE IF EXISTS campaign ADD COLUMN pools INT;\n", "ALTER TABLE IF EXISTS");
    // The other MariaDB-only constructs of the table in docs/decisions.md.
    migration("planted CREATE OR REPLACE TABLE is refused", "CREATE OR REPLACE TABLE t (id BIGINT NOT NULL);\n", "CREATE OR REPLACE TABLE");
    migration("planted CREATE SEQUENCE is refused", "CREATE SEQUENCE campaign_ids START WITH 1;\n", "CREATE SEQUENCE");
    migration("planted NEXTVAL() is refused", "INSERT IGNORE INTO campaign_ids VALUES (NEXTVAL(s));\n", "NEXTVAL(");
    migration("planted NEXT VALUE FOR is refused", "INSERT IGNORE INTO t (id) VALUES (NEXT VALUE FOR s);\n", "NEXT VALUE FOR");
    migration("planted INSERT ... RETURNING is refused", "INSERT INTO t (a) VALUES (1) RETURNING a;\n", "RETURNING");
    migration("planted MariaDB-only function is refused", "UPDATE t SET s = SFORMAT('{}', a) WHERE id = 1;\n", "SFORMAT(");
    migration("planted VALUE(col) is refused", "INSERT INTO t (a, b) VALUES (1, 2) ON DUPLICATE KEY UPDATE b = VALUE(b);\n", "VALUE(");
    migration("planted FETCH FIRST ... ROWS ONLY is refused", "DELETE FROM t WHERE id IN (SELECT id FROM u FETCH FIRST 5 ROWS ONLY);\n",
              "FETCH FIRST 5 ROWS ONLY");
    migration("planted INET6 column is refused", "CREATE TABLE IF NOT EXISTS t (id BIGINT NOT NULL, addr INET6 NULL);\n", "INET6");
    migration("planted bare expression default is refused", "CREATE TABLE IF NOT EXISTS t (u VARCHAR(36) NOT NULL DEFAULT UUID());\n",
              "DEFAULT UUID(");
    migration("planted literal default on TEXT is refused", "ALTER TABLE audit_log ADD COLUMN note TEXT NOT NULL DEFAULT '';\n",
              "TEXT NOT NULL DEFAULT");
    migration("planted column named rank (MySQL-reserved) is refused", "CREATE TABLE IF NOT EXISTS t (id BIGINT NOT NULL, rank INT NOT NULL);\n",
              "rank");
    migration("planted CHECK name used on two tables is refused",
              "CREATE TABLE IF NOT EXISTS a (k INT, CONSTRAINT chk_twice CHECK (k > 0));\n"
              "CREATE TABLE IF NOT EXISTS b (k INT, CONSTRAINT chk_twice CHECK (k > 0));\n",
              "chk_twice");
    // What keeps a rerun after a crash harmless.
    migration("planted CREATE TABLE without IF NOT EXISTS is refused", "CREATE TABLE t (id BIGINT NOT NULL);\n", "CREATE TABLE");
    migration("planted two-clause ALTER TABLE is refused", "ALTER TABLE campaign ADD COLUMN a INT, ADD COLUMN b INT;\n", "ALTER TABLE");
    // What both servers take passes.
    migration("plain ADD COLUMN passes (the migrator guards it)", "ALTER TABLE campaign ADD COLUMN pools INT NOT NULL DEFAULT 1;\n", "");
    migration("CREATE TABLE IF NOT EXISTS with a CHECK passes",
              "CREATE TABLE IF NOT EXISTS t (\n    kind VARCHAR(8) NOT NULL,\n    CONSTRAINT chk_t_kind CHECK (kind IN ('a', 'b'))\n);\n", "");
    migration("CREATE OR REPLACE VIEW passes", "CREATE OR REPLACE VIEW v AS SELECT 1;\n", "");
    migration("ON DUPLICATE KEY UPDATE VALUES() passes", "INSERT INTO t (a, b) VALUES (1, 2) ON DUPLICATE KEY UPDATE b = VALUES(b);\n", "");
    migration("DEFAULT CURRENT_TIMESTAMP and DEFAULT ('') on TEXT pass",
              "CREATE TABLE IF NOT EXISTS t (at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, note TEXT NOT NULL DEFAULT (''));\n", "");
    migration("a MySQL-reserved name in backquotes passes", "CREATE TABLE IF NOT EXISTS t (id BIGINT NOT NULL, `rank` INT NOT NULL);\n", "");
    migration("DROP TABLE IF EXISTS passes", "DROP TABLE IF EXISTS t;\n", "");

    // The C++ scan: literals joined per statement, comments and tr() texts left out.
    cpp("planted RETURNING in a QStringLiteral is refused",
        "QSqlQuery q = sql.exec(QStringLiteral(\"INSERT INTO grab (campaign_id, seq) VALUES (?, ?) RETURNING seq\"), {1, 2});\n", "RETURNING");
    cpp("planted ADD COLUMN IF NOT EXISTS split over two literals is refused",
        "sql.exec(QStringLiteral(\"ALTER TABLE campaign ADD COLUMN \")\n         + QStringLiteral(\"IF NOT EXISTS pools INT\"));\n",
        "ADD COLUMN IF NOT EXISTS");
    cpp("planted CREATE INDEX IF NOT EXISTS in adjacent literals is refused",
        "m_sql.exec(QStringLiteral(\"CREATE INDEX IF NOT \"\n                           \"EXISTS i ON t (a)\"));\n", "CREATE INDEX IF NOT EXISTS");
    cpp("planted NEXTVAL in a raw string is refused", "const char *sql = R\"(SELECT NEXTVAL(campaign_ids))\";\n", "NEXTVAL(");
    cpp("planted RETURNING after a digit separator is refused",
        "constexpr qint64 Limit = 1'000'000;\nsql.exec(QStringLiteral(\"DELETE FROM t WHERE id > ? RETURNING id\"), {Limit});\n", "RETURNING");
    cpp("the same words in a comment pass", "// ALTER TABLE campaign ADD COLUMN IF NOT EXISTS pools INT\nint x = 0;\n", "");
    cpp("the same words in a tr() message pass",
        "throw SqlError(tr(\"INSERT ... RETURNING is not sent to %1\").arg(QStringLiteral(\"SELECT 1\")));\n", "");
    cpp("a string marked SQLite only passes",
        "const QString sql = QStringLiteral(\"INSERT INTO t (a) VALUES (?) RETURNING a\");  // SQLite only\n", "");
}

void TestMySqlPortability::plantedText()
{
    QFETCH(Source, source);
    QFETCH(QString, text);
    QFETCH(QString, refused);
    const QString file = source == Source::Migration ? QStringLiteral("planted/0099_planted.sql") : QStringLiteral("planted/planted.cpp");
    MySqlPortabilityCheck check;
    if (source == Source::Migration)
        check.addMigration(file, text);
    else
        check.addSource(file, text);
    const QList<PortabilityFinding> findings = check.findings();
    if (refused.isEmpty()) {
        QVERIFY2(findings.isEmpty(), qPrintable(listed(findings)));
        return;
    }
    const bool named = std::any_of(findings.cbegin(), findings.cend(), [&](const PortabilityFinding &finding) {
        return finding.construct.compare(refused, Qt::CaseInsensitive) == 0 && finding.toString().startsWith(file + QLatin1Char(':'));
    });
    QVERIFY2(named, qPrintable(QStringLiteral("expected \"%1\" refused in %2; found:\n%3").arg(refused, file, listed(findings))));
}

void TestMySqlPortability::project_data()
{
    QTest::addColumn<QStringList>("folders");
    QTest::newRow("every migration under resources/sql/mysql") << QStringList{QStringLiteral("resources/sql/mysql/")};
    QTest::newRow("every SQL string of models/, app/, ui/")
            << QStringList{QStringLiteral("models/"), QStringLiteral("app/"), QStringLiteral("ui/")};
}

void TestMySqlPortability::project()
{
    QFETCH(QStringList, folders);
    MySqlPortabilityCheck check;
    check.addProject(MySqlPortabilityCheck::projectRoot());
    QList<PortabilityFinding> findings = check.findings();
    findings.removeIf([&](const PortabilityFinding &finding) {
        return std::none_of(folders.cbegin(), folders.cend(), [&](const QString &folder) { return finding.file.startsWith(folder); });
    });
    QVERIFY2(findings.isEmpty(), qPrintable(listed(findings)));

    // It read what it should: every migration this binary applies, and the code's SQL.
    QCOMPARE(check.migrationFiles(), Migrator::latestVersion());
    QVERIFY(check.migrationStatements() >= Migrator::latestVersion());
    QVERIFY2(check.sourceFiles() >= 100, qPrintable(QString::number(check.sourceFiles())));
    QVERIFY2(check.sourceStatements() >= 50, qPrintable(QString::number(check.sourceStatements())));
    qInfo("read %d migrations (%d statements), %d source files (%d SQL strings)", check.migrationFiles(), check.migrationStatements(),
          check.sourceFiles(), check.sourceStatements());
}

LANTERN_TEST_SUITE(TestMySqlPortability);

} // namespace tst_mysqlportability

#include "tst_mysqlportability.moc"
