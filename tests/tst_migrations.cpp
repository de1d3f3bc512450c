// The migrations, 0001 to the latest, on the private MariaDB and on SQLite: from an empty
// database, from a database at every earlier version, after a crash at every statement of every
// migration (the change made, the version not recorded), and on a database that ran 0003-0005
// when they still said IF NOT EXISTS (MariaDB only). Each ends with the schema a fresh database
// gets, column for column and index for index.
#include "envelope/ledgertally.h"
#include "sql/migrator.h"
#include "sql/schemachange.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QSqlRecord>
#include <QTest>

#include <memory>

namespace tst_migrations {

using namespace lantern;

namespace {

/** The schema as rows of text: columns, indexes and CHECK constraints (MySQL), or SQLite's
    own record of every table and index. */
QStringList schemaOf(SqlConnection &sql)
{
    QStringList queries;
    if (sql.dialect() == DbUrl::Dialect::MySql) {
        queries << QStringLiteral("SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COALESCE(COLUMN_DEFAULT, '(none)') "
                                  "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION")
                << QStringLiteral("SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME FROM information_schema.STATISTICS "
                                  "WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX")
                << QStringLiteral("SELECT TABLE_NAME, CONSTRAINT_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS "
                                  "WHERE CONSTRAINT_SCHEMA = DATABASE() ORDER BY TABLE_NAME, CONSTRAINT_NAME");
    } else {
        queries << QStringLiteral("SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
                                  "ORDER BY type, name");
    }
    QStringList rows;
    for (const QString &text : std::as_const(queries)) {
        QSqlQuery query = sql.exec(text);
        while (query.next()) {
            QStringList fields;
            for (int i = 0; i < query.record().count(); ++i)
                fields << query.value(i).toString();
            rows << fields.join(QLatin1Char('|'));
        }
    }
    return rows;
}

/** migrate(), or -1 after printing why it threw (the row fails on its own, the others still run). */
/** `count` live campaigns of 10 envelopes inserted as rows (no launch), their ids in order. */
QList<qint64> liveCampaigns(SqlConnection &sql, int count)
{
    for (int n = 0; n < count; ++n)
        sql.exec(QStringLiteral("INSERT INTO campaign (name, total_cents, count, min_cents, algorithm, seed, max_attempts, status, "
                                "created_at_ms) VALUES (?, 1000, 10, 1, 'double-mean', 7, 9, 'live', 1)"),
                 {QStringLiteral("campaign %1").arg(n)});
    QList<qint64> ids;
    QSqlQuery campaigns = sql.exec(QStringLiteral("SELECT id FROM campaign ORDER BY id"));
    while (campaigns.next())
        ids << campaigns.value(0).toLongLong();
    return ids;
}

int migrated(Migrator &migrator)
{
    try {
        return migrator.migrate();
    } catch (const LanternError &error) {
        qWarning("migrate() threw: %s", qPrintable(error.message()));
        return -1;
    }
}

qint64 scalar(SqlConnection &sql, const QString &text)
{
    QSqlQuery query = sql.exec(text);
    return query.next() ? query.value(0).toLongLong() : -1;
}

/** 0003-0005 for MySQL as they were before MySQL 8 was a target: MariaDB-only. */
const QStringList &mariaDbOnlyStatements(int version)
{
    static const QList<QStringList> statements{
            {QStringLiteral("ALTER TABLE payout ADD UNIQUE KEY IF NOT EXISTS uq_payout_user (campaign_id, uid)")},
            {QStringLiteral("ALTER TABLE campaign ADD COLUMN IF NOT EXISTS pools INT NOT NULL DEFAULT 1"),
             QStringLiteral("ALTER TABLE campaign ADD COLUMN IF NOT EXISTS pool_names VARCHAR(1400) NOT NULL DEFAULT ''")},
            {QStringLiteral("CREATE INDEX IF NOT EXISTS idx_audit_actor ON audit_log (actor, id)"),
             QStringLiteral("CREATE INDEX IF NOT EXISTS idx_audit_action ON audit_log (action, id)"),
             QStringLiteral("CREATE INDEX IF NOT EXISTS idx_audit_target ON audit_log (target, id)")}};
    return statements.at(version - 3);
}

} // namespace

class TestMigrations : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanupTestCase();
    void schemaChangeReadsItsStatement_data();
    void schemaChangeReadsItsStatement();
    void fromEveryVersion_data();
    void fromEveryVersion();
    void afterACrashAtEveryStatement_data();
    void afterACrashAtEveryStatement();
    void tallyBackfillCountsTheRowsThere_data();
    void tallyBackfillCountsTheRowsThere();
    void splitBackfillRecordsTheRowsThere_data() { tallyBackfillCountsTheRowsThere_data(); }
    void splitBackfillRecordsTheRowsThere();
    void mariaDbOnlyHistoryKeepsWorking_data();
    void mariaDbOnlyHistoryKeepsWorking();

private:
    /** An empty database of its own (a new SQLite file, a new MariaDB database). */
    DbUrl freshDatabase(const QString &dialect);
    /** A fresh database brought to `version` by the migrator. */
    std::unique_ptr<SqlConnection> databaseAt(const QString &dialect, int version);
    /** The schema of a database migrated from empty, once per dialect. */
    QStringList reference(const QString &dialect);

    QStringList m_mysqlDatabases;
    QHash<QString, QStringList> m_reference;
};

void TestMigrations::cleanupTestCase()
{
    if (m_mysqlDatabases.isEmpty())
        return;
    SqlConnection admin(test::mysqlUrl());
    for (const QString &name : std::as_const(m_mysqlDatabases))
        admin.exec(QStringLiteral("DROP DATABASE IF EXISTS ") + name);
}

DbUrl TestMigrations::freshDatabase(const QString &dialect)
{
    if (dialect == QLatin1String("sqlite"))
        return test::sqliteUrl();
    DbUrl url = test::mysqlUrl();
    const QString name = url.database + QStringLiteral("_m%1").arg(m_mysqlDatabases.size());
    SqlConnection admin(url);
    admin.exec(QStringLiteral("DROP DATABASE IF EXISTS ") + name);
    admin.exec(QStringLiteral("CREATE DATABASE ") + name + QStringLiteral(" CHARACTER SET utf8mb4"));
    m_mysqlDatabases << name;
    url.database = name;
    return url;
}

std::unique_ptr<SqlConnection> TestMigrations::databaseAt(const QString &dialect, int version)
{
    auto sql = std::make_unique<SqlConnection>(freshDatabase(dialect));
    Migrator(*sql).migrateTo(version);
    return sql;
}

QStringList TestMigrations::reference(const QString &dialect)
{
    if (!m_reference.contains(dialect)) {
        SqlConnection sql(freshDatabase(dialect));
        Migrator migrator(sql);
        if (migrator.migrate() == Migrator::latestVersion())
            m_reference.insert(dialect, schemaOf(sql));
    }
    return m_reference.value(dialect);
}

void TestMigrations::schemaChangeReadsItsStatement_data()
{
    QTest::addColumn<QString>("statement");
    QTest::addColumn<QString>("change");  // "kind table name", empty: not guarded by the migrator
    const auto row = [](const char *statement, const char *change) {
        QTest::newRow(statement) << QString::fromLatin1(statement) << QString::fromLatin1(change);
    };
    row("ALTER TABLE campaign ADD COLUMN pools INT NOT NULL DEFAULT 1", "add-column campaign pools");
    row("ALTER TABLE campaign ADD pool_names VARCHAR(1400) NOT NULL DEFAULT 'a,b'", "add-column campaign pool_names");
    row("ALTER TABLE payout ADD UNIQUE KEY uq_payout_user (campaign_id, uid)", "add-index payout uq_payout_user");
    row("alter table payout add index idx_x (seq)", "add-index payout idx_x");
    row("CREATE INDEX idx_audit_actor ON audit_log (actor, id)", "add-index audit_log idx_audit_actor");
    row("CREATE UNIQUE INDEX `uq_t` ON `t` (a)", "add-index t uq_t");
    row("ALTER TABLE t DROP COLUMN c", "drop-column t c");
    row("ALTER TABLE t DROP KEY k", "drop-index t k");
    row("DROP INDEX k ON t", "drop-index t k");
    row("ALTER TABLE t ADD COLUMN a INT, ADD COLUMN b INT", "");
    row("ALTER TABLE t ADD COLUMN IF NOT EXISTS a INT", "");
    row("CREATE INDEX IF NOT EXISTS i ON t (a)", "");
    row("ALTER TABLE t ADD UNIQUE (a)", "");
    row("ALTER TABLE t ADD PRIMARY KEY (a)", "");
    row("ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0)", "add-constraint t c");
    row("ALTER TABLE t DROP CONSTRAINT c", "drop-constraint t c");
    row("ALTER TABLE t ADD CONSTRAINT c UNIQUE (a)", "");
    row("ALTER TABLE t MODIFY a BIGINT", "");
    row("CREATE TABLE IF NOT EXISTS t (a INT)", "");
}

void TestMigrations::schemaChangeReadsItsStatement()
{
    QFETCH(QString, statement);
    QFETCH(QString, change);
    const auto parsed = SchemaChange::parse(statement);
    QString got;
    if (parsed) {
        switch (parsed->kind()) {
        case SchemaChange::Kind::AddColumn: got = QStringLiteral("add-column"); break;
        case SchemaChange::Kind::DropColumn: got = QStringLiteral("drop-column"); break;
        case SchemaChange::Kind::AddIndex: got = QStringLiteral("add-index"); break;
        case SchemaChange::Kind::DropIndex: got = QStringLiteral("drop-index"); break;
        case SchemaChange::Kind::AddConstraint: got = QStringLiteral("add-constraint"); break;
        case SchemaChange::Kind::DropConstraint: got = QStringLiteral("drop-constraint"); break;
        }
        got += QLatin1Char(' ') + parsed->table() + QLatin1Char(' ') + parsed->name();
    }
    QCOMPARE(got, change);
}

void TestMigrations::fromEveryVersion_data()
{
    QTest::addColumn<QString>("dialect");
    QTest::addColumn<int>("start");
    for (const char *dialect : {"mysql", "sqlite"}) {
        for (int start = 0; start < Migrator::latestVersion(); ++start)
            QTest::addRow("%s: from version %d", dialect, start) << QString::fromLatin1(dialect) << start;
    }
}

void TestMigrations::fromEveryVersion()
{
    QFETCH(QString, dialect);
    QFETCH(int, start);
    const auto database = databaseAt(dialect, start);
    SqlConnection &sql = *database;
    Migrator migrator(sql);
    QCOMPARE(migrator.currentVersion(), start);
    if (start >= 2) {  // a campaign made before sub-pools keeps its row and gets one pool
        sql.exec(QStringLiteral("INSERT INTO campaign (name, total_cents, count, min_cents, algorithm, seed, max_attempts, status, "
                                "created_at_ms) VALUES ('before', 1000, 10, 1, 'double-mean', 7, 9, 'draft', 1)"));
    }
    QCOMPARE(migrated(migrator), Migrator::latestVersion());
    QCOMPARE(migrator.currentVersion(), Migrator::latestVersion());
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM schema_version")), qint64(Migrator::latestVersion()));
    QCOMPARE(schemaOf(sql), reference(dialect));
    if (start >= 2) {
        QSqlQuery row = sql.exec(QStringLiteral("SELECT pools, pool_names FROM campaign WHERE name = 'before'"));
        QVERIFY(row.next());
        QCOMPARE(row.value(0).toInt(), 1);
        QCOMPARE(row.value(1).toString(), QString());
    }
}

void TestMigrations::tallyBackfillCountsTheRowsThere_data()
{
    QTest::addColumn<QString>("dialect");
    QTest::newRow("mysql") << QStringLiteral("mysql");
    QTest::newRow("sqlite") << QStringLiteral("sqlite");
}

void TestMigrations::tallyBackfillCountsTheRowsThere()
{
    // A database with a ledger before the tally (0010): the migration counts its rows once, so
    // an upgraded database starts with a tally equal to its rows.
    QFETCH(QString, dialect);
    const auto database = databaseAt(dialect, 9);
    SqlConnection &sql = *database;
    const QList<qint64> ids = liveCampaigns(sql, 3);
    QCOMPARE(ids.size(), 3);
    const QString grab = QStringLiteral("INSERT INTO grab (campaign_id, seq, uid, amount_cents, grabbed_at_ms) VALUES (?, ?, ?, ?, 1)");
    const QString payout = QStringLiteral("INSERT INTO payout (idempotency_key, campaign_id, seq, uid, amount_cents, status, attempts, "
                                          "updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, 1)");
    // Campaign one: three grabs, paid (2 calls), failed (5 calls), pending (1 call); two: one
    // grab with no payout row yet; none: nothing.
    const struct {
        qint64 campaign, seq, uid, cents;
        const char *status;
        int attempts;
    } rows[] = {{ids[0], 1, 11, 100, "paid", 2}, {ids[0], 2, 12, 150, "failed", 5}, {ids[0], 3, 13, 70, "pending", 1}, {ids[1], 4, 14, 90, nullptr, 0}};
    for (const auto &row : rows) {
        sql.exec(grab, {row.campaign, row.seq, row.uid, row.cents});
        if (row.status)
            sql.exec(payout, {QStringLiteral("cp:%1:%2").arg(row.campaign).arg(row.seq), row.campaign, row.seq, row.uid, row.cents,
                              QLatin1String(row.status), row.attempts});
    }
    Migrator migrator(sql);
    QCOMPARE(migrated(migrator), Migrator::latestVersion());
    const QHash<qint64, TallyFigures> tally = LedgerTally::read(sql, std::nullopt);
    QCOMPARE(tally, LedgerTally::count(sql, std::nullopt));
    QCOMPARE(tally.size(), 2);  // no row for the campaign without grabs
    QCOMPARE(tally.value(ids[0]), (TallyFigures{3, 320, 1, 100, 1, 150, 8}));
    QCOMPARE(tally.value(ids[1]), (TallyFigures{1, 90, 0, 0, 0, 0, 0}));
}

void TestMigrations::splitBackfillRecordsTheRowsThere()
{
    // A database launched before the recorded splits (0011): the migration records what each
    // campaign's envelope rows make, with the envelope watch as it stands (one row updated by
    // hand already: the record is made after it, so a view may trust it).
    QFETCH(QString, dialect);
    const auto database = databaseAt(dialect, 10);
    SqlConnection &sql = *database;
    const QList<qint64> ids = liveCampaigns(sql, 2);
    QCOMPARE(ids.size(), 2);
    for (qint64 seq = 1; seq <= 4; ++seq)
        sql.exec(QStringLiteral("INSERT INTO envelope (campaign_id, seq, amount_cents) VALUES (?, ?, ?)"), {ids[0], seq, 10 * seq});
    sql.exec(QStringLiteral("UPDATE envelope SET amount_cents = 5 WHERE campaign_id = ? AND seq = 2"), {ids[0]});
    Migrator migrator(sql);
    QCOMPARE(migrated(migrator), Migrator::latestVersion());
    QSqlQuery rows = sql.exec(QStringLiteral("SELECT campaign_id, envelopes, envelope_cents, smallest_cents, first_seq, last_seq, watch_changes FROM envelope_split"));
    QList<QList<qint64>> recorded;
    while (rows.next()) {
        QList<qint64> row;
        for (int column = 0; column < 7; ++column)
            row << rows.value(column).toLongLong();
        recorded << row;
    }
    // The campaign without envelopes has no record (a view reads its rows).
    QCOMPARE(recorded, (QList<QList<qint64>>{{ids[0], 4, 10 + 5 + 30 + 40, 5, 1, 4, 1}}));
}

void TestMigrations::afterACrashAtEveryStatement_data()
{
    QTest::addColumn<QString>("dialect");
    QTest::addColumn<int>("version");
    QTest::addColumn<int>("done");  // statements of `version` run before the crash
    for (const char *name : {"mysql", "sqlite"}) {
        const auto dialect = QLatin1String(name) == QLatin1String("mysql") ? DbUrl::Dialect::MySql : DbUrl::Dialect::Sqlite;
        for (int version = 1; version <= Migrator::latestVersion(); ++version) {
            const qsizetype statements = Migrator::migrationStatements(dialect, version).size();
            for (qsizetype done = 1; done <= statements; ++done)
                QTest::addRow("%s: %04d, %lld of %lld statements made, version not recorded", name, version, qlonglong(done),
                              qlonglong(statements))
                        << QString::fromLatin1(name) << version << int(done);
        }
    }
}

void TestMigrations::afterACrashAtEveryStatement()
{
    QFETCH(QString, dialect);
    QFETCH(int, version);
    QFETCH(int, done);
    const auto database = databaseAt(dialect, version - 1);
    SqlConnection &sql = *database;
    Migrator migrator(sql);
    const QStringList statements = Migrator::migrationStatements(sql.dialect(), version);
    for (int i = 0; i < done; ++i)
        sql.exec(statements.at(i));
    QCOMPARE(migrator.currentVersion(), version - 1);

    QCOMPARE(migrated(migrator), Migrator::latestVersion());
    QCOMPARE(schemaOf(sql), reference(dialect));
}

void TestMigrations::mariaDbOnlyHistoryKeepsWorking_data()
{
    QTest::addColumn<int>("recorded");  // the last version the old files recorded
    QTest::addColumn<int>("halfOf");    // 0, or the old file that stopped after its first statement
    QTest::newRow("0003-0005 applied by the MariaDB-only files") << 5 << 0;
    QTest::newRow("the MariaDB-only 0004 stopped after its first column") << 3 << 4;
    QTest::newRow("the MariaDB-only 0005 stopped after its first index") << 4 << 5;
}

void TestMigrations::mariaDbOnlyHistoryKeepsWorking()
{
    QFETCH(int, recorded);
    QFETCH(int, halfOf);
    const auto database = databaseAt(QStringLiteral("mysql"), 2);
    SqlConnection &sql = *database;
    Migrator migrator(sql);
    sql.exec(Migrator::migrationStatements(DbUrl::Dialect::MySql, 3).first());  // grab_refused, unchanged
    for (int version = 3; version <= recorded; ++version) {
        for (const QString &statement : mariaDbOnlyStatements(version))
            sql.exec(statement);
        sql.exec(QStringLiteral("INSERT INTO schema_version (version, applied_at_ms) VALUES (?, 1)"), {version});
    }
    if (halfOf != 0)
        sql.exec(mariaDbOnlyStatements(halfOf).first());
    QCOMPARE(migrator.currentVersion(), recorded);

    QCOMPARE(migrated(migrator), Migrator::latestVersion());
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM schema_version")), qint64(Migrator::latestVersion()));
    QCOMPARE(schemaOf(sql), reference(QStringLiteral("mysql")));
}

LANTERN_TEST_SUITE(TestMigrations);

} // namespace tst_migrations

#include "tst_migrations.moc"
