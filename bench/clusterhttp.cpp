#include "clusterhttp.h"

#include "bearerfile.h"
#include "campaignstate.h"
#include "httpprobe.h"
#include "livereshard.h"
#include "rounds.h"
#include "servercpu.h"
#include "serveprocess.h"
#include "wrkrun.h"

#include "core/errors.h"
#include "redis/redisclient.h"
#include "token/usertoken.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QDir>
#include <QTextStream>

#include <atomic>
#include <chrono>
#include <memory>
#include <numeric>
#include <thread>

namespace lantern::bench {

namespace {

const QString Salt = QStringLiteral("lantern");  // Config's default token salt, which serve uses
constexpr int Shards = 16;                        // as the library phases: check-ins on every master

/** The value of the /metrics line that starts with `series` (name and labels), or 0. */
qint64 metric(const QByteArray &body, const QByteArray &series)
{
    for (const QByteArray &line : body.split('\n')) {
        if (line.startsWith(QByteArray(series + ' ')))
            return static_cast<qint64>(line.mid(series.size() + 1).toDouble());
    }
    return 0;
}

QByteArray metrics(const ServeProcess &serve)
{
    return httpRequest(serve.port(), QByteArrayLiteral("GET"), QByteArrayLiteral("/metrics")).body;
}

} // namespace

ClusterHttpBench::ClusterHttpBench(const HttpSettings &settings, const KeySchema &keys, QString db, QString workDir, qint64 requests,
                                   QTextStream &out)
    : m_settings(settings), m_keys(keys), m_db(std::move(db)), m_workDir(std::move(workDir)), m_requests(requests), m_out(out)
{
}

QStringList ClusterHttpBench::serveArguments(const QString &redisUrl) const
{
    return {QStringLiteral("--redis"), redisUrl, QStringLiteral("--db"), m_db, QStringLiteral("--prefix"), m_settings.bench.prefix,
            QStringLiteral("--shards"), QString::number(Shards), QStringLiteral("--tz"), m_settings.timeZone, QStringLiteral("--token-secret"),
            m_settings.tokenSecret, QStringLiteral("--threads"), QString::number(m_settings.serveThreads)};
}

QString ClusterHttpBench::bearerFile(const QString &name, qint64 firstUid)
{
    const UserTokens tokens(Salt, m_settings.tokenSecret.toUtf8());
    std::vector<qint64> uids(static_cast<size_t>(m_requests));
    std::iota(uids.begin(), uids.end(), firstUid);
    const QString path = QDir(m_workDir).filePath(name);
    writeBearerFile(path, tokens, QDateTime::currentSecsSinceEpoch() + 86'400, uids, 1, m_settings.bench.seed);
    return path;
}

std::vector<double> ClusterHttpBench::run(QList<HttpTarget> &targets)
{
    std::vector<std::unique_ptr<ServeProcess>> serves;
    for (qsizetype i = 0; i < targets.size(); ++i) {
        const QString dir = QDir(m_workDir).filePath(QStringLiteral("serve-%1").arg(i));
        QDir().mkpath(dir);
        serves.push_back(std::make_unique<ServeProcess>(m_settings.lanternd, serveArguments(targets[i].url), dir, m_settings.serverCpus));
    }
    m_out << "\n### The HTTP storm: `lanternd serve` on each setup\n\n"
          << "- `lanternd serve --threads " << m_settings.serveThreads << " --shards " << Shards << "` pointed at each setup (`--redis` the "
          << "single server's URL, the 1-master node's URL, the 3+3 cluster's seed list), one process each, started before the rounds\n"
          << "- `wrk -t " << m_settings.wrkThreads << " -c " << m_settings.bench.clients << " -s bench/wrk/bearers.lua`, " << m_requests
          << " requests a phase, each a fresh user with its own bearer; grabs from a campaign of " << m_requests
          << " envelopes launched again before each phase (so every answer is `ok`), check-ins of fresh users\n\n"
          << "| round | phase | req/s | p50 ms | p99 ms | non-2xx | answers | lanternd CPU us/req | Redis CPU (each master) |\n"
          << "|---|---|---:|---:|---:|---:|---|---:|---|\n";
    m_out.flush();

    const auto phase = [&](qsizetype index, bool grabs) -> RoundPhase {
        return [&, index, grabs](int round) {
            HttpTarget &target = targets[index];
            ServeProcess &serve = *serves[size_t(index)];
            const qint64 first = m_nextUid;
            m_nextUid += m_requests;
            const QString file = bearerFile(QStringLiteral("bearers-%1.txt").arg(index), first);
            if (grabs)
                target.relaunch();
            WrkOptions wrk;
            wrk.program = m_settings.wrk;
            wrk.script = m_settings.wrkScript;
            wrk.url = grabs ? QStringLiteral("http://127.0.0.1:%1/v1/campaigns/%2/grab").arg(serve.port()).arg(target.campaign)
                            : QStringLiteral("http://127.0.0.1:%1/v1/checkin").arg(serve.port());
            wrk.bearerFile = file;
            wrk.threads = m_settings.wrkThreads;
            wrk.connections = m_settings.bench.clients;
            const QMap<QString, double> before = serverCpu(*target.redis);
            const ServeProcess::CpuTime serveBefore = serve.cpu();
            const WrkFigures figures = runWrk(wrk, m_requests);
            const ServeProcess::CpuTime serveAfter = serve.cpu();
            const QMap<QString, double> after = serverCpu(*target.redis);
            const qint64 expectedAnswers = figures.outcomes.value(grabs ? QStringLiteral("ok") : QStringLiteral("new"));
            m_out << "| " << round << " | HTTP " << (grabs ? "grabs" : "check-ins") << ", " << target.name << " | " << rate(figures.perSecond)
                  << " | " << QString::number(figures.p50Ms, 'f', 2) << " | " << QString::number(figures.p99Ms, 'f', 2) << " | "
                  << figures.non2xx << " | " << expectedAnswers << (grabs ? " ok" : " new") << " of " << figures.answered << " | "
                  << QString::number((serveAfter.totalMicros - serveBefore.totalMicros) / double(std::max<qint64>(figures.answered, 1)), 'f', 1)
                  << " | " << cpuSpent(before, after) << " |\n";
            m_out.flush();
            if (figures.non2xx != 0 || figures.socketErrors != 0 || expectedAnswers != m_requests)
                throw LanternError(QStringLiteral("HTTP %1 on %2: %3 non-2xx, %4 socket errors, %5 of %6 answers as expected")
                                           .arg(grabs ? QStringLiteral("grabs") : QStringLiteral("check-ins"), target.name)
                                           .arg(figures.non2xx)
                                           .arg(figures.socketErrors)
                                           .arg(expectedAnswers)
                                           .arg(m_requests));
            return figures.perSecond;
        };
    };
    std::vector<RoundPhase> phases;
    for (qsizetype i = 0; i < targets.size(); ++i)
        phases.push_back(phase(i, true));
    for (qsizetype i = 0; i < targets.size(); ++i)
        phases.push_back(phase(i, false));
    const std::vector<double> medians = runAlternatingRounds(m_settings.bench.rounds, phases);
    for (const auto &serve : serves)
        serve->stop();
    return medians;
}

QList<HttpReshardFigures> ClusterHttpBench::runReshard(HttpTarget &target, int slot)
{
    const QString dir = QDir(m_workDir).filePath(QStringLiteral("serve-reshard"));
    QDir().mkpath(dir);
    ServeProcess serve(m_settings.lanternd, serveArguments(target.url), dir, m_settings.serverCpus);
    m_out << "\n### The HTTP grab storm during a live reshard\n\n"
          << "- `lanternd serve` on the 3+3 cluster's seed list; once a third of the grabs are answered `ok` (its /metrics, polled), "
             "the campaign's slot " << slot << " moves to the next master: SETSLOT IMPORTING/MIGRATING, MIGRATE of its keys one at a "
             "time, SETSLOT NODE on every master\n"
          << "- *redirected* is lanternd's `lantern_redis_cluster_replies_total` (MOVED, ASK followed; TRYAGAIN and the like waited "
             "out) over `lantern_redis_commands_total` during the storm: a command redirected twice counts twice\n\n"
          << "| round | grabs/s | non-2xx | socket errors | ok | Redis commands | MOVED | ASK | waited out | redirected | move | counts and sums |\n"
          << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n";
    m_out.flush();
    QList<HttpReshardFigures> results;
    for (int round = 1; round <= m_settings.bench.rounds; ++round) {
        target.relaunch();
        const QString file = bearerFile(QStringLiteral("bearers-reshard.txt"), m_nextUid);
        m_nextUid += m_requests;
        WrkOptions wrk;
        wrk.program = m_settings.wrk;
        wrk.script = m_settings.wrkScript;
        wrk.url = QStringLiteral("http://127.0.0.1:%1/v1/campaigns/%2/grab").arg(serve.port()).arg(target.campaign);
        wrk.bearerFile = file;
        wrk.threads = m_settings.wrkThreads;
        wrk.connections = m_settings.bench.clients;

        const QByteArray before = metrics(serve);
        const QByteArray okSeries = QByteArrayLiteral("lantern_grabs_total{outcome=\"ok\"}");
        std::atomic<bool> stormOver{false};
        LiveReshard::Move move;
        std::exception_ptr moveError;
        std::thread mover([&] {
            try {
                // Polls lanternd's own count (a bench's pacing, not a test's synchronisation).
                const qint64 start = metric(before, okSeries);
                const QDeadlineTimer deadline(std::chrono::minutes(5));
                while (!stormOver.load() && !deadline.hasExpired() && metric(metrics(serve), okSeries) - start < m_requests / 3)
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                move = LiveReshard(RedisUrl::parse(target.url)).moveToNextMaster(slot);
            } catch (...) {
                moveError = std::current_exception();
            }
        });
        WrkFigures figures;
        try {
            figures = runWrk(wrk, m_requests);
        } catch (...) {
            stormOver = true;
            mover.join();
            throw;
        }
        stormOver = true;
        mover.join();
        if (moveError)
            std::rethrow_exception(moveError);
        const QByteArray after = metrics(serve);
        const auto delta = [&](const QByteArray &series) { return metric(after, series) - metric(before, series); };

        HttpReshardFigures r;
        r.perSecond = figures.perSecond;
        r.answered = figures.answered;
        r.non2xx = figures.non2xx;
        r.socketErrors = figures.socketErrors;
        r.ok = figures.outcomes.value(QStringLiteral("ok"));
        r.commands = delta("lantern_redis_commands_total");
        r.moved = delta("lantern_redis_cluster_replies_total{kind=\"moved\"}");
        r.asked = delta("lantern_redis_cluster_replies_total{kind=\"ask\"}");
        r.retried = delta("lantern_redis_cluster_replies_total{kind=\"retried\"}");
        const CampaignState state = readCampaignState(*target.redis, m_keys, target.campaign);
        r.checksPassed = r.non2xx == 0 && r.socketErrors == 0 && r.ok == m_requests && state.grabbedCount == m_requests && state.draws == m_requests
                         && state.envelopes == m_requests && state.drawnCents == target.campaignCents && state.grabbedCents == target.campaignCents
                         && state.pool == 0 && state.tasks == m_requests;
        const qint64 redirects = r.moved + r.asked + r.retried;
        m_out << "| " << round << " | " << rate(r.perSecond) << " | " << r.non2xx << " | " << r.socketErrors << " | " << r.ok << " | " << r.commands
              << " | " << r.moved << " | " << r.asked << " | " << r.retried << " | " << redirects << " ("
              << QString::number(100.0 * double(redirects) / double(std::max<qint64>(r.commands, 1)), 'f', 3) << " %) | " << move.from
              << " -> " << move.to << ", " << move.keys << " keys, " << QString::number(move.milliseconds, 'f', 1) << " ms | "
              << (r.checksPassed ? "exact" : "**FAILED**") << ": " << state.grabbedCount << " grabbed, " << state.envelopes
              << " distinct envelopes, " << state.drawnCents << " of " << target.campaignCents << " cents, pool " << state.pool << " |\n";
        m_out.flush();
        results << r;
    }
    serve.stop();
    return results;
}

} // namespace lantern::bench
