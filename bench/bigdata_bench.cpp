// A 10-million-user company's data (issue 26): the fixture, every console view and lanternd
// command measured on it, and what consoles left open cost the servers.

#include "bigdatafixture.h"
#include "bigdataprobe.h"
#include "bigdataviews.h"
#include "benchsettings.h"
#include "summaryrows.h"

#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "settings/config.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTextStream>

namespace lantern::bench {
namespace {

/** The console's default auto-refresh (MainWindow::m_refreshSeconds). */
constexpr double RefreshS = 5.0;

QString fixed(double value, int decimals) { return QString::number(value, 'f', decimals); }

QString costText(const ServerCost &cost)
{
    return fixed(cost.redisUsec, 0);
}

/** The slowest kind of command on average, then the slow log's longest single one and how many took over 1 ms. */
QString slowestText(const ServerCost &cost)
{
    QString text = cost.dearest.isEmpty() ? QStringLiteral("-") : QStringLiteral("%1 %2 us").arg(cost.dearest, fixed(cost.dearestUsec, 1));
    text += cost.slowestUsec > 0 ? QStringLiteral("; longest %1 ms `%2`, %3 calls over 1 ms in all").arg(fixed(cost.slowestUsec / 1000.0, 2), cost.slowest).arg(cost.overMs)
                                 : QStringLiteral("; none over %1 ms").arg(fixed(ServerProbe::SlowUsec / 1000.0, 1));
    return text;
}

struct CommandFigure {
    QString command;
    int runs = 0;
    double p50Ms = 0;
    double p95Ms = 0;
    double maxRssMiB = 0;
    ServerCost perRun;
    QString output;
    double goalMs = 0;
};

/** Runs lanternd ARGS `runs` times under /usr/bin/time (its peak RSS), timed, probed. */
CommandFigure runCommand(const QString &lanternd, const QProcessEnvironment &environment, const QStringList &args, int runs, ServerProbe &probe)
{
    CommandFigure figure;
    figure.command = QStringLiteral("lanternd ") + args.join(QLatin1Char(' '));
    figure.runs = runs;
    QTemporaryDir dir;
    const QString rss = dir.filePath(QStringLiteral("rss"));
    std::vector<double> times;
    probe.start();
    for (int n = 0; n < runs; ++n) {
        QProcess process;
        process.setProcessEnvironment(environment);
        QElapsedTimer timer;
        timer.start();
        process.start(QStringLiteral("/usr/bin/time"), QStringList{QStringLiteral("-f"), QStringLiteral("%M"), QStringLiteral("-o"), rss, lanternd} + args);
        if (!process.waitForStarted(-1))
            throw LanternError(QStringLiteral("/usr/bin/time (Debian package time) could not start %1: %2").arg(figure.command, process.errorString()));
        if (!process.waitForFinished(-1) || process.exitStatus() != QProcess::NormalExit)
            throw LanternError(QStringLiteral("%1 did not finish").arg(figure.command));
        times.push_back(double(timer.nsecsElapsed()) / 1e6);
        if (process.exitCode() != 0)
            throw LanternError(QStringLiteral("%1 exited %2: %3").arg(figure.command).arg(process.exitCode()).arg(QString::fromUtf8(process.readAllStandardError())));
        figure.output = QString::fromUtf8(process.readAllStandardOutput()).simplified().left(140);
        QFile file(rss);
        if (file.open(QIODevice::ReadOnly))
            figure.maxRssMiB = std::max(figure.maxRssMiB, file.readAll().trimmed().split('\n').last().toDouble() / 1024.0);
    }
    ServerCost cost = probe.stop();
    cost.divide(runs);
    figure.perRun = cost;
    figure.p50Ms = percentile(times, 50);
    figure.p95Ms = percentile(times, 95);
    return figure;
}

int run(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "Fills a private Redis and MariaDB as a 10,000,000-user company's (issue 26), then times every console view and lanternd "
            "command on it and what consoles cost the servers. Point it at private servers only."));
    addBenchOptions(parser);
    parser.addOptions({
            {QStringLiteral("db"), QStringLiteral("MariaDB URL."), QStringLiteral("url")},
            {QStringLiteral("lanternd"), QStringLiteral("The lanternd to run."), QStringLiteral("path")},
            {QStringLiteral("quick"), QStringLiteral("A tenth of the users, envelopes, audit rows and dead letters.")},
            {QStringLiteral("smoke"), QStringLiteral("The same shape at a size that fills in seconds (scripts/bench --smoke).")},
            {QStringLiteral("today"), QStringLiteral("The business day of the fixture."), QStringLiteral("date"), QStringLiteral("2026-11-20")},
            {QStringLiteral("refreshes"), QStringLiteral("Refreshes timed per view."), QStringLiteral("n"), QStringLiteral("20")},
            {QStringLiteral("consoles-seconds"), QStringLiteral("How long the 10-console run lasts."), QStringLiteral("s"), QStringLiteral("30")},
            {QStringLiteral("mariadb-pid"), QStringLiteral("mariadbd's pid, for its CPU."), QStringLiteral("pid"), QStringLiteral("0")},
    });
    processArguments(parser, app);
    const BenchSettings bench = benchSettings(parser);
    const QString dbText = parser.value(QStringLiteral("db"));
    const QString redisText = parser.value(QStringLiteral("redis"));
    const QString lanternd = parser.value(QStringLiteral("lanternd"));
    if (dbText.isEmpty() || lanternd.isEmpty())
        throw InvalidInputError(QStringLiteral("--db and --lanternd are required"));
    BigDataPlan plan;
    plan.size = parser.isSet(QStringLiteral("smoke")) ? BigDataSize::smoke() : parser.isSet(QStringLiteral("quick")) ? BigDataSize::quick() : BigDataSize{};
    plan.today = parseDate(parser.value(QStringLiteral("today")));
    const int refreshes = int(integerOption(parser, QStringLiteral("refreshes"), 2, 1000));
    const int consoleSeconds = int(integerOption(parser, QStringLiteral("consoles-seconds"), 1, 3600));

    const Config config = Config::resolve({{QStringLiteral("redis"), redisText},
                                           {QStringLiteral("db"), dbText},
                                           {QStringLiteral("today"), plan.today.toString(Qt::ISODate)},
                                           {QStringLiteral("prefix"), bench.prefix}},
                                          QProcessEnvironment());
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("LANTERN_REDIS"), redisText);
    environment.insert(QStringLiteral("LANTERN_DB"), dbText);
    environment.insert(QStringLiteral("LANTERN_TODAY"), plan.today.toString(Qt::ISODate));
    environment.insert(QStringLiteral("LANTERN_PREFIX"), bench.prefix);

    const KeySchema keys(config.keyPrefix, config.shards);
    RedisClient redis(config.redis);
    const std::unique_ptr<SqlConnection> sql = openMigrated(config.db);
    QTextStream out(stdout);

    out << "- " << plan.size.users << " users (dense uids 1.." << plan.size.users << ", " << plan.size.activePermille / 10.0
        << " % of them check in on a given day, 1 % have one make-up a month), " << plan.size.months << " months to " << plan.today.toString(Qt::ISODate)
        << "; " << plan.size.pastCampaigns << " closed campaigns of " << plan.size.pastEnvelopes << " envelopes, " << plan.size.liveCampaigns
        << " live (one of " << plan.size.bigEnvelopes << ", " << plan.size.bigGrabs << " grabbed; the others of " << plan.size.liveEnvelopes << "); "
        << plan.size.deadLetters << " dead letters over " << plan.size.liveCampaigns << " lists; " << plan.size.workers << " workers, "
        << plan.size.deadWorkers << " dead; " << plan.size.auditRows << " audit rows; keys under `" << bench.prefix << "`\n\n";
    out.flush();
    BigDataFixture fixture(redis, *sql, keys, plan, lanternd, environment, out);
    fixture.fill();

    const QByteArray memory = redis.command({"INFO", "memory"}).toBytes();
    const qsizetype at = memory.indexOf("used_memory_human:");
    out << "- Redis: " << redis.command({"DBSIZE"}).toInteger() << " keys, used_memory " << memory.mid(at + 18, memory.indexOf('\r', at) - at - 18)
        << "; MariaDB:";
    QSqlQuery tables = sql->exec(QStringLiteral("SELECT table_name, table_rows, ROUND((data_length + index_length) / 1048576) FROM information_schema.tables "
                                                "WHERE table_schema = DATABASE() AND table_rows > 1000 ORDER BY table_name"));
    while (tables.next())
        out << " " << tables.value(0).toString() << " ~" << tables.value(1).toLongLong() << " rows (" << tables.value(2).toLongLong() << " MiB)";
    out << "\n\n";
    out.flush();

    // 2. Every view, through the console's own services.
    ServerProbe probe(redis, *sql, integerOption(parser, QStringLiteral("mariadb-pid"), 0, 1LL << 40));
    BigDataViews views(config, plan, probe, refreshes);
    const QList<ViewFigure> figures = views.measureAll();
    out << "| view | what | first data ms | refresh p50 ms | p95 ms | refreshes | goal ms (first / refresh) | Redis us per refresh | "
           "Redis calls | slowest command kind (mean); slow log | MariaDB rows read per refresh | peak RSS MiB | shown |\n"
           "|---|---|---:|---:|---:|---:|---|---:|---:|---|---:|---:|---|\n";
    for (const ViewFigure &f : figures) {
        out << "| " << f.view << " | " << f.action << " | " << fixed(f.firstMs, 1) << " | " << fixed(f.p50Ms, 1) << " | " << fixed(f.p95Ms, 1) << " | "
            << f.refreshes << " | " << (f.goalFirstMs > 0 ? fixed(f.goalFirstMs, 0) + QStringLiteral(" / ") + fixed(f.goalRefreshMs, 0) : QStringLiteral("-"))
            << " | " << costText(f.perRefresh) << " | " << f.perRefresh.redisCalls << " | " << slowestText(f.perRefresh) << " | " << f.perRefresh.sqlRowsRead
            << " | " << fixed(f.peakMiB, 0) << " | " << f.shown << " |\n";
        out.flush();
    }
    out << "\n";
    // Where each view's Redis time goes, a regression check on its own (issue 26, point 3).
    out << "| view | what | Redis us per refresh by kind of command (calls per refresh), the dearest first |\n|---|---|---|\n";
    for (const ViewFigure &f : figures)
        out << "| " << f.view << " | " << f.action << " | " << f.perRefresh.byCommandText(6) << " |\n";
    out << "\n";

    // The operator commands, as processes; recover last (it takes the dead workers' lists back).
    const QString month = plan.today.toString(QStringLiteral("yyyy-MM"));
    const QString big = QString::number(plan.bigCampaign());
    QList<CommandFigure> commands;
    const auto command = [&](const QStringList &args, int runs, double goalMs) {
        CommandFigure figure = runCommand(lanternd, environment, args, runs, probe);
        figure.goalMs = goalMs;
        commands << figure;
    };
    command({QStringLiteral("stats"), QStringLiteral("--month"), month}, 3, 1000);
    command({QStringLiteral("reconcile"), QStringLiteral("--date"), plan.reconcileDay().toString(Qt::ISODate)}, 3, 0);
    command({QStringLiteral("verify"), QStringLiteral("--campaign"), big}, 3, 0);
    command({QStringLiteral("verify")}, 1, 10000);
    command({QStringLiteral("queues")}, 5, 0);
    command({QStringLiteral("campaign"), QStringLiteral("list")}, 5, 0);
    command({QStringLiteral("recover")}, 1, 0);
    fixture.replantDeadWorkers();  // a fixture kept for the next run keeps its dead workers
    out << "| command | runs | p50 ms | p95 ms | goal ms | peak RSS MiB | Redis us per run | slowest command kind (mean); slow log | MariaDB rows read per run | prints |\n"
           "|---|---:|---:|---:|---:|---:|---:|---|---:|---|\n";
    for (const CommandFigure &c : commands)
        out << "| `" << c.command << "` | " << c.runs << " | " << fixed(c.p50Ms, 0) << " | " << fixed(c.p95Ms, 0) << " | "
            << (c.goalMs > 0 ? fixed(c.goalMs, 0) : QStringLiteral("-")) << " | " << fixed(c.maxRssMiB, 0) << " | " << costText(c.perRun) << " | "
            << slowestText(c.perRun) << " | " << c.perRun.sqlRowsRead << " | `" << c.output << "` |\n";
    out << "\n";
    out.flush();

    // 3. What consoles left open cost: each view at the default refresh, from its cost per refresh.
    out << "| one console left open on | Redis us per s of wall time (% of a core) | MariaDB rows read per s | slowest command kind (mean); slow log |\n|---|---:|---:|---|\n";
    const ViewFigure *busiest = nullptr;
    for (const ViewFigure &f : figures) {
        if (f.goalFirstMs <= 0 || f.view == QLatin1String("Connections"))
            continue;
        const double usecPerS = f.perRefresh.redisUsec / RefreshS;
        if (!busiest || f.perRefresh.redisUsec > busiest->perRefresh.redisUsec)
            busiest = &f;
        out << "| " << f.view << ": " << f.action << " | " << fixed(usecPerS, 0) << " (" << fixed(usecPerS / 1e4, 3) << " %) | "
            << fixed(double(f.perRefresh.sqlRowsRead) / RefreshS, 0) << " | " << slowestText(f.perRefresh) << " |\n";
    }
    out << "\n";

    // Ten consoles on the busiest view: ten services refreshing it in turn, each every 5 s, measured.
    std::vector<SummaryRow> rows;
    if (busiest) {
        const Sustained ten = views.sustain(*busiest, 10, RefreshS, consoleSeconds);
        const double usecPerS = ten.cost.redisUsec / ten.wallS;
        out << "Ten consoles on the busiest view (" << busiest->view << ": " << busiest->action << "), each refreshing every " << fixed(RefreshS, 0)
            << " s for " << fixed(ten.wallS, 1) << " s (" << ten.requests << " refreshes): Redis " << fixed(usecPerS, 0) << " us of commands per s ("
            << fixed(usecPerS / 1e4, 3) << " % of a core; its process " << fixed(ten.redisCpuS / ten.wallS * 100, 2) << " % of a core, "
            << "idle work included), slowest command kind " << slowestText(ten.cost) << "; MariaDB " << fixed(double(ten.cost.sqlRowsRead) / ten.wallS, 0)
            << " rows read per s, its process " << fixed(ten.cost.sqlCpuS / ten.wallS * 100, 2) << " % of a core.\n\n";
        rows.push_back({QStringLiteral("10 consoles on the busiest view (%1): Redis %% of one core (commandstats)").arg(busiest->view).replace(QLatin1String("%%"), QLatin1String("%")),
                        fixed(usecPerS / 1e4, 3), QStringLiteral("issue 26's goal"), QStringLiteral("1"), ratioText(usecPerS / 1e4, 1)});
    }

    for (const ViewFigure &f : figures) {
        if (f.goalFirstMs <= 0)
            continue;
        rows.push_back({QStringLiteral("%1, %2: first data ms").arg(f.view, f.action), fixed(f.firstMs, 1), QStringLiteral("issue 26's goal"),
                        fixed(f.goalFirstMs, 0), ratioText(f.firstMs, f.goalFirstMs)});
        rows.push_back({QStringLiteral("%1, %2: refresh p95 ms").arg(f.view, f.action), fixed(f.p95Ms, 1), QStringLiteral("issue 26's goal"),
                        fixed(f.goalRefreshMs, 0), ratioText(f.p95Ms, f.goalRefreshMs)});
    }
    for (const CommandFigure &c : commands) {
        if (c.goalMs > 0)
            rows.push_back({QStringLiteral("`%1` ms").arg(c.command), fixed(c.p95Ms, 0), QStringLiteral("issue 26's goal"), fixed(c.goalMs, 0),
                            ratioText(c.p95Ms, c.goalMs)});
    }
    double peak = 0;
    for (const ViewFigure &f : figures)
        peak = std::max(peak, f.peakMiB);
    rows.push_back({QStringLiteral("the console's models, peak resident MiB over every view"), fixed(peak, 0), QStringLiteral("issue 26's goal"),
                    QStringLiteral("300"), ratioText(peak, 300)});
    double dearest = 0;
    QString dearestName;
    for (const ViewFigure &f : figures) {
        if (f.goalFirstMs > 0 && f.perRefresh.dearestUsec > dearest) {
            dearest = f.perRefresh.dearestUsec;
            dearestName = f.perRefresh.dearest;
        }
    }
    rows.push_back({QStringLiteral("the slowest kind of Redis command any view sends (%1), mean ms per call").arg(dearestName), fixed(dearest / 1000.0, 3),
                    QStringLiteral("issue 26's goal"), QStringLiteral("1"), ratioText(dearest / 1000.0, 1)});
    appendSummaryRows(bench.summaryFile, rows);
    return 0;
}

} // namespace
} // namespace lantern::bench

int main(int argc, char *argv[])
{
    return lantern::bench::benchMain(argc, argv, QStringLiteral("lantern-bench-bigdata"), lantern::bench::run);
}
