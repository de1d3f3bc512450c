// lantern-bench-audit: pages of the Audit log view on a large audit_log (issue 14), read through
// AuditQuery as the console reads them: the first page, and a page half-way down the log in
// time order and in "who" order (keyset: past the last row of the previous page). The baseline,
// in the same run, is what a pager without a cursor does for the same page: the same ORDER BY
// with OFFSET. Time per page, medians of the rounds. It measures; it asserts nothing.
#include "benchsettings.h"
#include "rounds.h"
#include "summaryrows.h"

#include "console/audit/auditquery.h"
#include "core/errors.h"
#include "sql/dburl.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTextStream>
#include <QTimeZone>

using namespace lantern;
using namespace lantern::bench;

namespace {

constexpr int PageSize = 200;  // the view's page
constexpr int ReadsPerPhase = 40;

/** Milliseconds of one call of `read`, the median of ReadsPerPhase calls. */
double medianMs(const std::function<qint64()> &read, qint64 *rows)
{
    std::vector<double> times;
    for (int i = 0; i < ReadsPerPhase; ++i) {
        QElapsedTimer timer;
        timer.start();
        *rows = read();
        times.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    }
    return median(times);
}

/** The page after `depth` rows in (column, id) order, read with OFFSET: what a pager without a
    cursor sends. The same columns and order as AuditQuery's. */
qint64 offsetPage(SqlConnection &sql, const QString &column, const QString &direction, qint64 depth)
{
    QSqlQuery query = sql.exec(QStringLiteral("SELECT id, at_ms, actor, action, target, detail FROM audit_log ORDER BY ") + column + direction
                                       + QStringLiteral(", id") + direction + QStringLiteral(" LIMIT ? OFFSET ?"),
                               {PageSize + 1, depth});
    qint64 rows = 0;
    while (query.next())
        ++rows;
    return std::min<qint64>(rows, PageSize);  // the one more only tells whether a page follows
}

/** The row at `depth` in (column, id) order, as the cursor the view would hold after paging there. */
AuditCursor cursorAt(SqlConnection &sql, const QString &column, const QString &direction, qint64 depth)
{
    QSqlQuery query = sql.exec(QStringLiteral("SELECT id, ") + column + QStringLiteral(" FROM audit_log ORDER BY ") + column + direction
                                       + QStringLiteral(", id") + direction + QStringLiteral(" LIMIT 1 OFFSET ?"),
                               {depth - 1});
    if (!query.next())
        throw LanternError(QStringLiteral("audit_log holds fewer than %1 rows").arg(depth));
    return {query.value(0).toLongLong(), query.value(1)};
}

int run(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "Audit log pages through AuditQuery (keyset) next to the same pages read with OFFSET, on N rows. "
            "Point it at a private MariaDB: it empties audit_log."));
    addBenchOptions(parser);
    parser.addOptions({
            {QStringLiteral("db"), QStringLiteral("MySQL / MariaDB URL."), QStringLiteral("url")},
            {QStringLiteral("rows"), QStringLiteral("Rows of audit_log."), QStringLiteral("n"), QStringLiteral("1000000")},
    });
    processArguments(parser, app);
    const BenchSettings bench = benchSettings(parser);
    if (parser.value(QStringLiteral("db")).isEmpty())
        throw InvalidInputError(QStringLiteral("--db is required"));
    const DbUrl db = DbUrl::parse(parser.value(QStringLiteral("db")));
    if (db.dialect != DbUrl::Dialect::MySql)
        throw InvalidInputError(QStringLiteral("--db must be MySQL / MariaDB (the bench seeds with its sequence engine)"));
    const qint64 rows = integerOption(parser, QStringLiteral("rows"), 10 * PageSize, 100'000'000);
    const std::unique_ptr<SqlConnection> sql = openMigrated(db);
    QTextStream out(stdout);

    // 50 operators, 12 actions, 100,000 targets, a row every second; what the detail holds does
    // not change the plans (it is never sorted or filtered on).
    QElapsedTimer seeding;
    seeding.start();
    sql->exec(QStringLiteral("TRUNCATE TABLE audit_log"));
    sql->exec(QStringLiteral("INSERT INTO audit_log (at_ms, actor, action, target, detail) "
                             "SELECT 1700000000000 + seq * 1000, CONCAT('operator-', seq % 50), CONCAT('campaign.action', seq % 12), "
                             "CONCAT('uid:', 10000 + (seq * 7919) % 100000), '{\"reason\":\"bench\",\"via\":\"console\"}' "
                             "FROM seq_1_to_")
              + QString::number(rows));
    sql->exec(QStringLiteral("ANALYZE TABLE audit_log"));
    const double seedSeconds = static_cast<double>(seeding.nsecsElapsed()) / 1e9;

    const qint64 depth = rows / 2;
    AuditQuery query(*sql, QTimeZone::utc());
    const AuditOrder newest;  // time, newest first: the view's default
    const AuditOrder byWho{AuditOrder::Key::Actor, Qt::AscendingOrder};
    const AuditCursor newestAtDepth = cursorAt(*sql, QStringLiteral("at_ms"), QStringLiteral(" DESC"), depth);
    const AuditCursor whoAtDepth = cursorAt(*sql, QStringLiteral("actor"), QStringLiteral(" ASC"), depth);

    out << "- audit_log in MariaDB `" << db.redacted() << "`: " << rows << " rows (50 operators, 12 actions, 100,000 targets), seeded in "
        << QString::number(seedSeconds, 'f', 1) << " s with INSERT ... SELECT FROM seq_1_to_" << rows << "\n"
        << "- a page is the view's: " << PageSize << " rows and one more to tell whether another follows, every column read\n"
        << "- *keyset*: `AuditQuery::page` past the cursor of the row before the page (what Next sends); *OFFSET*: the same "
        << "ORDER BY with `LIMIT 201 OFFSET n`, what a pager without a cursor sends\n"
        << "- *deep*: the page after row " << depth << " (half-way down); each figure is the median of " << ReadsPerPhase
        << " reads, and the table shows pages per second from it; " << bench.rounds << " rounds, alternating the order\n\n"
        << "| round | page | ms per page | rows on the page |\n|---:|---|---:|---:|\n";
    out.flush();

    const auto phase = [&](const QString &name, const std::function<qint64()> &read) -> RoundPhase {
        return [&out, name, read](int round) {
            qint64 got = 0;
            const double ms = medianMs(read, &got);
            out << "| " << round << " | " << name << " | " << QString::number(ms, 'f', 2) << " | " << got << " |\n";
            out.flush();
            return 1000.0 / ms;
        };
    };
    const auto keyset = [&](const AuditOrder &order, const AuditCursor &after) {
        return [&query, order, after] { return qint64(query.page({}, order, after, PageSize).entries.size()); };
    };
    const std::vector<QString> names{QStringLiteral("newest first, first page (keyset)"), QStringLiteral("newest first, deep (keyset)"),
                                     QStringLiteral("newest first, deep (OFFSET)"), QStringLiteral("by who, deep (keyset)"),
                                     QStringLiteral("by who, deep (OFFSET)")};
    const std::vector<double> medians = runAlternatingRounds(
            bench.rounds, {phase(names[0], keyset(newest, {})), phase(names[1], keyset(newest, newestAtDepth)),
                           phase(names[2], [&] { return offsetPage(*sql, QStringLiteral("at_ms"), QStringLiteral(" DESC"), depth); }),
                           phase(names[3], keyset(byWho, whoAtDepth)),
                           phase(names[4], [&] { return offsetPage(*sql, QStringLiteral("actor"), QStringLiteral(" ASC"), depth); })});
    out << '\n';
    printSummary(out, bench.rounds, QStringLiteral("pages/s"),
                 {{names[0], medians[0]}, {names[1], medians[1]}, {names[2], medians[2]}, {names[3], medians[3]}, {names[4], medians[4]}},
                 {{QStringLiteral("deep keyset / first page (newest first)"), medians[1], medians[0]},
                  {QStringLiteral("deep keyset / deep OFFSET (newest first)"), medians[1], medians[2]},
                  {QStringLiteral("deep keyset / deep OFFSET (by who)"), medians[3], medians[4]}});
    out.flush();
    appendSummaryRows(bench.summaryFile,
                      {{QStringLiteral("audit log page half-way down %1 rows, pages/s (keyset, newest first)").arg(rows), rate(medians[1]),
                        QStringLiteral("the first page, same run"), rate(medians[0]), ratioText(medians[1], medians[0])},
                       {QStringLiteral("audit log page half-way down %1 rows by who, pages/s (keyset)").arg(rows), rate(medians[3]),
                        QStringLiteral("the same page with OFFSET, same run"), rate(medians[4]), ratioText(medians[3], medians[4])}});
    sql->exec(QStringLiteral("TRUNCATE TABLE audit_log"));
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-audit"), run);
}
