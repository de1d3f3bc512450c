#pragma once

#include <QHash>
#include <QList>
#include <QString>

#include <utility>

namespace lantern::test {

/** One construct the portability check refused: where, what was written, and why. */
struct PortabilityFinding
{
    QString file;
    int line = 0;
    QString construct;  // as written, whitespace collapsed: "ADD COLUMN IF NOT EXISTS"
    QString reason;
    /** "file:line: construct — reason" */
    QString toString() const;
};

/** Reads the SQL Lantern sends to a MySQL-dialect server and refuses what MariaDB 10.6+ takes
    but MySQL 8.0 does not (docs/decisions.md, "MySQL 8 and MariaDB"): IF [NOT] EXISTS in ALTER
    TABLE and CREATE/DROP INDEX, RETURNING, sequences, CREATE OR REPLACE (but VIEW), MariaDB-only
    functions and clauses, MySQL-only reserved words as names, unparenthesised expression
    defaults, literal defaults on TEXT/BLOB/JSON, a CHECK constraint name used twice. Migrations
    are also held to what keeps a rerun after a crash harmless (the migrator's SchemaChange).
    No MySQL 8 server can run here: this check and MariaDB's tests are what stands for it. */
class MySqlPortabilityCheck final
{
public:
    /** One migration file of resources/sql/mysql, split the way the migrator splits it. */
    void addMigration(const QString &file, const QString &text);
    /** One C++ source file: the string literals of each statement, joined with a space, outside
        tr()/translate() calls. A literal on a line carrying the comment `SQLite only` is skipped
        (a string the code sends only to SQLite). */
    void addSource(const QString &file, const QString &text);
    /** Every migration under ROOT/resources/sql/mysql and every .cpp/.h under ROOT/models,
        ROOT/app and ROOT/ui; file names in findings are relative to ROOT. */
    void addProject(const QString &root);

    /** What was refused so far, the cross-file findings (a CHECK name used twice) included. */
    QList<PortabilityFinding> findings() const;
    int migrationFiles() const { return m_migrationFiles; }
    int migrationStatements() const { return m_migrationStatements; }
    int sourceFiles() const { return m_sourceFiles; }
    /** Literal groups of the C++ sources that read as SQL (an uppercase SELECT, INSERT, ...). */
    int sourceStatements() const { return m_sourceStatements; }

    /** This checkout's top directory (the tests are built from it). */
    static QString projectRoot();

private:
    /** lineOf(offset): the file line of an offset into sql. */
    template<typename LineOf>
    void checkSql(const QString &file, const QString &sql, LineOf lineOf);
    void checkMigrationStatement(const QString &file, const QString &statement, int line);
    void refuse(const QString &file, int line, const QString &construct, const QString &reason);

    QList<PortabilityFinding> m_findings;
    QHash<QString, QList<std::pair<QString, int>>> m_checkConstraints;  // name -> (file, line)
    int m_migrationFiles = 0;
    int m_migrationStatements = 0;
    int m_sourceFiles = 0;
    int m_sourceStatements = 0;
};

} // namespace lantern::test
