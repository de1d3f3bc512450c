// lantern-bench-schedule: how late a scheduled campaign goes live (issue 30). A campaign of N
// envelopes is created with `lanternd campaign create --launch-at T`; W `lanternd work`
// processes prepare it ahead and launch it at T. Two figures per run, both on Redis's clock:
// when the status changed (the timetable row's late_ms, taken right after the move) and when a
// grab first came back "ok" (a prober grabbing with a new uid in a tight loop from 200 ms before
// T: what a user sees). Goal (issue 30): p100 <= 1 s. With --storm-users, the crowd's grab storm
// through lanternd serve starts at T too (wrk, each user once): its answers,
// and when the pool was empty. It measures; it asserts nothing but every answer a 2xx.
#include "bearerfile.h"
#include "benchsettings.h"
#include "httpsettings.h"
#include "rounds.h"
#include "schedulestorm.h"
#include "summaryrows.h"
#include "uidsample.h"

#include "core/errors.h"
#include "envelope/campaignschedule.h"
#include "envelope/grabservice.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/dburl.h"
#include "sql/sqlconnection.h"
#include "token/usertoken.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

using namespace lantern;
using namespace lantern::bench;

namespace {

struct Run {
    double preparedS = -1;   // from the schedule to prepared_at_ms
    qint64 statusLateMs = -1;
    qint64 firstOkLateMs = -1;
    std::optional<StormAtT> storm;
};

struct Setup {
    QString lanternd;
    QString redis;
    QString db;
    DbUrl dbUrl;
    RedisUrl redisUrl;
    HttpSettings http;
    QString workDir;
    QString stormBearers;  // empty: no storm
    qint64 stormLines = 0;
};

QStringList globalOptions(const Setup &setup, const QString &prefix)
{
    return {QStringLiteral("--redis"), setup.redis, QStringLiteral("--db"), setup.db, QStringLiteral("--prefix"), prefix};
}

QJsonObject runLanternd(const Setup &setup, const QString &prefix, const QStringList &arguments)
{
    QProcess process;
    process.start(setup.lanternd, arguments + globalOptions(setup, prefix));
    if (!process.waitForFinished(600000) || process.exitCode() != 0)
        throw LanternError(QStringLiteral("lanternd %1 failed: %2").arg(arguments.join(u' '), QString::fromUtf8(process.readAllStandardError())));
    return QJsonDocument::fromJson(process.readAllStandardOutput()).object();
}

qint64 scheduleNumber(SqlConnection &sql, const char *column, qint64 campaign)
{
    QSqlQuery query = sql.exec(QStringLiteral("SELECT COALESCE(%1, -1) FROM campaign_schedule WHERE campaign_id = ? AND action = 'launch'")
                                       .arg(QLatin1String(column)),
                               {campaign});
    return query.next() ? query.value(0).toLongLong() : -1;
}

/** Polls until `done` or the deadline; false when the deadline came first. */
bool waitFor(const QDeadlineTimer &deadline, const std::function<bool()> &done, int everyMs = 20)
{
    while (!done()) {
        if (deadline.hasExpired())
            return false;
        QThread::msleep(static_cast<unsigned long>(everyMs));
    }
    return true;
}

Run runOnce(const Setup &setup, qint64 envelopes, int workers, int leadS, const QString &prefix)
{
    Run run;
    RedisClient redis(setup.redisUrl);
    SqlConnection sql(setup.dbUrl);
    const qint64 launchAt = redisTimeMs(redis) + qint64(leadS) * 1000;
    const QJsonObject created =
            runLanternd(setup, prefix,
                        {QStringLiteral("campaign"), QStringLiteral("create"), QStringLiteral("--name"), QStringLiteral("bench"), QStringLiteral("--total-cents"),
                         QString::number(envelopes * 100), QStringLiteral("--count"), QString::number(envelopes), QStringLiteral("--launch-at"),
                         CampaignSchedule::isoTime(launchAt), QStringLiteral("--operator"), QStringLiteral("bench")});
    const qint64 id = created.value(QLatin1String("id")).toInteger();
    const qint64 scheduledAt = redisTimeMs(redis);
    std::vector<std::unique_ptr<QProcess>> processes;
    for (int i = 0; i < workers; ++i) {
        processes.push_back(std::make_unique<QProcess>());
        processes.back()->start(setup.lanternd, QStringList{QStringLiteral("work"), QStringLiteral("--id"), QStringLiteral("sb%1").arg(i + 1)}
                                                       + globalOptions(setup, prefix));
    }
    const QDeadlineTimer untilLaunch(launchAt - redisTimeMs(redis));
    if (waitFor(untilLaunch, [&] { return scheduleNumber(sql, "prepared_at_ms", id) > 0; }, 100))
        run.preparedS = double(scheduleNumber(sql, "prepared_at_ms", id) - scheduledAt) / 1000.0;

    // The prober: from 200 ms before T, a grab by a new user each time until one is "ok".
    const auto probe = [&] {
        waitFor(QDeadlineTimer(launchAt - redisTimeMs(redis) + 1000), [&] { return redisTimeMs(redis) >= launchAt - 200; }, 5);
        const KeySchema keys(prefix);
        GrabService grabs(redis, keys);
        qint64 uid = 1;
        const QDeadlineTimer giveUp(60000);
        while (!giveUp.hasExpired()) {
            if (grabs.grab(id, uid++, 0).status == QLatin1String("ok")) {
                run.firstOkLateMs = redisTimeMs(redis) - launchAt;
                break;
            }
        }
    };
    if (setup.stormBearers.isEmpty()) {
        probe();
    } else {
        StormAtTSetup storm;
        storm.http = setup.http;
        storm.http.bench.prefix = prefix;
        storm.db = setup.db;
        storm.workDir = setup.workDir;
        storm.bearerFile = setup.stormBearers;
        storm.lines = setup.stormLines;
        storm.campaign = id;
        storm.envelopes = envelopes;
        storm.launchAtMs = launchAt;
        RedisClient watcher(setup.redisUrl);  // the prober keeps `redis` busy meanwhile
        run.storm = runStormAtT(storm, watcher, probe);
        if (run.storm->non2xx > 0)
            throw LanternError(QStringLiteral("%1 answers of the storm at T were not 2xx").arg(run.storm->non2xx));
    }
    waitFor(QDeadlineTimer(60000), [&] { return scheduleNumber(sql, "late_ms", id) >= 0; });
    run.statusLateMs = scheduleNumber(sql, "late_ms", id);

    for (const auto &process : processes) {
        process->terminate();
        process->waitForFinished(60000);
    }
    // Closed, so that no later run's worker (another prefix, the same SQL) takes it for a live
    // campaign whose Redis state is lost; then the servers as they were: the keys, and the
    // envelopes' rows (the campaign row stays).
    runLanternd(setup, prefix, {QStringLiteral("campaign"), QStringLiteral("close"), QStringLiteral("--id"), QString::number(id)});
    QByteArray cursor = "0";
    do {
        const RedisValue page = redis.command({"SCAN", cursor, "MATCH", prefix.toUtf8() + '*', "COUNT", "1000"});
        cursor = page.elements.at(0).toBytes();
        for (const RedisValue &key : page.elements.at(1).elements)
            redis.command({"UNLINK", key.toBytes()});
    } while (cursor != "0");
    sql.exec(QStringLiteral("DELETE FROM envelope WHERE campaign_id = ?"), {id});
    return run;
}

QString milliseconds(qint64 ms)
{
    return ms < 0 ? QStringLiteral("—") : QString::number(ms);
}

int runBench(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("How late a scheduled campaign goes live, prepared ahead by lanternd work processes."));
    addHttpOptions(parser);
    parser.addOptions({
            {QStringLiteral("db"), QStringLiteral("SQL URL (MariaDB or SQLite)."), QStringLiteral("url")},
            {QStringLiteral("storm-users"), QStringLiteral("Users of the grab storm through lanternd serve that starts at T, each "
                                                           "grabbing once (0: none)."),
             QStringLiteral("n"), QStringLiteral("0")},
            {QStringLiteral("sizes"), QStringLiteral("Envelopes per campaign, comma-separated."), QStringLiteral("list"), QStringLiteral("10000,1000000")},
            {QStringLiteral("workers"), QStringLiteral("Worker counts, comma-separated."), QStringLiteral("list"), QStringLiteral("1,3")},
            {QStringLiteral("base-lead-s"), QStringLiteral("Seconds from the schedule to T, before the envelopes' share."), QStringLiteral("s"),
             QStringLiteral("8")},
            {QStringLiteral("lead-s"), QStringLiteral("Seconds from the schedule to T per million envelopes, plus --base-lead-s."), QStringLiteral("s"),
             QStringLiteral("30")},
    });
    processArguments(parser, app);
    Setup setup;
    setup.http = httpSettings(parser);
    const BenchSettings &bench = setup.http.bench;
    setup.lanternd = setup.http.lanternd;
    setup.db = parser.value(QStringLiteral("db"));
    if (setup.db.isEmpty())
        throw InvalidInputError(QStringLiteral("--db is required"));
    const QTemporaryDir work;
    if (!work.isValid())
        throw LanternError(QStringLiteral("cannot create a temporary directory: %1").arg(work.errorString()));
    setup.workDir = work.path();
    const qint64 stormUsers = integerOption(parser, QStringLiteral("storm-users"), 0, 10'000'000);
    if (stormUsers > 0) {
        // Users the prober (uids 1, 2, ...) never is; the same crowd in every run (another prefix each).
        setup.stormBearers = work.filePath(QStringLiteral("storm-bearers.txt"));
        const UserTokens tokens(QStringLiteral("lantern"), setup.http.tokenSecret.toUtf8());
        setup.stormLines = writeBearerFile(setup.stormBearers, tokens, QDateTime::currentSecsSinceEpoch() + 86'400,
                                           sampleUids(stormUsers, stormUsers, bench.seed), 1, bench.seed);
    }
    setup.redisUrl = bench.redis;
    setup.redis = parser.value(QStringLiteral("redis"));
    setup.dbUrl = DbUrl::parse(setup.db);
    const int leadPerMillion = int(integerOption(parser, QStringLiteral("lead-s"), 1, 3600));
    const int baseLead = int(integerOption(parser, QStringLiteral("base-lead-s"), 2, 3600));
    std::vector<qint64> sizes;
    for (const QString &size : parser.value(QStringLiteral("sizes")).split(u','))
        sizes.push_back(size.toLongLong());
    std::vector<int> workerCounts;
    for (const QString &count : parser.value(QStringLiteral("workers")).split(u','))
        workerCounts.push_back(count.toInt());

    QTextStream out(stdout);
    out << "- SQL `" << setup.dbUrl.redacted() << "`, Redis `" << setup.redis << "`; " << bench.rounds << " round(s) per line; lead: " << baseLead << " s + "
        << leadPerMillion << " s per million envelopes between the schedule and T\n";
    if (stormUsers > 0)
        out << "- the storm at T: `lanternd serve --threads " << setup.http.serveThreads << "` on the run's prefix, `wrk -t " << setup.http.wrkThreads
            << " -c " << bench.clients << " -s bench/wrk/bearers.lua` started at T (Redis TIME), " << stormUsers
            << " users grabbing once each (uids " << UidBase << " + [0, " << stormUsers << ")); *pool empty*: Redis TIME when grabbed_count reached "
               "the envelopes (the prober's one included), minus T\n";
    out << "\n| envelopes | workers | round | prepared after s | status changed, ms after T | first grab ok, ms after T |"
        << (stormUsers > 0 ? " storm: ok / not_live / sold_out | storm grabs/s | storm p99 ms | pool empty, ms after T |" : "") << '\n'
        << "|---:|---:|---:|---:|---:|---:|" << (stormUsers > 0 ? "---:|---:|---:|---:|" : "") << '\n';
    out.flush();
    std::vector<SummaryRow> summary;
    QString table = QStringLiteral("\n| envelopes | workers | status changed p50 / p100 ms | first grab ok p50 / p100 ms | goal p100 |\n|---:|---:|---:|---:|---:|\n");
    for (const qint64 size : sizes) {
        for (const int workers : workerCounts) {
            std::vector<double> status;
            std::vector<double> firstOk;
            for (int round = 1; round <= bench.rounds; ++round) {
                const int lead = baseLead + int(double(leadPerMillion) * double(size) / 1e6 + 0.5);
                const Run run = runOnce(setup, size, workers, lead, bench.prefix + QStringLiteral("%1_%2_%3:").arg(size).arg(workers).arg(round));
                out << "| " << size << " | " << workers << " | " << round << " | "
                    << (run.preparedS < 0 ? QStringLiteral("not in time") : QString::number(run.preparedS, 'f', 1)) << " | "
                    << milliseconds(run.statusLateMs) << " | " << milliseconds(run.firstOkLateMs) << " |";
                if (run.storm)
                    out << ' ' << run.storm->ok << " / " << run.storm->notLive << " / " << run.storm->soldOut
                        << (run.storm->other > 0 ? QStringLiteral(" (+%1 other)").arg(run.storm->other) : QString()) << " | "
                        << rate(run.storm->perSecond) << " | " << QString::number(run.storm->p99Ms, 'f', 1) << " | "
                        << (run.storm->poolEmptyMs < 0 ? QStringLiteral("not emptied") : QString::number(run.storm->poolEmptyMs)) << " |";
                out << '\n';
                out.flush();
                status.push_back(double(run.statusLateMs));
                firstOk.push_back(double(run.firstOkLateMs));
            }
            const double statusMax = *std::max_element(status.begin(), status.end());
            const double firstOkMax = *std::max_element(firstOk.begin(), firstOk.end());
            table += QStringLiteral("| %1 | %2 | %3 / %4 | %5 / %6 | 1000 |\n")
                             .arg(size)
                             .arg(workers)
                             .arg(median(status), 0, 'f', 0)
                             .arg(statusMax, 0, 'f', 0)
                             .arg(median(firstOk), 0, 'f', 0)
                             .arg(firstOkMax, 0, 'f', 0);
            summary.push_back({QStringLiteral("scheduled launch of %1 envelopes, %2 worker(s): first grab ok, p100 ms after T").arg(size).arg(workers),
                               QString::number(firstOkMax, 'f', 0), QStringLiteral("issue 30's goal"), QStringLiteral("1000"),
                               ratioText(firstOkMax, 1000)});
        }
    }
    out << table;
    out.flush();
    appendSummaryRows(bench.summaryFile, summary);
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-schedule"), runBench);
}
