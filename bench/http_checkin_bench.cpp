// lantern-bench-http-checkin: a check-in storm through the HTTP API. lantern-bench-httpload (or wrk) sends POST /v1/checkin
// for distinct users, each with their own bearer, to `lanternd serve`; redis-benchmark sends the
// EVALSHA the server sent for one of those check-ins straight to Redis at the same concurrency.
// Then the same storm against lanternd serve --threads 1, 2, 4, ..., and optionally a profile of
// the server under the storm (perf record -g). It measures; it asserts nothing but non-2xx = 0.
#include "bearerfile.h"
#include "benchserver.h"
#include "httpprobe.h"
#include "httpsettings.h"
#include "httpstorm.h"
#include "nginxreference.h"
#include "perfprofile.h"
#include "redisbenchmarkrun.h"
#include "rounds.h"
#include "scriptcomparison.h"
#include "serveprocess.h"
#include "summaryrows.h"
#include "uidsample.h"

#include "checkin/checkinlayout.h"
#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "token/usertoken.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QDir>
#include <QTemporaryDir>
#include <QTextStream>

#include <map>

using namespace lantern;
using namespace lantern::bench;

namespace {

const QString Salt = QStringLiteral("lantern");  // Config's default token salt, which serve uses

struct CheckinStormSettings {
    HttpSettings http;
    qint64 requests = 200'000;
    qint64 users = 1'000'000'000;
    QList<int> threadCounts{1, 2, 4};
    qint64 threadRequests = 20'000;
    qint64 perfRequests = 0;
    QString perf;
    int referenceSeconds = 0;
    QString nginx;
};

CheckinStormSettings parseSettings(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "A check-in storm through the HTTP API: lantern-bench-httpload (or wrk) sends POST /v1/checkin for distinct users with their bearers to lanternd "
            "serve, next to redis-benchmark sending the server's own EVALSHA at the same concurrency; then the storm at several "
            "lanternd serve --threads, and optionally a perf profile of the server. Point it at a private Redis: it uses keys "
            "under --prefix only and removes them, but resets the server's statistics and briefly lowers the slow-log threshold."));
    addHttpOptions(parser);
    parser.addOptions({
            {QStringLiteral("requests"), QStringLiteral("Check-ins per phase (each a different user)."), QStringLiteral("n"),
             QStringLiteral("200000")},
            {QStringLiteral("users"), QStringLiteral("Uid keyspace (redis-benchmark -r), at most %1.").arg(MaxKeyspace), QStringLiteral("n"),
             QStringLiteral("1000000000")},
            {QStringLiteral("thread-counts"), QStringLiteral("lanternd serve --threads values for the threads table (empty: none)."),
             QStringLiteral("list"), QStringLiteral("1,2,4")},
            {QStringLiteral("thread-requests"), QStringLiteral("Check-ins per row of the threads table."), QStringLiteral("n"),
             QStringLiteral("20000")},
            {QStringLiteral("perf-requests"), QStringLiteral("Check-ins of a separate run with perf record -g attached to the server "
                                                             "(0: no profile)."),
             QStringLiteral("n"), QStringLiteral("0")},
            {QStringLiteral("perf"), QStringLiteral("The perf program."), QStringLiteral("path"), QStringLiteral("perf")},
            {QStringLiteral("reference-seconds"), QStringLiteral("Seconds of each run of GET /livez through lanternd serve and through "
                                                                 "nginx, the outside reference (0: none)."),
             QStringLiteral("s"), QStringLiteral("0")},
            {QStringLiteral("nginx"), QStringLiteral("The nginx program."), QStringLiteral("path"), QStringLiteral("/usr/sbin/nginx")},
    });
    processArguments(parser, app);
    CheckinStormSettings settings;
    settings.http = httpSettings(parser);
    settings.requests = integerOption(parser, QStringLiteral("requests"), 1, 100'000'000);
    settings.users = integerOption(parser, QStringLiteral("users"), settings.requests, MaxKeyspace);
    settings.threadRequests = integerOption(parser, QStringLiteral("thread-requests"), 1, settings.requests);
    settings.perfRequests = integerOption(parser, QStringLiteral("perf-requests"), 0, settings.requests);
    settings.threadCounts.clear();
    for (const QString &count : parser.value(QStringLiteral("thread-counts")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int threads = count.toInt(&ok);
        if (!ok || threads < 1 || threads > 64)
            throw InvalidInputError(QStringLiteral("--thread-counts: '%1' is not 1..64").arg(count));
        settings.threadCounts << threads;
    }
    settings.perf = parser.value(QStringLiteral("perf"));
    settings.referenceSeconds = int(integerOption(parser, QStringLiteral("reference-seconds"), 0, 600));
    settings.nginx = parser.value(QStringLiteral("nginx"));
    if (settings.referenceSeconds > 0)
        requireProgram(settings.nginx, QStringLiteral("Debian package nginx-light"));
    if (settings.perfRequests > 0)
        requireProgram(settings.perf, QStringLiteral("Debian package linux-perf"));
    return settings;
}

class CheckinStorm final {
public:
    CheckinStorm(const CheckinStormSettings &settings, RedisClient &redis)
        : m_settings(settings), m_http(settings.http), m_server(redis), m_keys(m_http.bench.prefix, 1),
          m_tokens(Salt, m_http.tokenSecret.toUtf8()), m_expires(QDateTime::currentSecsSinceEpoch() + 86'400), m_out(stdout)
    {
        if (!m_work.isValid())
            throw LanternError(QStringLiteral("cannot create a temporary directory: %1").arg(m_work.errorString()));
        m_db = QStringLiteral("sqlite://") + m_work.filePath(QStringLiteral("serve.db"));  // serve opens it for the calendar only
    }

    void run()
    {
        const LuaScript script(QStringLiteral("checkin"));
        m_server.loadScript(script);
        const KeysRemovedOnExit cleanup(m_server, m_http.bench.prefix.toUtf8());
        m_server.removeKeys(m_http.bench.prefix.toUtf8());

        const std::vector<qint64> uids = sampleUids(m_settings.requests, m_settings.users, m_http.bench.seed);
        const QString bearers = m_work.filePath(QStringLiteral("checkin-bearers.txt"));
        writeBearerFile(bearers, m_tokens, m_expires, uids, 1, m_http.bench.seed);

        ServeProcess serve(m_http.lanternd, serveArguments(m_http, m_http.serveThreads, m_db), serveDir(QStringLiteral("main")),
                           m_http.serverCpus);
        QByteArray sample;
        RedisBenchmarkOptions baseline;
        baseline.program = m_http.redisBenchmark;
        baseline.redis = m_http.bench.redis;
        baseline.clients = m_http.bench.clients;
        baseline.requests = m_settings.requests;
        baseline.keyspace = m_settings.users;
        baseline.command = captureScriptCommand(
                m_server, script, [&](qint64 uid) { sample = checkinOnce(serve, uid); }, 1);
        // redis-benchmark sends every check-in to the captured user's sparse hash; the third phase
        // sends users of that hash only, so that Redis does the same work in both.
        const int bucket = sparseBucketOf(SentinelUid, baseline.command);
        const std::vector<qint64> bucketUids = sampleUidsWhere(m_settings.requests, m_settings.users, m_http.bench.seed + 1, [&](qint64 uid) {
            const UserPlace place = CheckinLayout(m_keys).place(uid);
            return !place.dense && place.bucket == bucket && uid != SentinelUid;
        });
        const QString bucketBearers = m_work.filePath(QStringLiteral("checkin-bucket-bearers.txt"));
        writeBearerFile(bucketBearers, m_tokens, m_expires, bucketUids, 1, m_http.bench.seed);
        printSetup(serve, baseline, sample, bucket);

        const WrkOptions wrk = wrkOptions(serve, bearers);
        const WrkOptions bucketWrk = wrkOptions(serve, bucketBearers);
        const QString httpLabel = QStringLiteral("lanternd serve --threads %1, %2 -c %3").arg(m_http.serveThreads).arg(m_http.httpClientName()).arg(m_http.bench.clients);
        const RoundRates rates = runAlternatingRoundsKeepingRates(
                m_http.bench.rounds,
                {[&](int round) {
                     return measure(QStringLiteral("%1: %2").arg(round).arg(httpLabel), m_phases,
                                    [&] { return runHttpStorm(m_server, serve, wrk, m_settings.requests); });
                 },
                 [&](int round) {
                     return measure(QStringLiteral("%1: redis-benchmark -c %2").arg(round).arg(m_http.bench.clients), m_phases,
                                    [&] { return runBenchmarkStorm(m_server, baseline); });
                 },
                 [&](int round) {
                     return measure(QStringLiteral("%1: %2, users of hash %3").arg(round).arg(httpLabel).arg(bucket), m_bucketPhases,
                                    [&] { return runHttpStorm(m_server, serve, bucketWrk, m_settings.requests); });
                 }});
        serve.stop();
        const std::vector<double> &medians = rates.medians;
        const QString clients = QString::number(m_http.bench.clients);
        printSummary(m_out, m_http.bench.rounds, QStringLiteral("check-ins/s"),
                     {{QStringLiteral("HTTP: lanternd serve --threads %1, %2 -c %3").arg(m_http.serveThreads).arg(m_http.httpClientName(), clients), medians[0]},
                      {QStringLiteral("redis-benchmark -c %1 (the server's EVALSHA)").arg(clients), medians[1]},
                      {QStringLiteral("HTTP, users of redis-benchmark's hash (sp:%1)").arg(bucket), medians[2]}},
                     {{QStringLiteral("ratio HTTP / redis-benchmark"), medians[0], medians[1]},
                      {QStringLiteral("ratio HTTP / redis-benchmark, the same hash"), medians[2], medians[1]}});
        if (m_http.bench.rounds > 1) {
            m_out << '\n' << roundByRoundRatios(QStringLiteral("HTTP / redis-benchmark"), rates.perRound[0], rates.perRound[1])
                  << '\n' << roundByRoundRatios(QStringLiteral("HTTP / redis-benchmark, the same hash"), rates.perRound[2], rates.perRound[1]);
        }
        m_out << '\n' << cpuBudget(m_phases, QStringLiteral("check-in"));
        m_out << "Users of one hash only, as redis-benchmark's: " << cpuBudget(m_bucketPhases, QStringLiteral("check-in"));
        if (m_non2xx > 0)
            m_out << "\n**" << m_non2xx << " answers were not 2xx** (the server's stderr has the causes).\n";
        appendSummaryRows(m_http.bench.summaryFile,
                          {{QStringLiteral("check-ins/s through lanternd serve (HTTP, --threads %1, %2 -c %3)").arg(m_http.serveThreads).arg(m_http.httpClientName(), clients),
                            rate(medians[0]), QStringLiteral("redis-benchmark -c %1, the server's EVALSHA").arg(clients), rate(medians[1]),
                            ratioText(medians[0], medians[1])},
                           {QStringLiteral("check-ins/s through lanternd serve, users of redis-benchmark's one hash (HTTP, --threads %1, %2 -c %3)")
                                    .arg(m_http.serveThreads)
                                    .arg(m_http.httpClientName(), clients),
                            rate(medians[2]), QStringLiteral("redis-benchmark -c %1, the server's EVALSHA").arg(clients), rate(medians[1]),
                            ratioText(medians[2], medians[1])}});

        if (!m_settings.threadCounts.isEmpty())
            runThreadsTable(uids);
        if (m_settings.perfRequests > 0)
            runProfile(uids);
        if (m_settings.referenceSeconds > 0)
            runReference();
        m_out.flush();
        if (m_non2xx > 0)
            throw LanternError(QStringLiteral("%1 answers were not 2xx").arg(m_non2xx));
    }

private:
    QString serveDir(const QString &name) const
    {
        const QString path = m_work.filePath(name);
        QDir().mkpath(path);
        return path;
    }

    WrkOptions wrkOptions(const ServeProcess &serve, const QString &bearers) const
    {
        WrkOptions options;
        options.program = m_http.httpClient;
        options.script = m_http.wrkScript;
        options.url = QStringLiteral("http://127.0.0.1:%1/v1/checkin").arg(serve.port());
        options.bearerFile = bearers;
        options.threads = m_http.wrkThreads;
        options.connections = m_http.bench.clients;
        return options;
    }

    /** One check-in through the server for `uid`; returns its JSON. */
    QByteArray checkinOnce(const ServeProcess &serve, qint64 uid) const
    {
        const HttpAnswer answer = httpRequest(serve.port(), QByteArrayLiteral("POST"), QByteArrayLiteral("/v1/checkin"),
                                              m_tokens.mintBearer(uid, m_expires).toLatin1());
        if (answer.status != 200)
            throw LanternError(QStringLiteral("POST /v1/checkin answered %1: %2").arg(answer.status).arg(QString::fromUtf8(answer.body)));
        return answer.body;
    }

    /** One phase between two emptyings of the bench's keys; prints its row, returns its rate. */
    double measure(const QString &client, QList<StormFigures> &phases, const std::function<StormFigures()> &phase)
    {
        m_server.removeKeys(m_http.bench.prefix.toUtf8());
        StormFigures figures = phase();
        figures.client = client;
        if (figures.wrk)
            m_non2xx += figures.wrk->non2xx;
        phases << figures;
        const qint64 fresh = m_server.listLength(m_keys.checkinQueue(0));
        m_out << stormTableRow(figures, QStringLiteral("%1 of %2").arg(fresh).arg(figures.requests)) << '\n';
        m_out.flush();
        return figures.perSecond;
    }

    /** The sparse hash (bucket) of `uid`, whose check-in `command` is; throws unless the command's
        first key is that hash (a dense uid, or a layout the bench does not know). */
    int sparseBucketOf(qint64 uid, const QByteArrayList &command) const
    {
        const UserPlace place = CheckinLayout(m_keys).place(uid);
        const QByteArray marker = ":sp:" + QByteArray::number(place.bucket) + ':';
        if (place.dense || command.size() < 4 || !command[3].contains(marker))
            throw LanternError(QStringLiteral("the captured check-in's first key is not uid %1's sparse hash %2: %3")
                                       .arg(uid)
                                       .arg(place.bucket)
                                       .arg(QString::fromUtf8(command.value(3))));
        return place.bucket;
    }

    void printSetup(const ServeProcess &serve, const RedisBenchmarkOptions &baseline, const QByteArray &sample, int bucket)
    {
        const HttpSettings &h = m_http;
        m_out << "Check-in storm through the HTTP API vs redis-benchmark: " << m_settings.requests << " check-ins per phase, "
              << h.bench.clients << " concurrent connections, " << h.bench.rounds << (h.bench.rounds == 1 ? " round" : " rounds") << ".\n\n"
              << "- users: " << m_settings.requests << " distinct uids " << UidBase << " + [0, " << m_settings.users
              << ") at random, each with its own bearer (UserTokens::mintBearer, HMAC-SHA256), written once to a file; keys under `"
              << h.bench.prefix << "`\n"
              << "- server: `lanternd " << serve.commandLine().section(QLatin1Char(' '), 1).replace(m_work.path(), QStringLiteral("$TMP"))
              << "` (one check-in shard, so the keys have the shape redis-benchmark can send; the day in " << h.timeZone << ")\n"
              << "- HTTP client: `" << h.httpClientName() << " -t " << h.wrkThreads << " -c " << h.bench.clients
              << " -s bench/wrk/bearers.lua URL/v1/checkin -- FILE " << h.wrkThreads
              << " DONE`: POST /v1/checkin with `Authorization: Bearer ...`, every line of the file once (thread k sends lines k, k+"
              << h.wrkThreads << ", ...), then stops\n"
              << "- answer to one of them: `" << sample << "`\n"
              << "- redis-benchmark: the EVALSHA the server sent for that check-in, as the slow log recorded it, with the uid made `"
              << RandomUid << "`:\n  `" << shellCommand(h.redisBenchmark, redisBenchmarkArguments(baseline, true)) << "`\n"
              << "- the same hash: redis-benchmark can vary the uid only, so all its check-ins go to that user's sparse hash (sp:" << bucket
              << "); the HTTP storm's users are spread over " << CheckinLayout::SparseBuckets << " of them. The third phase sends "
              << m_settings.requests << " other users, all of hash " << bucket << " (drawn from the same uid range, each with its own bearer), so "
              << "that Redis does the same work as under redis-benchmark\n\n"
              << stormTableHeader(QStringLiteral("check-ins/s"), QStringLiteral("fresh check-ins"));
        m_out.flush();
    }

    void runThreadsTable(const std::vector<qint64> &uids)
    {
        const std::vector<qint64> slice(uids.begin(), uids.begin() + static_cast<std::ptrdiff_t>(m_settings.threadRequests));
        const QString bearers = m_work.filePath(QStringLiteral("threads-bearers.txt"));
        writeBearerFile(bearers, m_tokens, m_expires, slice, 1, m_http.bench.seed);
        const int rounds = m_http.bench.rounds;
        m_out << "\nThe same storm against `lanternd serve --threads N` (" << m_settings.threadRequests << " check-ins per run, wrk -t "
              << m_http.wrkThreads << " -c " << m_http.bench.clients << ", a new server and empty keys for each run, " << rounds
              << (rounds == 1 ? " round" : " rounds, the order of the thread counts alternating") << "):\n\n"
              << "| round: --threads | check-ins/s | p50 ms | p99 ms | non-2xx | lanternd CPU us (kernel) | lanternd cores busy | "
                 "Redis CPU us | client CPU us |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
        m_out.flush();
        const auto fixed = [](double value, int decimals) { return QString::number(value, 'f', decimals); };
        std::vector<RoundPhase> phases;
        std::map<int, std::vector<StormFigures>> runs;
        for (const int threads : m_settings.threadCounts) {
            phases.emplace_back([&, threads](int round) {
                m_server.removeKeys(m_http.bench.prefix.toUtf8());
                ServeProcess serve(m_http.lanternd, serveArguments(m_http, threads, m_db),
                                   serveDir(QStringLiteral("threads-%1-%2").arg(threads).arg(round)), m_http.serverCpus);
                const StormFigures f = runHttpStorm(m_server, serve, wrkOptions(serve, bearers), m_settings.threadRequests);
                serve.stop();
                m_non2xx += f.wrk->non2xx;
                runs[threads].push_back(f);
                m_out << "| " << round << ": " << threads << " | " << rate(f.perSecond) << " | " << fixed(f.p50Ms, 3) << " | "
                      << fixed(f.p99Ms, 3) << " | " << f.wrk->non2xx << " | " << fixed(*f.serveMicros, 1) << " ("
                      << fixed(f.serveSystemPercent, 0) << " %) | " << fixed(*f.serveMicros * f.perSecond / 1e6, 2) << " | "
                      << fixed(f.redisMicros, 1) << " | " << fixed(f.clientMicros, 1) << " |\n";
                m_out.flush();
                return f.perSecond;
            });
        }
        const std::vector<double> medians = runAlternatingRounds(rounds, phases);
        if (rounds == 1)
            return;
        const auto medianOf = [](const std::vector<StormFigures> &figures, const std::function<double(const StormFigures &)> &field) {
            std::vector<double> values;
            for (const StormFigures &f : figures)
                values.push_back(field(f));
            return median(std::move(values));
        };
        m_out << "\n| median of " << rounds << " runs: --threads | check-ins/s | p99 ms | lanternd CPU us | Redis CPU us |\n|---:|---:|---:|---:|---:|\n";
        for (qsizetype i = 0; i < m_settings.threadCounts.size(); ++i) {
            const int threads = m_settings.threadCounts[i];
            const std::vector<StormFigures> &figures = runs[threads];
            m_out << "| " << threads << " | " << rate(medians[static_cast<size_t>(i)]) << " | "
                  << fixed(medianOf(figures, [](const StormFigures &f) { return f.p99Ms; }), 3) << " | "
                  << fixed(medianOf(figures, [](const StormFigures &f) { return *f.serveMicros; }), 1) << " | "
                  << fixed(medianOf(figures, [](const StormFigures &f) { return f.redisMicros; }), 1) << " |\n";
        }
        m_out.flush();
    }

    void runProfile(const std::vector<qint64> &uids)
    {
        const std::vector<qint64> slice(uids.begin(), uids.begin() + static_cast<std::ptrdiff_t>(m_settings.perfRequests));
        const QString bearers = m_work.filePath(QStringLiteral("perf-bearers.txt"));
        writeBearerFile(bearers, m_tokens, m_expires, slice, 1, m_http.bench.seed);
        m_server.removeKeys(m_http.bench.prefix.toUtf8());
        ServeProcess serve(m_http.lanternd, serveArguments(m_http, m_http.serveThreads, m_db), serveDir(QStringLiteral("perf")),
                           m_http.serverCpus);
        std::optional<StormFigures> figures;
        const PerfReport report = profileProcess(
                m_settings.perf, serve.pid(), m_work.filePath(QStringLiteral("perf.data")),
                [&] { figures = runHttpStorm(m_server, serve, wrkOptions(serve, bearers), m_settings.perfRequests); }, serveProbes(),
                serveCategories());
        serve.stop();
        m_non2xx += figures->wrk->non2xx;
        m_out << "\nProfile: " << m_settings.perfRequests << " more check-ins against `lanternd serve --threads " << m_http.serveThreads
              << "` with `" << report.command << "` attached (not in the figures above; the profiler slows it down): "
              << rate(figures->perSecond) << " check-ins/s, lanternd " << QString::number(*figures->serveMicros, 'f', 1) << " us CPU per check-in, "
              << QString::number(figures->serveSystemPercent, 'f', 0) << " % of it in the kernel (/proc/PID/stat).\n\n"
              << report.text;
    }

    void runReference()
    {
        ServeProcess serve(m_http.lanternd, serveArguments(m_http, m_http.serveThreads, m_db), serveDir(QStringLiteral("livez")));
        const NginxProcess nginx(m_settings.nginx, m_http.serveThreads, serveDir(QStringLiteral("nginx")));
        ReferenceSetup setup;
        setup.wrk = m_http.wrk;
        setup.wrkThreads = m_http.wrkThreads;
        setup.connections = m_http.bench.clients;
        setup.seconds = m_settings.referenceSeconds;
        setup.rounds = m_http.bench.rounds;
        setup.serveThreads = m_http.serveThreads;
        setup.serve = &serve;
        setup.nginx = &nginx;
        for (const ReferenceLayout &layout : referenceLayouts()) {
            setup.layout = layout;
            appendSummaryRows(m_http.bench.summaryFile, runNginxReference(m_out, setup));
        }
        serve.stop();
    }


    const CheckinStormSettings &m_settings;
    const HttpSettings &m_http;
    BenchServer m_server;
    KeySchema m_keys;
    UserTokens m_tokens;
    qint64 m_expires;
    QTemporaryDir m_work;
    QString m_db;
    QTextStream m_out;
    qint64 m_non2xx = 0;
    QList<StormFigures> m_phases;        // through HTTP with users at random, and redis-benchmark's
    QList<StormFigures> m_bucketPhases;  // through HTTP, users of redis-benchmark's hash
};

int run(const QCoreApplication &app)
{
    const CheckinStormSettings settings = parseSettings(app);
    RedisClient redis(settings.http.bench.redis);
    CheckinStorm(settings, redis).run();
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-http-checkin"), run);
}
