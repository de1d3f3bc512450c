// lantern-bench-checkin-drain: does the check-in drain keep up with the HTTP storm (issue 12)?
// wrk sends POST /v1/checkin for distinct users to `lanternd serve` while N long-running
// `lanternd work` processes persist the check-in log into MariaDB, all on the same machine; the
// bench samples the backlog (queue + the workers' backup lists) through the storm and reports
// check-ins admitted per second, rows drained per second and the backlog, with no worker (the
// storm alone) and with each worker count. Afterwards every check-in must be in SQL exactly once.
// It measures; it asserts nothing about time.
#include "bearerfile.h"
#include "benchserver.h"
#include "httpsettings.h"
#include "httpstorm.h"
#include "phasefigures.h"
#include "rounds.h"
#include "serveprocess.h"
#include "summaryrows.h"
#include "uidsample.h"

#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/dburl.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "token/usertoken.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>

#include <atomic>
#include <memory>
#include <thread>

#include <sys/resource.h>

using namespace lantern;
using namespace lantern::bench;

namespace {

const QString TokenSalt = QStringLiteral("lantern");  // Config's default token salt, which serve uses

struct DrainStormSettings {
    HttpSettings http;
    QString dbText;
    DbUrl db;
    qint64 requests = 300'000;
    qint64 users = 1'000'000'000;
    QList<int> workerCounts{1, 2};
    int batch = 500;
    int shards = 16;  // lanternd's default (Config::shards)
};

DrainStormSettings parseSettings(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "The HTTP check-in storm (wrk -> lanternd serve) and lanternd work persisting the check-in log into MariaDB at the same "
            "time: check-ins admitted/s, rows drained/s, and the backlog through the storm, with 0, 1, 2, ... workers. Point it at a "
            "private Redis and database: it empties checkin_log and points_ledger before each phase."));
    addHttpOptions(parser);
    parser.addOptions({
            {QStringLiteral("db"), QStringLiteral("MySQL / MariaDB URL the workers write to."), QStringLiteral("url")},
            {QStringLiteral("requests"), QStringLiteral("Check-ins per phase (each a different user)."), QStringLiteral("n"), QStringLiteral("300000")},
            {QStringLiteral("workers"), QStringLiteral("Worker counts, comma-separated (a phase with none comes first)."), QStringLiteral("list"),
             QStringLiteral("1,2")},
            {QStringLiteral("batch"), QStringLiteral("lanternd work --batch."), QStringLiteral("n"), QStringLiteral("500")},
            {QStringLiteral("shards"), QStringLiteral("Check-in shards of serve and the workers (--shards)."), QStringLiteral("n"), QStringLiteral("16")},
    });
    processArguments(parser, app);
    DrainStormSettings settings;
    settings.http = httpSettings(parser);
    settings.dbText = parser.value(QStringLiteral("db"));
    if (settings.dbText.isEmpty())
        throw InvalidInputError(QStringLiteral("--db is required"));
    settings.db = DbUrl::parse(settings.dbText);
    if (settings.db.dialect != DbUrl::Dialect::MySql)
        throw InvalidInputError(QStringLiteral("--db must be a mysql:// URL"));
    settings.requests = integerOption(parser, QStringLiteral("requests"), 1, 100'000'000);
    settings.batch = static_cast<int>(integerOption(parser, QStringLiteral("batch"), 1, 10'000));
    settings.shards = static_cast<int>(integerOption(parser, QStringLiteral("shards"), 1, 1024));
    settings.workerCounts.clear();
    for (const QString &text : parser.value(QStringLiteral("workers")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int count = text.trimmed().toInt(&ok);
        if (!ok || count < 1 || count > 16)
            throw InvalidInputError(QStringLiteral("--workers takes counts from 1 to 16"));
        settings.workerCounts << count;
    }
    return settings;
}

/** What one phase measured. */
struct PhaseResult {
    int workers = 0;
    double stormSeconds = 0;
    double admittedPerSecond = 0;  // new check-ins answered by the server per second (wrk)
    double drainedPerSecond = 0;   // rows persisted during the storm per second (admitted - backlog at its end)
    qint64 admitted = 0;
    qint64 maxBacklog = 0;
    QList<qint64> backlogAtQuarters;  // at 25, 50, 75 and 100 % of the storm
    double tailSeconds = 0;           // after the storm, until the backlog was empty
    double workerCpuMicros = 0;       // the workers' CPU per check-in, storm and tail
    QString exactlyOnce;
};

/** Samples the backlog every 100 ms on a thread of its own, with its own connection. */
class BacklogSampler final {
public:
    BacklogSampler(const RedisUrl &url, QByteArrayList keys) : m_url(url), m_keys(std::move(keys)) {}
    ~BacklogSampler() { stop(); }
    Q_DISABLE_COPY_MOVE(BacklogSampler)

    void start()
    {
        m_thread = std::thread([this] {
            RedisClient redis(m_url);
            QElapsedTimer clock;
            clock.start();
            while (!m_stop.load()) {
                QList<QByteArrayList> commands;
                for (const QByteArray &key : std::as_const(m_keys))
                    commands << QByteArrayList{QByteArrayLiteral("LLEN"), key};
                qint64 depth = 0;
                for (const RedisValue &value : redis.pipeline(commands))
                    depth += value.toInteger();
                m_samples.emplace_back(clock.elapsed(), depth);
                QThread::msleep(100);
            }
        });
    }
    /** Stops and returns (ms since start, backlog) pairs. */
    std::vector<std::pair<qint64, qint64>> stop()
    {
        m_stop.store(true);
        if (m_thread.joinable())
            m_thread.join();
        return m_samples;
    }

private:
    RedisUrl m_url;
    QByteArrayList m_keys;
    std::atomic_bool m_stop{false};
    std::thread m_thread;
    std::vector<std::pair<qint64, qint64>> m_samples;
};

class DrainStorm final {
public:
    DrainStorm(const DrainStormSettings &settings, RedisClient &redis)
        : m_settings(settings), m_http(settings.http), m_redis(redis), m_server(redis), m_keys(m_http.bench.prefix, settings.shards),
          m_tokens(TokenSalt, m_http.tokenSecret.toUtf8()), m_expires(QDateTime::currentSecsSinceEpoch() + 86'400)
    {
        if (!m_work.isValid())
            throw LanternError(QStringLiteral("cannot create a temporary directory: %1").arg(m_work.errorString()));
        m_sql = openMigrated(settings.db);
        for (const QString &table : {QStringLiteral("checkin_log"), QStringLiteral("points_ledger")}) {
            if (count(table) > 0)
                throw InvalidInputError(QStringLiteral("%1 already holds %2 rows; the bench empties that table, so give it a private database "
                                                       "(scripts/bench starts one)")
                                                .arg(settings.db.redacted(), table));
        }
    }

    void run()
    {
        const KeysRemovedOnExit cleanup(m_server, m_http.bench.prefix.toUtf8());
        const auto emptyTables = qScopeGuard([this] { truncate(); });
        const std::vector<qint64> uids = sampleUids(m_settings.requests, m_settings.users, m_http.bench.seed);
        m_bearers = m_work.filePath(QStringLiteral("bearers.txt"));
        writeBearerFile(m_bearers, m_tokens, m_expires, uids, 1, m_http.bench.seed);
        printSetup();

        std::vector<RoundPhase> phases{[this](int round) { return measure(0, round); }};
        for (const int workers : m_settings.workerCounts)
            phases.push_back([this, workers](int round) { return measure(workers, round); });
        runAlternatingRounds(m_http.bench.rounds, phases);
        summarize();
    }

private:
    qint64 count(const QString &table)
    {
        QSqlQuery query = m_sql->exec(QStringLiteral("SELECT COUNT(*) FROM ") + table);
        return query.next() ? query.value(0).toLongLong() : -1;
    }

    void truncate()
    {
        for (const QString &table : {QStringLiteral("checkin_log"), QStringLiteral("points_ledger")}) {
            QSqlQuery query(m_sql->database());
            if (!query.exec(QStringLiteral("TRUNCATE TABLE ") + table))
                m_sql->fail(QStringLiteral("TRUNCATE"), query.lastError());
        }
    }

    QStringList common() const
    {
        return {QStringLiteral("--redis"), m_http.redisUrl, QStringLiteral("--db"), m_settings.dbText, QStringLiteral("--prefix"),
                m_http.bench.prefix, QStringLiteral("--shards"), QString::number(m_settings.shards), QStringLiteral("--tz"), m_http.timeZone};
    }

    void printSetup()
    {
        const DrainStormSettings &s = m_settings;
        m_out << "The check-in storm and the check-in drain at the same time: " << s.requests << " check-ins per phase, "
              << m_http.bench.rounds << (m_http.bench.rounds == 1 ? " round" : " rounds") << ".\n\n"
              << "- storm: `wrk -t " << m_http.wrkThreads << " -c " << m_http.bench.clients
              << "` sends POST /v1/checkin for distinct users (each its own bearer, each once) to `lanternd serve --threads "
              << m_http.serveThreads << " --shards " << s.shards << "`\n"
              << "- workers: N `lanternd work --batch " << s.batch << "` processes started before the storm, on `" << s.db.redacted()
              << "`; stopped (SIGTERM) once the backlog is empty\n"
              << "- backlog: the check-in queue plus the workers' backup lists, sampled every 100 ms; *drained/s* is (check-ins "
                 "admitted - backlog at the storm's end) / the storm's seconds; *tail* is how long the workers took to empty the "
                 "backlog after the storm\n"
              << "- before each phase: the bench's Redis keys removed, `checkin_log` and `points_ledger` emptied; after it, each must "
                 "hold one row per check-in admitted\n\n"
              << "| round: workers | check-ins admitted/s | drained/s during the storm | drained / admitted | backlog at 25 / 50 / 75 / 100 % "
                 "of the storm | max backlog | tail s | workers' CPU us per check-in | once each in SQL |\n"
              << "|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
        m_out.flush();
    }

    double measure(int workers, int round)
    {
        m_server.removeKeys(m_http.bench.prefix.toUtf8());
        truncate();
        PhaseResult result = runPhase(workers);
        QStringList quarters;
        for (const qint64 backlog : std::as_const(result.backlogAtQuarters))
            quarters << QString::number(backlog);
        m_out << "| " << round << ": " << (workers == 0 ? QStringLiteral("none (the storm alone)") : QString::number(workers)) << " | "
              << rate(result.admittedPerSecond) << " | " << (workers == 0 ? QStringLiteral("-") : rate(result.drainedPerSecond)) << " | "
              << (workers == 0 ? QStringLiteral("-") : ratioText(result.drainedPerSecond, result.admittedPerSecond)) << " | "
              << quarters.join(QStringLiteral(" / ")) << " | " << result.maxBacklog << " | "
              << (workers == 0 ? QStringLiteral("-") : QString::number(result.tailSeconds, 'f', 1)) << " | "
              << (workers == 0 ? QStringLiteral("-") : QString::number(result.workerCpuMicros, 'f', 1)) << " | " << result.exactlyOnce << " |\n";
        m_out.flush();
        m_results[workers].push_back(result);
        return result.admittedPerSecond;
    }

    PhaseResult runPhase(int workers)
    {
        PhaseResult result;
        result.workers = workers;
        const QDir dir(m_work.filePath(QStringLiteral("phase-%1-%2").arg(workers).arg(++m_phase)));
        QDir().mkpath(dir.filePath(QStringLiteral("serve")));
        ServeProcess serve(m_http.lanternd,
                           common() + QStringList{QStringLiteral("--token-secret"), m_http.tokenSecret, QStringLiteral("--threads"),
                                                  QString::number(m_http.serveThreads)},
                           dir.filePath(QStringLiteral("serve")), m_http.serverCpus);

        QByteArrayList backlogKeys;
        for (int shard = 0; shard < m_settings.shards; ++shard)
            backlogKeys << m_keys.checkinQueue(shard);
        std::vector<std::unique_ptr<QProcess>> processes;
        const double cpuBefore = cpuMicros(RUSAGE_CHILDREN);
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        for (const QString &name : environment.keys()) {
            if (name.startsWith(QLatin1String("LANTERN_")))
                environment.remove(name);
        }
        for (int i = 1; i <= workers; ++i) {
            const QString id = QStringLiteral("bench-ck-%1").arg(i);
            for (int shard = 0; shard < m_settings.shards; ++shard)
                backlogKeys << m_keys.checkinBackup(shard, id);
            auto process = std::make_unique<QProcess>();
            process->setProcessEnvironment(environment);
            process->setStandardErrorFile(dir.filePath(id + QStringLiteral(".err")));
            process->start(m_http.lanternd, QStringList{QStringLiteral("work"), QStringLiteral("--id"), id, QStringLiteral("--batch"),
                                                        QString::number(m_settings.batch)}
                                                    + common());
            if (!process->waitForStarted())
                throw LanternError(QStringLiteral("lanternd work did not start: %1").arg(process->errorString()));
            processes.push_back(std::move(process));
        }
        // Every worker beating before the storm: they are up and polling.
        for (int i = 1; i <= workers; ++i) {
            QElapsedTimer waited;
            waited.start();
            while (m_redis.command({QByteArrayLiteral("EXISTS"), m_keys.workerHeartbeat(QStringLiteral("bench-ck-%1").arg(i))}).toInteger() == 0) {
                if (waited.elapsed() > 30'000)
                    throw LanternError(QStringLiteral("worker bench-ck-%1 never beat").arg(i));
                QThread::msleep(20);
            }
        }

        const auto backlog = [&] {
            QList<QByteArrayList> commands;
            for (const QByteArray &key : std::as_const(backlogKeys))
                commands << QByteArrayList{QByteArrayLiteral("LLEN"), key};
            qint64 depth = 0;
            for (const RedisValue &value : m_redis.pipeline(commands))
                depth += value.toInteger();
            return depth;
        };
        WrkOptions wrk;
        wrk.program = m_http.wrk;
        wrk.script = m_http.wrkScript;
        wrk.url = QStringLiteral("http://127.0.0.1:%1/v1/checkin").arg(serve.port());
        wrk.bearerFile = m_bearers;
        wrk.threads = m_http.wrkThreads;
        wrk.connections = m_http.bench.clients;
        BacklogSampler sampler(m_http.bench.redis, backlogKeys);
        sampler.start();
        const double cpuBeforeStorm = cpuMicros(RUSAGE_CHILDREN);
        const WrkFigures storm = runWrk(wrk, m_settings.requests);
        const double wrkCpu = cpuMicros(RUSAGE_CHILDREN) - cpuBeforeStorm;  // wrk is the only child that ended meanwhile
        const std::vector<std::pair<qint64, qint64>> samples = sampler.stop();
        result.stormSeconds = storm.seconds;
        result.admitted = storm.outcomes.value(QStringLiteral("new"));
        result.admittedPerSecond = static_cast<double>(result.admitted) / storm.seconds;
        const qint64 endBacklog = backlog();
        for (const auto &[atMs, depth] : samples)
            result.maxBacklog = std::max(result.maxBacklog, depth);
        const auto stormMs = static_cast<qint64>(storm.seconds * 1000);
        for (const int quarter : {1, 2, 3}) {
            qint64 at = 0;
            for (const auto &[atMs, depth] : samples) {
                if (atMs <= stormMs * quarter / 4)
                    at = depth;
            }
            result.backlogAtQuarters << at;
        }
        result.backlogAtQuarters << endBacklog;
        result.drainedPerSecond = static_cast<double>(result.admitted - endBacklog) / storm.seconds;

        if (workers > 0) {
            QElapsedTimer tail;
            tail.start();
            while (backlog() > 0) {
                if (tail.elapsed() > 600'000)
                    throw LanternError(QStringLiteral("the workers did not empty the backlog within 10 minutes"));
                QThread::msleep(20);
            }
            result.tailSeconds = static_cast<double>(tail.nsecsElapsed()) / 1e9;
            for (const auto &process : processes) {
                process->terminate();
                if (!process->waitForFinished(60'000) || process->exitCode() != 0)
                    throw LanternError(QStringLiteral("a worker did not stop cleanly"));
            }
            result.workerCpuMicros = (cpuMicros(RUSAGE_CHILDREN) - cpuBefore - wrkCpu) / static_cast<double>(std::max<qint64>(1, result.admitted));
            const qint64 logRows = count(QStringLiteral("checkin_log"));
            const qint64 ledgerRows = count(QStringLiteral("points_ledger"));
            result.exactlyOnce = logRows == result.admitted && ledgerRows == result.admitted
                    ? QStringLiteral("yes")
                    : QStringLiteral("**%1 log rows, %2 ledger rows for %3 check-ins**").arg(logRows).arg(ledgerRows).arg(result.admitted);
        } else {
            result.exactlyOnce = QStringLiteral("-");
        }
        serve.stop();
        return result;
    }

    void summarize()
    {
        const auto medianOf = [this](int workers, double PhaseResult::*field) {
            std::vector<double> values;
            for (const PhaseResult &result : m_results[workers])
                values.push_back(result.*field);
            return median(values);
        };
        const double alone = medianOf(0, &PhaseResult::admittedPerSecond);
        std::vector<std::pair<QString, double>> rates{{QStringLiteral("admitted/s, the storm alone"), alone}};
        std::vector<Ratio> ratios;
        std::vector<SummaryRow> summary;
        for (const int workers : m_settings.workerCounts) {
            const double admitted = medianOf(workers, &PhaseResult::admittedPerSecond);
            const double drained = medianOf(workers, &PhaseResult::drainedPerSecond);
            rates.emplace_back(QStringLiteral("admitted/s with %1 worker(s)").arg(workers), admitted);
            rates.emplace_back(QStringLiteral("drained/s with %1 worker(s), during the storm").arg(workers), drained);
            ratios.push_back({QStringLiteral("drained / admitted, %1 worker(s)").arg(workers), drained, admitted});
            QStringList quarters;
            if (!m_results[workers].isEmpty()) {
                for (const qint64 backlog : std::as_const(m_results[workers].constLast().backlogAtQuarters))
                    quarters << QString::number(backlog);
            }
            summary.push_back({QStringLiteral("check-ins drained/s into MariaDB during the HTTP check-in storm, %1 lanternd work (backlog at 25 / 50 / "
                                              "75 / 100 % of the storm: %2)")
                                       .arg(workers)
                                       .arg(quarters.join(QStringLiteral(" / "))),
                               rate(drained), QStringLiteral("check-ins the storm admitted/s meanwhile"), rate(admitted), ratioText(drained, admitted)});
        }
        printSummary(m_out, m_http.bench.rounds, QStringLiteral("check-ins/s"), rates, ratios);
        appendSummaryRows(m_http.bench.summaryFile, summary);
    }

    const DrainStormSettings &m_settings;
    const HttpSettings &m_http;
    RedisClient &m_redis;
    BenchServer m_server;
    const KeySchema m_keys;
    const UserTokens m_tokens;
    const qint64 m_expires;
    QTemporaryDir m_work;
    std::unique_ptr<SqlConnection> m_sql;
    QString m_bearers;
    int m_phase = 0;
    QMap<int, QList<PhaseResult>> m_results;
    QTextStream m_out{stdout};
};

int run(const QCoreApplication &app)
{
    const DrainStormSettings settings = parseSettings(app);
    RedisClient redis(settings.http.bench.redis);
    DrainStorm(settings, redis).run();
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-checkin-drain"), run);
}
