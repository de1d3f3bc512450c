// lantern-bench-http-grab: a red-envelope grab storm through the HTTP API. One campaign is created
// and launched through CampaignService; lantern-bench-httpload (or wrk) sends POST /v1/campaigns/{id}/grab for a crowd of
// users, each several times and each with their own bearer, to `lanternd serve`; redis-benchmark
// sends the EVALSHA the server sent for one grab straight to Redis, at the same concurrency, for
// as many attempts from the same uids. After each phase the bench reads the campaign back from
// Redis and checks that exactly the pool was handed out, once per envelope and once per user;
// optionally it drains the payout tasks (lanternd work --once) and runs lanternd verify.
#include "bearerfile.h"
#include "benchcampaign.h"
#include "campaignstate.h"
#include "benchserver.h"
#include "httpprobe.h"
#include "httpsettings.h"
#include "httpstorm.h"
#include "perfprofile.h"
#include "redisbenchmarkrun.h"
#include "rounds.h"
#include "scriptcomparison.h"
#include "serveprocess.h"
#include "summaryrows.h"
#include "uidsample.h"

#include "core/errors.h"
#include "envelope/campaignservice.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "sql/dburl.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "token/usertoken.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>

using namespace lantern;
using namespace lantern::bench;

namespace {

const QString Salt = QStringLiteral("lantern");  // Config's default token salt, which serve uses
const QString WorkerId = QStringLiteral("bench-http-grab");

struct GrabStormSettings {
    HttpSettings http;
    qint64 envelopes = 100'000;
    qint64 users = 200'000;
    int attempts = 5;
    bool verify = false;
    QString perf;  // empty: no profile
    qint64 perfLines = 100'000;
};

GrabStormSettings parseSettings(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "A grab storm through the HTTP API: one campaign launched through CampaignService (SQLite in a temporary directory), "
            "lantern-bench-httpload (or wrk) sending POST /v1/campaigns/{id}/grab for --users users, --attempts times each, with their bearers, to lanternd "
            "serve, next to redis-benchmark sending the server's EVALSHA for as many attempts from the same uids. After each "
            "phase it checks the campaign in Redis: exactly the pool handed out, once per envelope and once per user. Point it "
            "at a private Redis: it uses keys under --prefix only and removes them, but resets the server's statistics and "
            "briefly lowers the slow-log threshold."));
    addHttpOptions(parser);
    parser.addOptions({
            {QStringLiteral("envelopes"), QStringLiteral("Envelopes in the campaign."), QStringLiteral("n"), QStringLiteral("100000")},
            {QStringLiteral("users"), QStringLiteral("Users in the crowd: uids 1000000000000 + [0, n)."), QStringLiteral("n"),
             QStringLiteral("200000")},
            {QStringLiteral("attempts"), QStringLiteral("Grab attempts per user, shuffled over the run."), QStringLiteral("n"),
             QStringLiteral("5")},
            {QStringLiteral("verify"), QStringLiteral("After the first HTTP phase, drain the payout tasks (lanternd work --once) and run "
                                                      "lanternd verify on the campaign.")},
            {QStringLiteral("perf"), QStringLiteral("After the phases, one more HTTP storm with this perf program attached to the server "
                                                    "(perf record -g): where a grab's CPU goes."),
             QStringLiteral("path")},
            {QStringLiteral("perf-lines"), QStringLiteral("Attempts of the profiled storm: the first n lines of the crowd's file."),
             QStringLiteral("n"), QStringLiteral("100000")},
    });
    processArguments(parser, app);
    GrabStormSettings settings;
    settings.http = httpSettings(parser);
    settings.envelopes = integerOption(parser, QStringLiteral("envelopes"), 1, MaxEnvelopeCount);
    settings.users = integerOption(parser, QStringLiteral("users"), 1, MaxKeyspace);
    settings.attempts = static_cast<int>(integerOption(parser, QStringLiteral("attempts"), 1, 9));  // 9: the campaign's attempt cap
    settings.verify = parser.isSet(QStringLiteral("verify"));
    settings.perf = parser.value(QStringLiteral("perf"));
    settings.perfLines = integerOption(parser, QStringLiteral("perf-lines"), 1, 100'000'000);
    if (!settings.perf.isEmpty())
        requireProgram(settings.perf, QStringLiteral("Debian package linux-perf"));
    return settings;
}

/** One line of the correctness table. */
struct Check {
    QString what;
    qint64 expected = 0;
    QList<std::optional<qint64>> values;  // per phase; nullopt: the phase cannot tell
};

class GrabStorm final {
public:
    GrabStorm(const GrabStormSettings &settings, RedisClient &redis)
        : m_settings(settings), m_http(settings.http), m_redis(redis), m_server(redis), m_keys(m_http.bench.prefix),
          m_tokens(Salt, m_http.tokenSecret.toUtf8()), m_expires(QDateTime::currentSecsSinceEpoch() + 86'400), m_out(stdout)
    {
        if (!m_work.isValid())
            throw LanternError(QStringLiteral("cannot create a temporary directory: %1").arg(m_work.errorString()));
        m_db = QStringLiteral("sqlite://") + m_work.filePath(QStringLiteral("campaign.db"));
    }

    void run()
    {
        const LuaScript script(QStringLiteral("grab"));
        m_server.loadScript(script);
        const QByteArray prefix = m_http.bench.prefix.toUtf8();
        const KeysRemovedOnExit cleanup(m_server, prefix);
        m_server.removeKeys(prefix);

        const std::unique_ptr<SqlConnection> sql = openMigrated(DbUrl::parse(m_db));
        CampaignService campaigns(m_redis, *sql, m_keys);
        m_campaign = launchBenchCampaign(campaigns, QStringLiteral("lantern-bench-http-grab"), m_settings.envelopes, m_http.bench.seed);

        // Every uid of the crowd, each --attempts times, shuffled: the attempts spread over the run.
        const std::vector<qint64> uids = sampleUids(m_settings.users, m_settings.users, m_http.bench.seed);
        const QString bearers = m_work.filePath(QStringLiteral("grab-bearers.txt"));
        m_lines = writeBearerFile(bearers, m_tokens, m_expires, uids, m_settings.attempts, m_http.bench.seed);

        QDir().mkpath(m_work.filePath(QStringLiteral("serve")));
        ServeProcess serve(m_http.lanternd, serveArguments(m_http, m_http.serveThreads, m_db), m_work.filePath(QStringLiteral("serve")),
                           m_http.serverCpus);
        m_path = QStringLiteral("/v1/campaigns/%1/grab").arg(m_campaign.id).toLatin1();
        QByteArray sample;
        RedisBenchmarkOptions baseline;
        baseline.program = m_http.redisBenchmark;
        baseline.redis = m_http.bench.redis;
        baseline.clients = m_http.bench.clients;
        baseline.requests = m_lines;
        baseline.keyspace = m_settings.users;  // 1__rand_int__: the same uids as the crowd
        baseline.command = captureScriptCommand(m_server, script, [&](qint64 uid) { sample = grabOnce(serve, uid); }, 1);
        printSetup(serve, baseline, sample);

        WrkOptions wrk;
        wrk.program = m_http.httpClient;
        wrk.script = m_http.wrkScript;
        wrk.url = QStringLiteral("http://127.0.0.1:%1%2").arg(serve.port()).arg(QString::fromLatin1(m_path));
        wrk.bearerFile = bearers;
        wrk.threads = m_http.wrkThreads;
        wrk.connections = m_http.bench.clients;

        const auto relaunch = [&] {
            m_server.removeKeys(prefix);
            forgetBenchGrabs(*sql, m_campaign.id);  // what the verification drained
            campaigns.launch(m_campaign.id);  // the whole pool back in Redis, no draws, counters at 0
        };
        const RoundRates rates = runAlternatingRoundsKeepingRates(
                m_http.bench.rounds,
                {[&](int round) {
                     relaunch();
                     StormFigures figures = runHttpStorm(m_server, serve, wrk, m_lines);
                     figures.client = QStringLiteral("%1: lanternd serve --threads %2, %3 -c %4").arg(round).arg(m_http.serveThreads).arg(m_http.httpClientName()).arg(m_http.bench.clients);
                     record(figures);
                     if (m_settings.verify && !m_verified)
                         drainAndVerify();
                     return figures.perSecond;
                 },
                 [&](int round) {
                     relaunch();
                     StormFigures figures = runBenchmarkStorm(m_server, baseline);
                     figures.client = QStringLiteral("%1: redis-benchmark -c %2").arg(round).arg(m_http.bench.clients);
                     record(figures);
                     return figures.perSecond;
                 }});
        printResults(rates);
        if (!m_settings.perf.isEmpty()) {
            // The first lines of the crowd's file: the start of the same storm.
            const qint64 lines = std::min(m_settings.perfLines, m_lines);
            QFile all(bearers);
            QFile slice(m_work.filePath(QStringLiteral("perf-bearers.txt")));
            if (!all.open(QIODevice::ReadOnly) || !slice.open(QIODevice::WriteOnly | QIODevice::Truncate))
                throw LanternError(QStringLiteral("cannot write the profile's bearer file"));
            for (qint64 line = 0; line < lines; ++line)
                slice.write(all.readLine());
            slice.close();
            WrkOptions profiled = wrk;
            profiled.bearerFile = slice.fileName();
            relaunch();
            std::optional<StormFigures> figures;
            const PerfReport report = profileProcess(
                    m_settings.perf, serve.pid(), m_work.filePath(QStringLiteral("perf.data")),
                    [&] { figures = runHttpStorm(m_server, serve, profiled, lines); }, serveProbes(), serveCategories());
            m_out << "\nProfile: the first " << lines << " attempts of the same storm once more against `lanternd serve --threads "
                  << m_http.serveThreads << "` with `"
                  << report.command << "` attached (not in the figures above; the profiler slows it down): " << rate(figures->perSecond)
                  << " grab attempts/s, lanternd " << QString::number(*figures->serveMicros, 'f', 1) << " us CPU per attempt, "
                  << QString::number(figures->serveSystemPercent, 'f', 0) << " % of it in the kernel (/proc/PID/stat), "
                  << figures->wrk->non2xx << " non-2xx.\n\n"
                  << report.text;
            m_out.flush();
            if (figures->wrk->non2xx > 0)
                throw LanternError(QStringLiteral("%1 answers of the profiled storm were not 2xx").arg(figures->wrk->non2xx));
        }
        serve.stop();
    }

private:
    QByteArray grabOnce(const ServeProcess &serve, qint64 uid) const
    {
        const HttpAnswer answer = httpRequest(serve.port(), QByteArrayLiteral("POST"), m_path, m_tokens.mintBearer(uid, m_expires).toLatin1());
        if (answer.status != 200)
            throw LanternError(QStringLiteral("POST %1 answered %2: %3").arg(QString::fromLatin1(m_path)).arg(answer.status).arg(QString::fromUtf8(answer.body)));
        return answer.body;
    }

    CampaignState readState() { return readCampaignState(m_redis, m_keys, m_campaign.id); }

    void record(const StormFigures &figures)
    {
        const CampaignState state = readState();
        m_rows << stormTableRow(figures, QStringLiteral("%1 of %2").arg(state.tasks).arg(m_campaign.count));
        m_phases << figures.client;
        m_states << state;
        m_figures << figures;
        m_out << m_rows.back() << '\n';
        m_out.flush();
    }

    /** Runs one lanternd command against the bench's Redis, prefix and SQL file; returns its JSON. */
    QJsonObject lanternd(const QStringList &arguments)
    {
        QProcess process;
        process.setProgram(m_http.lanternd);
        process.setArguments(arguments + QStringList{QStringLiteral("--redis"), m_http.redisUrl, QStringLiteral("--db"), m_db,
                                                     QStringLiteral("--prefix"), m_http.bench.prefix});
        process.start(QIODevice::ReadOnly);
        if (!process.waitForStarted() || !process.waitForFinished(-1) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
            throw LanternError(QStringLiteral("lanternd %1 failed (exit %2): %3")
                                       .arg(arguments.join(QLatin1Char(' ')))
                                       .arg(process.exitCode())
                                       .arg(QString::fromUtf8(process.readAllStandardError()).trimmed().left(500)));
        return QJsonDocument::fromJson(process.readAllStandardOutput()).object();
    }

    void drainAndVerify()
    {
        m_verified = true;
        QElapsedTimer timer;
        timer.start();
        const QJsonObject work = lanternd({QStringLiteral("work"), QStringLiteral("--once"), QStringLiteral("--id"), WorkerId});
        const double drainSeconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
        const QJsonObject verify = lanternd({QStringLiteral("verify"), QStringLiteral("--campaign"), QString::number(m_campaign.id)});
        m_verifyOk = verify.value(QStringLiteral("ok")).toBool();
        m_verifyLine = QStringLiteral("- after the first HTTP phase: `lanternd work --once --id %1` drained the payout tasks into the SQLite file "
                                      "in %2 s (`%3`), then `lanternd verify --campaign %4` said `%5`\n")
                               .arg(WorkerId, QString::number(drainSeconds, 'f', 1),
                                    QString::fromUtf8(QJsonDocument(work).toJson(QJsonDocument::Compact)))
                               .arg(m_campaign.id)
                               .arg(QString::fromUtf8(QJsonDocument(verify).toJson(QJsonDocument::Compact)));
    }

    void printSetup(const ServeProcess &serve, const RedisBenchmarkOptions &baseline, const QByteArray &sample)
    {
        const HttpSettings &h = m_http;
        m_out << "Grab storm through the HTTP API vs redis-benchmark: " << m_lines << " grab attempts per phase (" << m_settings.users
              << " users, " << m_settings.attempts << " each) on " << m_campaign.count << " envelopes, " << h.bench.clients
              << " concurrent connections, " << h.bench.rounds << (h.bench.rounds == 1 ? " round" : " rounds") << ".\n\n"
              << "- campaign " << m_campaign.id << ": " << m_campaign.count << " envelopes, " << m_campaign.totalCents
              << " cents, double-mean split (seed " << m_campaign.seed << "), at most " << m_campaign.maxAttempts
              << " attempts a user, created and launched through CampaignService (SQLite in a temporary directory); before each "
                 "phase the bench removes its keys and launches it again (the whole pool back in Redis, no draws, counters at 0)\n"
              << "- crowd: uids " << UidBase << " + [0, " << m_settings.users << "), each with its own bearer, " << m_settings.attempts
              << " lines per user in a file of " << m_lines << " lines shuffled (seed " << h.bench.seed << "), so attempts spread over the run\n"
              << "- server: `lanternd " << serve.commandLine().section(QLatin1Char(' '), 1).replace(m_work.path(), QStringLiteral("$TMP"))
              << "`\n"
              << "- HTTP client: `" << h.httpClientName() << " -t " << h.wrkThreads << " -c " << h.bench.clients << " -s bench/wrk/bearers.lua URL" << m_path
              << " -- FILE " << h.wrkThreads << " DONE`: every line once, thread k sending lines k, k+" << h.wrkThreads << ", ...\n"
              << "- answer to one grab: `" << sample << "`\n"
              << "- redis-benchmark: the EVALSHA the server sent for that grab, as the slow log recorded it, with the uid made `"
              << RandomUid << "` (so `-r " << m_settings.users << "` draws from the same uids, about " << m_settings.attempts
              << " attempts each):\n  `" << shellCommand(h.redisBenchmark, redisBenchmarkArguments(baseline, true)) << "`\n\n"
              << stormTableHeader(QStringLiteral("grab attempts/s"), QStringLiteral("payout tasks queued"));
        m_out.flush();
    }

    void printResults(const RoundRates &rates)
    {
        const qint64 n = m_campaign.count;
        // Answers by outcome (wrk reads each answer's "status").
        m_out << "\n| phase: answers | ok | already | sold_out | too_many_attempts | not_live | other |\n|---|---:|---:|---:|---:|---:|---:|\n";
        for (qsizetype i = 0; i < m_figures.size(); ++i) {
            if (!m_figures[i].wrk)
                continue;
            const QMap<QString, qint64> &o = m_figures[i].wrk->outcomes;
            qint64 other = 0;
            for (auto it = o.begin(); it != o.end(); ++it) {
                if (!QStringList{QStringLiteral("ok"), QStringLiteral("already"), QStringLiteral("sold_out"), QStringLiteral("too_many_attempts"),
                                 QStringLiteral("not_live")}
                             .contains(it.key()))
                    other += it.value();
            }
            m_out << "| " << m_phases[i] << " | " << o.value(QStringLiteral("ok")) << " | " << o.value(QStringLiteral("already")) << " | "
                  << o.value(QStringLiteral("sold_out")) << " | " << o.value(QStringLiteral("too_many_attempts")) << " | "
                  << o.value(QStringLiteral("not_live")) << " | " << other << " |\n";
        }

        // What Redis holds afterwards, against what it must hold.
        QList<Check> checks{{QStringLiteral("`ok` answers (HTTP)"), n, {}},
                            {QStringLiteral("non-2xx answers (HTTP)"), 0, {}},
                            {QStringLiteral("grabbed_count in the meta hash"), n, {}},
                            {QStringLiteral("HLEN draws (users holding one)"), n, {}},
                            {QStringLiteral("distinct envelopes among the draws"), n, {}},
                            {QStringLiteral("sum of the drawn amounts, cents"), m_campaign.totalCents, {}},
                            {QStringLiteral("grabbed_cents in the meta hash"), m_campaign.totalCents, {}},
                            {QStringLiteral("envelopes left in the pool"), 0, {}},
                            {QStringLiteral("payout tasks queued"), n, {}}};
        for (qsizetype i = 0; i < m_states.size(); ++i) {
            const CampaignState &s = m_states[i];
            const std::optional<WrkFigures> &wrk = m_figures[i].wrk;
            checks[0].values << (wrk ? std::optional<qint64>(wrk->outcomes.value(QStringLiteral("ok"))) : std::nullopt);
            checks[1].values << (wrk ? std::optional<qint64>(wrk->non2xx) : std::nullopt);
            checks[2].values << s.grabbedCount;
            checks[3].values << s.draws;
            checks[4].values << s.envelopes;
            checks[5].values << s.drawnCents;
            checks[6].values << s.grabbedCents;
            checks[7].values << s.pool;
            checks[8].values << s.tasks;
        }
        m_out << "\nRead back from Redis after each phase (HMGET meta, HLEN and HSCAN draws, LLEN pool and tasks):\n\n| check | expected |";
        for (const QString &phase : std::as_const(m_phases))
            m_out << ' ' << phase.section(QLatin1Char(','), 0, 0) << " |";
        m_out << "\n|---|---:|" << QStringLiteral("---:|").repeated(m_phases.size()) << '\n';
        bool allPassed = true;
        for (const Check &check : std::as_const(checks)) {
            m_out << "| " << check.what << " | " << check.expected << " |";
            for (const std::optional<qint64> &value : check.values) {
                const bool passed = !value || *value == check.expected;
                allPassed = allPassed && passed;
                m_out << ' ' << (value ? QString::number(*value) : QStringLiteral("-")) << (passed ? "" : " **FAIL**") << " |";
            }
            m_out << '\n';
        }
        m_out << "\nNo user twice: a user's draw is one field of the draws hash, and with exactly " << n
              << " `ok` answers and " << n << " fields, no user was answered `ok` twice; no envelope twice: as many distinct "
                 "envelopes as draws.\n";
        if (m_settings.verify) {
            m_out << '\n' << m_verifyLine;
            allPassed = allPassed && m_verifyOk;
        }

        const std::vector<double> &medians = rates.medians;
        const QString clients = QString::number(m_http.bench.clients);
        printSummary(m_out, m_http.bench.rounds, QStringLiteral("grab attempts/s"),
                     {{QStringLiteral("HTTP: lanternd serve --threads %1, %2 -c %3").arg(m_http.serveThreads).arg(m_http.httpClientName(), clients), medians[0]},
                      {QStringLiteral("redis-benchmark -c %1 (the server's EVALSHA)").arg(clients), medians[1]}},
                     {{QStringLiteral("ratio HTTP / redis-benchmark"), medians[0], medians[1]}});
        if (m_http.bench.rounds > 1)
            m_out << '\n' << roundByRoundRatios(QStringLiteral("HTTP / redis-benchmark"), rates.perRound[0], rates.perRound[1]);
        m_out << '\n' << cpuBudget(m_figures, QStringLiteral("grab attempt"));
        const qint64 granted = m_states.isEmpty() ? 0 : m_states.front().envelopes;
        double p99 = 0;
        for (const StormFigures &f : std::as_const(m_figures))
            p99 = f.wrk ? f.p99Ms : p99;
        appendSummaryRows(m_http.bench.summaryFile,
                          {{QStringLiteral("grab attempts/s through lanternd serve (HTTP, %1 users x %2, %3 -c %4; p99 %5 ms)")
                                    .arg(m_settings.users)
                                    .arg(m_settings.attempts)
                                    .arg(m_http.httpClientName(), clients, QString::number(p99, 'f', 1)),
                            rate(medians[0]), QStringLiteral("redis-benchmark -c %1, the server's EVALSHA").arg(clients), rate(medians[1]),
                            ratioText(medians[0], medians[1])},
                           {QStringLiteral("envelopes handed out in the HTTP storm (%1)")
                                    .arg(allPassed ? QStringLiteral("every check passed") : QStringLiteral("**a check FAILED**")),
                            QString::number(granted), QStringLiteral("envelopes in the campaign"), QString::number(n),
                            ratioText(static_cast<double>(granted), static_cast<double>(n))}});
        m_out.flush();
        if (!allPassed)
            throw LanternError(QStringLiteral("a correctness check failed (see the table)"));
    }

    const GrabStormSettings &m_settings;
    const HttpSettings &m_http;
    RedisClient &m_redis;
    BenchServer m_server;
    KeySchema m_keys;
    UserTokens m_tokens;
    qint64 m_expires;
    QTemporaryDir m_work;
    QString m_db;
    QTextStream m_out;
    Campaign m_campaign;
    qint64 m_lines = 0;
    QByteArray m_path;
    QStringList m_rows;
    QStringList m_phases;
    QList<CampaignState> m_states;
    QList<StormFigures> m_figures;
    bool m_verified = false;
    bool m_verifyOk = false;
    QString m_verifyLine;
};

int run(const QCoreApplication &app)
{
    const GrabStormSettings settings = parseSettings(app);
    RedisClient redis(settings.http.bench.redis);
    GrabStorm(settings, redis).run();
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-http-grab"), run);
}
