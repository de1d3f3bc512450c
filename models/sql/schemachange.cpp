#include "sql/schemachange.h"

#include "sql/sqlconnection.h"

#include <QRegularExpression>

namespace lantern {

namespace {

constexpr auto Options = QRegularExpression::CaseInsensitiveOption;

/** True when text has a comma outside parentheses and quotes: several ALTER TABLE clauses. */
bool hasTopLevelComma(const QString &text)
{
    int depth = 0;
    QChar quote;
    for (const QChar c : text) {
        if (!quote.isNull()) {
            if (c == quote)
                quote = QChar();
        } else if (c == QLatin1Char('\'') || c == QLatin1Char('"') || c == QLatin1Char('`')) {
            quote = c;
        } else if (c == QLatin1Char('(')) {
            ++depth;
        } else if (c == QLatin1Char(')')) {
            --depth;
        } else if (c == QLatin1Char(',') && depth == 0) {
            return true;
        }
    }
    return false;
}

} // namespace

std::optional<SchemaChange> SchemaChange::parse(const QString &statement)
{
    // %1: an identifier, bare or in backquotes.
    const auto pattern = [](const char *text) {
        return QRegularExpression(QString::fromLatin1(text).arg(QStringLiteral("`?(\\w+)`?")), Options);
    };
    static const QRegularExpression guardsItself(QStringLiteral("\\bIF\\s+(NOT\\s+)?EXISTS\\b"), Options);
    static const QRegularExpression alterTable = pattern("^ALTER\\s+TABLE\\s+%1\\s+(.*)$");
    static const QRegularExpression addIndex = pattern("^ADD\\s+(?:(?:UNIQUE|FULLTEXT|SPATIAL)(?:\\s+(?:KEY|INDEX))?|KEY|INDEX)\\s+%1\\s*\\(");
    static const QRegularExpression addColumn = pattern(
            "^ADD\\s+(?:COLUMN\\s+)?(?!(?:UNIQUE|KEY|INDEX|PRIMARY|CONSTRAINT|FULLTEXT|SPATIAL|FOREIGN|CHECK|PARTITION|PERIOD)\\b)%1\\s+\\w");
    static const QRegularExpression dropIndex = pattern("^DROP\\s+(?:INDEX|KEY)\\s+%1$");
    static const QRegularExpression dropColumn =
            pattern("^DROP\\s+(?:COLUMN\\s+)?(?!(?:INDEX|KEY|PRIMARY|FOREIGN|CONSTRAINT|CHECK|PARTITION)\\b)%1$");
    static const QRegularExpression addConstraint = pattern("^ADD\\s+CONSTRAINT\\s+%1\\s+CHECK\\s*\\(");
    static const QRegularExpression dropConstraint = pattern("^DROP\\s+CONSTRAINT\\s+%1$");
    static const QRegularExpression createIndex = pattern("^CREATE\\s+(?:(?:UNIQUE|FULLTEXT|SPATIAL)\\s+)?INDEX\\s+%1\\s+ON\\s+%1\\s*\\(");
    static const QRegularExpression dropIndexOn = pattern("^DROP\\s+INDEX\\s+%1\\s+ON\\s+%1$");

    QString text = statement.simplified();
    if (text.endsWith(QLatin1Char(';')))
        text = text.chopped(1).trimmed();
    if (guardsItself.match(text).hasMatch())
        return std::nullopt;

    if (const auto match = createIndex.match(text); match.hasMatch())
        return SchemaChange(Kind::AddIndex, match.captured(2), match.captured(1));
    if (const auto match = dropIndexOn.match(text); match.hasMatch())
        return SchemaChange(Kind::DropIndex, match.captured(2), match.captured(1));
    const auto alter = alterTable.match(text);
    if (!alter.hasMatch() || hasTopLevelComma(alter.captured(2)))
        return std::nullopt;
    const QString table = alter.captured(1);
    const QString clause = alter.captured(2);
    if (const auto match = addConstraint.match(clause); match.hasMatch())
        return SchemaChange(Kind::AddConstraint, table, match.captured(1));
    if (const auto match = dropConstraint.match(clause); match.hasMatch())
        return SchemaChange(Kind::DropConstraint, table, match.captured(1));
    if (const auto match = addIndex.match(clause); match.hasMatch())
        return SchemaChange(Kind::AddIndex, table, match.captured(1));
    if (const auto match = addColumn.match(clause); match.hasMatch())
        return SchemaChange(Kind::AddColumn, table, match.captured(1));
    if (const auto match = dropIndex.match(clause); match.hasMatch())
        return SchemaChange(Kind::DropIndex, table, match.captured(1));
    if (const auto match = dropColumn.match(clause); match.hasMatch())
        return SchemaChange(Kind::DropColumn, table, match.captured(1));
    return std::nullopt;
}

bool SchemaChange::isMade(SqlConnection &connection) const
{
    const bool added = m_kind == Kind::AddColumn || m_kind == Kind::AddIndex || m_kind == Kind::AddConstraint;
    return exists(connection) == added;
}

bool SchemaChange::exists(SqlConnection &connection) const
{
    const bool column = m_kind == Kind::AddColumn || m_kind == Kind::DropColumn;
    QString sql;
    if (m_kind == Kind::AddConstraint || m_kind == Kind::DropConstraint) {
        sql = QStringLiteral("SELECT COUNT(*) FROM information_schema.TABLE_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() "
                             "AND TABLE_NAME = ? AND CONSTRAINT_NAME = ?");
    } else if (connection.dialect() == DbUrl::Dialect::MySql) {
        sql = column ? QStringLiteral("SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? "
                                      "AND COLUMN_NAME = ?")
                     : QStringLiteral("SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? "
                                      "AND INDEX_NAME = ?");
    } else {
        sql = column ? QStringLiteral("SELECT COUNT(*) FROM pragma_table_info(?) WHERE name = ?")
                     : QStringLiteral("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name = ?");
    }
    QSqlQuery query = connection.exec(sql, {m_table, m_name});
    return query.next() && query.value(0).toLongLong() > 0;
}

} // namespace lantern
