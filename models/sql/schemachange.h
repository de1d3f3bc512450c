#pragma once

#include <QString>

#include <optional>

namespace lantern {

class SqlConnection;

/** One migration statement that adds or drops a column or an index, written the way MySQL 8.0
    and MariaDB both take it (no IF [NOT] EXISTS). The migrator asks the schema whether the change
    is already made (a rerun after a crash between the statement and the version row) and then
    skips the statement: information_schema on MySQL, the table's pragma and sqlite_master on
    SQLite (docs/decisions.md, "MySQL 8 and MariaDB"). */
class SchemaChange final {
public:
    enum class Kind { AddColumn, DropColumn, AddIndex, DropIndex, AddConstraint, DropConstraint };

    /** The change a statement makes, when it is one of:
        ALTER TABLE t ADD [COLUMN] c ...            ALTER TABLE t DROP [COLUMN] c
        ALTER TABLE t ADD [UNIQUE] {KEY|INDEX} i (...)   ALTER TABLE t DROP {KEY|INDEX} i
        CREATE [UNIQUE] INDEX i ON t (...)          DROP INDEX i ON t
        ALTER TABLE t ADD CONSTRAINT k CHECK (...)  ALTER TABLE t DROP CONSTRAINT k   (MySQL only:
                                                    SQLite cannot alter a table's constraints)
        with one clause (an ALTER TABLE with several changes is not guarded: a rerun could find
        some made and others not). A statement that says IF [NOT] EXISTS guards itself: none. */
    static std::optional<SchemaChange> parse(const QString &statement);

    /** True when the schema already shows this change: the column or index exists (an add) or
        is gone (a drop). */
    bool isMade(SqlConnection &connection) const;

    Kind kind() const { return m_kind; }
    const QString &table() const { return m_table; }
    /** The column, index or constraint name. */
    const QString &name() const { return m_name; }

private:
    SchemaChange(Kind kind, QString table, QString name) : m_kind(kind), m_table(std::move(table)), m_name(std::move(name)) {}
    bool exists(SqlConnection &connection) const;

    Kind m_kind;
    QString m_table;
    QString m_name;
};

} // namespace lantern
