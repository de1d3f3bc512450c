#include "mysqlportability.h"

#include "sql/migrator.h"
#include "sql/schemachange.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <tuple>

namespace lantern::test {

namespace {

constexpr auto Options = QRegularExpression::CaseInsensitiveOption;

QRegularExpression regex(const char *pattern)
{
    QRegularExpression compiled(QString::fromLatin1(pattern), Options);
    if (!compiled.isValid())  // a rule that matches nothing would let everything through
        qFatal("MySqlPortabilityCheck: invalid pattern %s: %s", pattern, qPrintable(compiled.errorString()));
    return compiled;
}

/** A construct MySQL 8.0 refuses; the first capture group is what a finding names. */
struct Rule
{
    QRegularExpression pattern;
    QString reason;
    bool ddlOnly = false;  // only in CREATE/ALTER TABLE text: types, defaults
};

// The table of docs/decisions.md ("MySQL 8 and MariaDB"), row by row.
const QList<Rule> &rules()
{
    static const QList<Rule> list = [] {
        const auto rule = [](const char *pattern, const char *reason, bool ddlOnly = false) {
            return Rule{regex(pattern), QString::fromLatin1(reason), ddlOnly};
        };
        return QList<Rule>{
            rule(R"(\b((?:ADD|DROP|CHANGE|MODIFY)(?:\s+(?:COLUMN|UNIQUE|INDEX|KEY|CONSTRAINT|FOREIGN|PRIMARY|PARTITION|FULLTEXT|SPATIAL|CHECK))*\s+IF\s+(?:NOT\s+)?EXISTS)\b)",
                 "MariaDB-only: MySQL 8.0's ALTER TABLE and DROP INDEX have no IF [NOT] EXISTS; write the plain clause, one per "
                 "statement (the migrator skips it when the schema already shows it)"),
            rule(R"(\b(ALTER\s+(?:ONLINE\s+|IGNORE\s+)*TABLE\s+IF\s+EXISTS)\b)", "MariaDB-only: MySQL 8.0's ALTER TABLE has no IF EXISTS"),
            rule(R"(\b(CREATE\s+(?:(?:UNIQUE|FULLTEXT|SPATIAL)\s+)?INDEX\s+IF\s+NOT\s+EXISTS)\b)",
                 "MariaDB-only: MySQL 8.0's CREATE INDEX has no IF NOT EXISTS; write CREATE INDEX name ON table (the migrator "
                 "skips it when the index exists)"),
            rule(R"(\b(CREATE\s+(?:[\w=`'@.%]+\s+){0,4}?VIEW\s+IF\s+NOT\s+EXISTS)\b)",
                 "MariaDB-only: MySQL 8.0's CREATE VIEW has no IF NOT EXISTS (CREATE OR REPLACE VIEW works on both)"),
            rule(R"(\b(RETURNING)\b)",
                 "MariaDB-only: INSERT/REPLACE/DELETE ... RETURNING; MySQL 8.0 has none: read the row back by its business key"),
            rule(R"(\b(CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMPORARY\s+)?SEQUENCE|ALTER\s+SEQUENCE|DROP\s+(?:TEMPORARY\s+)?SEQUENCE|NEXT\s+VALUE\s+FOR|PREVIOUS\s+VALUE\s+FOR|(?:NEXTVAL|LASTVAL|SETVAL)\s*\())",
                 "MariaDB-only: sequences; MySQL 8.0 has none (and Lantern's keys are business keys, DESIGN §3)"),
            rule(R"(\b(CREATE\s+OR\s+REPLACE\s+(?!(?:ALGORITHM|DEFINER|SQL\s+SECURITY|VIEW|SPATIAL)\b)\w+))",
                 "MariaDB-only: MySQL 8.0 takes CREATE OR REPLACE for views only"),
            rule(R"(\b((?:ADD_MONTHS|CHR|DECODE_ORACLE|DES_DECRYPT|DES_ENCRYPT|KDF|LENGTHB|NATURAL_SORT_KEY|NVL2?|SFORMAT|SYS_GUID|TO_CHAR|TRIM_ORACLE|COLUMN_(?:ADD|CHECK|CREATE|DELETE|EXISTS|GET|JSON|LIST)|JSON_(?:COMPACT|DETAILED|EXISTS|LOOSE|QUERY|EQUALS|NORMALIZE|ARRAY_INTERSECT|OBJECT_FILTER_KEYS|OBJECT_TO_ARRAY|KEY_VALUE)|MEDIAN|PERCENTILE_CONT|PERCENTILE_DISC)\s*\())",
                 "MariaDB-only function (MariaDB KB, \"Function Differences Between MariaDB 10.11 and MySQL 8.0\")"),
            rule(R"((?:[=,(+\-*/]|\bTHEN|\bELSE)\s*(VALUE\s*\())",
                 "MariaDB-only: VALUE(col) in ON DUPLICATE KEY UPDATE; both servers take VALUES(col)"),
            rule(R"(\b(FOR\s+SYSTEM_TIME|WITH\s+SYSTEM\s+VERSIONING|DELETE\s+HISTORY|ROWS\s+EXAMINED|SET\s+STATEMENT|FETCH\s+(?:FIRST|NEXT)\s+(?:\S+\s+)?ROWS?\s+(?:ONLY|WITH\s+TIES)|max_statement_time)\b)",
                 "MariaDB-only clause or variable (system versioning, LIMIT ROWS EXAMINED, SET STATEMENT, FETCH FIRST ... "
                 "ROWS ONLY, max_statement_time); MySQL 8.0 has none"),
            rule(R"((?:[(,]|\bADD(?:\s+COLUMN)?|\bMODIFY(?:\s+COLUMN)?)\s*`?\w+`?\s+(INET4|INET6|UUID|XMLTYPE)\b(?!\s*\())",
                 "MariaDB-only data type", true),
            rule(R"(\b(DEFAULT\s+(?!(?:CURRENT_TIMESTAMP|NOW|LOCALTIME|LOCALTIMESTAMP)\b)[A-Za-z_]\w*\s*\())",
                 "MySQL 8.0 takes an expression default only in parentheses, DEFAULT (expr) (8.0.13+; CURRENT_TIMESTAMP is the "
                 "exception); MariaDB also takes it bare",
                 true),
            rule(R"(\b((?:(?:TINY|MEDIUM|LONG)?(?:TEXT|BLOB)|JSON|GEOMETRY)(?:\s*\(\s*\d+\s*\))?(?:\s+(?:NOT\s+NULL|NULL|CHARACTER\s+SET\s+\w+|CHARSET\s+\w+|COLLATE\s+\w+))*\s+DEFAULT)\s+(?!\())",
                 "MySQL 8.0 refuses a literal default on TEXT, BLOB, JSON or GEOMETRY (error 1101); write DEFAULT ('...') or "
                 "none",
                 true),
        };
    }();
    return list;
}

/** Reserved in MySQL 8.0 and not in 5.6 (its keyword list), yet a bare name on MariaDB 10.11
    (each tried as a column name there, docs/decisions.md): only a check can catch them. */
const QSet<QString> &mySqlOnlyReservedWords()
{
    static const QSet<QString> words{
            QStringLiteral("CUBE"),       QStringLiteral("CUME_DIST"),   QStringLiteral("DENSE_RANK"),   QStringLiteral("EMPTY"),
            QStringLiteral("FIRST_VALUE"), QStringLiteral("FUNCTION"),   QStringLiteral("GENERATED"),    QStringLiteral("GROUPING"),
            QStringLiteral("GROUPS"),     QStringLiteral("JSON_TABLE"),  QStringLiteral("LAG"),          QStringLiteral("LAST_VALUE"),
            QStringLiteral("LATERAL"),    QStringLiteral("LEAD"),        QStringLiteral("NTH_VALUE"),    QStringLiteral("NTILE"),
            QStringLiteral("OF"),         QStringLiteral("OPTIMIZER_COSTS"),         QStringLiteral("PERCENT_RANK"), QStringLiteral("RANK"),        QStringLiteral("ROW"),
            QStringLiteral("STORED"),     QStringLiteral("SYSTEM"),      QStringLiteral("VIRTUAL"),      QStringLiteral("WINDOW")};
    return words;
}

/** Names a DDL text declares, unquoted (a quoted name is fine on both): tables, columns,
    indexes, constraints. Offsets into the text. */
QList<std::pair<QString, qsizetype>> declaredNames(const QString &ddl)
{
    static const QList<QRegularExpression> patterns{
            regex(R"(\bCREATE\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+))"),
            regex(R"(\bALTER\s+TABLE\s+(\w+))"),
            regex(R"(\bADD\s+(?:COLUMN\s+)?(?!(?:UNIQUE|KEY|INDEX|PRIMARY|CONSTRAINT|FULLTEXT|SPATIAL|FOREIGN|CHECK|PARTITION|COLUMN)\b)(\w+)\s+\w)"),
            regex(R"(\b(?:INDEX|KEY)\s+(\w+)\s*\()"),
            regex(R"(\bINDEX\s+(\w+)\s+ON\b)"),
            regex(R"(\bCONSTRAINT\s+(\w+))"),
            // A column definition: first word of an item of a CREATE TABLE's list.
            regex(R"([(,]\s*(?!(?:PRIMARY|KEY|INDEX|UNIQUE|CONSTRAINT|CHECK|FOREIGN|FULLTEXT|SPATIAL|PERIOD)\b)(\w+)\s+(?:[A-Z]+\b))"),
    };
    QList<std::pair<QString, qsizetype>> names;
    for (const QRegularExpression &pattern : patterns) {
        for (auto it = pattern.globalMatch(ddl); it.hasNext();) {
            const auto match = it.next();
            names.append({match.captured(1), match.capturedStart(1)});
        }
    }
    return names;
}

bool isDdl(const QString &sql)
{
    static const QRegularExpression ddl = regex(R"(\b(?:CREATE|ALTER)\s+(?:TEMPORARY\s+)?TABLE\b|\bADD\s+COLUMN\b)");
    return ddl.match(sql).hasMatch();
}

struct Literal
{
    QString text;
    int line = 0;
};

bool isIdentifierChar(QChar c)
{
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

/** The string literals of C++ source, grouped by statement (split at ';', '{' and '}'), without
    those inside tr()/translate() and those on a line whose comment says "SQLite only". */
QList<QList<Literal>> literalGroups(const QString &s)
{
    static const QSet<QString> translating{QStringLiteral("tr"), QStringLiteral("translate"), QStringLiteral("QT_TR_NOOP"),
                                           QStringLiteral("QT_TRANSLATE_NOOP"), QStringLiteral("qtTrId")};
    QList<QList<Literal>> groups;
    QList<Literal> current;
    QSet<int> sqliteOnlyLines;
    QString identifier;
    int line = 1;
    int depth = 0;
    int translationDepth = -1;
    const qsizetype n = s.size();
    const auto at = [&](qsizetype i) { return i < n ? s.at(i) : QChar(); };
    const auto flush = [&] {
        if (!current.isEmpty())
            groups.append(current);
        current.clear();
    };
    const auto add = [&](const QString &text, int startLine) {
        if (translationDepth < 0)
            current.append({text, startLine});
    };
    for (qsizetype i = 0; i < n; ++i) {
        const QChar c = s.at(i);
        if (c == QLatin1Char('\n')) {
            ++line;
        } else if (c == QLatin1Char('/') && at(i + 1) == QLatin1Char('/')) {
            qsizetype end = s.indexOf(QLatin1Char('\n'), i);
            end = end < 0 ? n : end;
            if (s.mid(i, end - i).contains(QLatin1String("SQLite only"), Qt::CaseInsensitive))
                sqliteOnlyLines.insert(line);
            i = end - 1;
        } else if (c == QLatin1Char('/') && at(i + 1) == QLatin1Char('*')) {
            qsizetype end = s.indexOf(QLatin1String("*/"), i + 2);
            end = end < 0 ? n : end + 2;
            line += static_cast<int>(s.mid(i, end - i).count(QLatin1Char('\n')));
            i = end - 1;
        } else if (c == QLatin1Char('R') && at(i + 1) == QLatin1Char('"')
                   && (i == 0 || !isIdentifierChar(s.at(i - 1)) || QStringList{QStringLiteral("u8"), QStringLiteral("u"), QStringLiteral("U"), QStringLiteral("L")}.contains(identifier))) {
            const qsizetype open = s.indexOf(QLatin1Char('('), i + 2);
            const QString close = QLatin1Char(')') + s.mid(i + 2, open - i - 2) + QLatin1Char('"');
            const qsizetype end = open < 0 ? -1 : s.indexOf(close, open);
            if (end < 0)
                break;  // not C++ this scan understands; the rest holds no literal it could read
            const QString text = s.mid(open + 1, end - open - 1);
            add(text, line);
            line += static_cast<int>(text.count(QLatin1Char('\n')));
            i = end + close.size() - 1;
            identifier.clear();
        } else if (c == QLatin1Char('"')) {
            QString text;
            qsizetype j = i + 1;
            for (; j < n && s.at(j) != QLatin1Char('"'); ++j) {
                if (s.at(j) == QLatin1Char('\\') && j + 1 < n) {
                    ++j;
                    const QChar e = s.at(j);
                    text += e == QLatin1Char('n') ? QChar(QLatin1Char('\n')) : e == QLatin1Char('t') ? QChar(QLatin1Char('\t')) : e;
                } else {
                    text += s.at(j);
                }
            }
            add(text, line);
            i = j;
            identifier.clear();
        } else if (c == QLatin1Char('\'')) {
            if (i > 0 && isIdentifierChar(s.at(i - 1)) && isIdentifierChar(at(i + 1)) && s.at(i - 1).isDigit())
                continue;  // a digit separator: 1'000'000
            qsizetype j = i + 1;
            for (; j < n && s.at(j) != QLatin1Char('\''); ++j) {
                if (s.at(j) == QLatin1Char('\\'))
                    ++j;
            }
            i = j;
            identifier.clear();
        } else if (isIdentifierChar(c)) {
            identifier = i > 0 && isIdentifierChar(s.at(i - 1)) ? identifier + c : QString(c);
        } else if (!c.isSpace()) {
            if (c == QLatin1Char('(')) {
                ++depth;
                if (translationDepth < 0 && translating.contains(identifier))
                    translationDepth = depth;
            } else if (c == QLatin1Char(')')) {
                if (depth == translationDepth)
                    translationDepth = -1;
                --depth;
            } else if (c == QLatin1Char(';') || c == QLatin1Char('{') || c == QLatin1Char('}')) {
                flush();
            }
            identifier.clear();
        }
    }
    flush();
    for (QList<Literal> &group : groups)
        group.removeIf([&](const Literal &literal) { return sqliteOnlyLines.contains(literal.line); });
    groups.removeIf([](const QList<Literal> &group) { return group.isEmpty(); });
    return groups;
}

QString readFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

} // namespace

QString PortabilityFinding::toString() const
{
    return QStringLiteral("%1:%2: \"%3\" — %4").arg(file).arg(line).arg(construct, reason);
}

QString MySqlPortabilityCheck::projectRoot()
{
    return QStringLiteral(LANTERN_SOURCE_DIR);
}

void MySqlPortabilityCheck::refuse(const QString &file, int line, const QString &construct, const QString &reason)
{
    m_findings.append({file, line, construct.simplified(), reason});
}

template<typename LineOf>
void MySqlPortabilityCheck::checkSql(const QString &file, const QString &sql, LineOf lineOf)
{
    const bool ddl = isDdl(sql);
    for (const Rule &rule : rules()) {
        if (rule.ddlOnly && !ddl)
            continue;
        for (auto it = rule.pattern.globalMatch(sql); it.hasNext();) {
            const auto match = it.next();
            refuse(file, lineOf(match.capturedStart(1)), match.captured(1), rule.reason);
        }
    }
    if (!ddl)
        return;
    for (const auto &[name, offset] : declaredNames(sql)) {
        if (mySqlOnlyReservedWords().contains(name.toUpper()))
            refuse(file, lineOf(offset), name,
                   QStringLiteral("reserved in MySQL 8.0 (not in MariaDB): quote it in backquotes or choose another name"));
    }
}

void MySqlPortabilityCheck::checkMigrationStatement(const QString &file, const QString &statement, int line)
{
    static const QRegularExpression createTable = regex(R"(^CREATE\s+(?:TEMPORARY\s+)?TABLE\s+(?!IF\s+NOT\s+EXISTS\b))");
    static const QRegularExpression dropTable = regex(R"(^DROP\s+(?:TEMPORARY\s+)?TABLE\s+(?!IF\s+EXISTS\b))");
    static const QRegularExpression schemaStep = regex(R"(^(ALTER\s+(?:ONLINE\s+|IGNORE\s+)*TABLE|CREATE\s+(?:(?:UNIQUE|FULLTEXT|SPATIAL)\s+)?INDEX|DROP\s+INDEX)\b)");
    static const QRegularExpression guardsItself = regex(R"(\bIF\s+(?:NOT\s+)?EXISTS\b)");
    static const QRegularExpression checkName = regex(R"(\bCONSTRAINT\s+`?(\w+)`?\s+CHECK\b)");
    const QString text = statement.simplified();
    const QString rerun = QStringLiteral("not safe to rerun after a crash before the version row: ");
    if (const auto match = createTable.match(text); match.hasMatch())
        refuse(file, line, QStringLiteral("CREATE TABLE"), rerun + QStringLiteral("write CREATE TABLE IF NOT EXISTS (both servers take it)"));
    if (const auto match = dropTable.match(text); match.hasMatch())
        refuse(file, line, QStringLiteral("DROP TABLE"), rerun + QStringLiteral("write DROP TABLE IF EXISTS (both servers take it)"));
    if (const auto match = schemaStep.match(text);
        match.hasMatch() && !guardsItself.match(text).hasMatch() && !SchemaChange::parse(text)) {
        refuse(file, line, match.captured(1),
               rerun + QStringLiteral("the migrator guards one ADD or DROP of one column or named index per statement "
                                      "(SchemaChange::parse), and this is not one"));
    }
    for (auto it = checkName.globalMatch(statement); it.hasNext();)
        m_checkConstraints[it.next().captured(1).toLower()].append({file, line});
}

void MySqlPortabilityCheck::addMigration(const QString &file, const QString &text)
{
    ++m_migrationFiles;
    // The file lines the migrator keeps (it drops blank and "--" lines), in order.
    QList<int> keptLines;
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (int i = 0; i < lines.size(); ++i) {
        const QString trimmed = lines.at(i).trimmed();
        if (!trimmed.isEmpty() && !trimmed.startsWith(QLatin1String("--")))
            keptLines.append(i + 1);
    }
    qsizetype consumed = 0;
    for (const QString &statement : Migrator::splitStatements(text)) {
        ++m_migrationStatements;
        const qsizetype first = consumed;
        const auto lineOf = [&](qsizetype offset) {
            const qsizetype kept = std::min(first + statement.left(offset).count(QLatin1Char('\n')), keptLines.size() - 1);
            return kept < 0 ? 0 : keptLines.at(kept);
        };
        checkSql(file, statement, lineOf);
        checkMigrationStatement(file, statement, lineOf(0));
        consumed += statement.count(QLatin1Char('\n')) + 1;
    }
}

void MySqlPortabilityCheck::addSource(const QString &file, const QString &text)
{
    static const QRegularExpression looksLikeSql(QStringLiteral("\\b(SELECT|INSERT|UPDATE|DELETE|REPLACE|CREATE|ALTER|DROP|VALUES)\\b"));
    ++m_sourceFiles;
    for (const QList<Literal> &group : literalGroups(text)) {
        QString sql;
        QList<qsizetype> starts;
        for (const Literal &literal : group) {
            if (!sql.isEmpty())
                sql += QLatin1Char(' ');
            starts.append(sql.size());
            sql += literal.text;
        }
        if (looksLikeSql.match(sql).hasMatch())
            ++m_sourceStatements;
        const auto lineOf = [&](qsizetype offset) {
            qsizetype piece = std::upper_bound(starts.cbegin(), starts.cend(), offset) - starts.cbegin() - 1;
            piece = std::max<qsizetype>(piece, 0);
            const QString before = group.at(piece).text.left(offset - starts.at(piece));
            return group.at(piece).line + static_cast<int>(before.count(QLatin1Char('\n')));
        };
        checkSql(file, sql, lineOf);
    }
}

void MySqlPortabilityCheck::addProject(const QString &root)
{
    const QDir top(root);
    const QDir migrations(top.filePath(QStringLiteral("resources/sql/mysql")));
    for (const QString &name : migrations.entryList({QStringLiteral("*.sql")}, QDir::Files, QDir::Name))
        addMigration(top.relativeFilePath(migrations.filePath(name)), readFile(migrations.filePath(name)));
    QStringList sources;
    for (const char *folder : {"models", "app", "ui"}) {
        QDirIterator it(top.filePath(QLatin1String(folder)), {QStringLiteral("*.cpp"), QStringLiteral("*.h")}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext())
            sources.append(it.next());
    }
    sources.sort();
    for (const QString &path : std::as_const(sources))
        addSource(top.relativeFilePath(path), readFile(path));
}

QList<PortabilityFinding> MySqlPortabilityCheck::findings() const
{
    QList<PortabilityFinding> all = m_findings;
    for (auto it = m_checkConstraints.cbegin(); it != m_checkConstraints.cend(); ++it) {
        if (it.value().size() < 2)
            continue;
        for (const auto &[file, line] : it.value())
            all.append({file, line, it.key(),
                        QStringLiteral("CHECK constraint name used %1 times: MySQL 8.0 wants it unique in the schema (MariaDB: per "
                                       "table)")
                                .arg(it.value().size())});
    }
    std::stable_sort(all.begin(), all.end(), [](const PortabilityFinding &a, const PortabilityFinding &b) {
        return std::tie(a.file, a.line) < std::tie(b.file, b.line);
    });
    return all;
}

} // namespace lantern::test
