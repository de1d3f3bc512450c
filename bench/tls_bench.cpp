// lantern-bench-tls: what TLS to Redis costs (issue 29, point 6), plaintext and TLS against the
// same redis-server of the bench's own (one --port and one --tls-port, a certificate the bench
// makes with openssl), in alternating rounds of one run: connection set-up (TCP, TLS, the
// handshake) on the blocking client; check-ins through the library (CheckinService at N client
// threads); and a grab storm through `lanternd serve` with wrk (its event loops' pipes over TLS
// or not). It measures; it asserts nothing.
#include "bearerfile.h"
#include "benchcampaign.h"
#include "benchserver.h"
#include "clientload.h"
#include "httpsettings.h"
#include "httpstorm.h"
#include "rounds.h"
#include "servercpu.h"
#include "serveprocess.h"
#include "summaryrows.h"
#include "uidsample.h"

#include "checkin/checkinservice.h"
#include "core/errors.h"
#include "envelope/campaignservice.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "redis/redisconnection.h"
#include "sql/dburl.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testcertificates.h"
#include "token/usertoken.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTextStream>

#include <numeric>

using namespace lantern;
using namespace lantern::bench;

namespace {

struct TlsSettings {
    HttpSettings http;
    qint64 checkins = 100'000;   // per library phase
    qint64 envelopes = 50'000;   // grabs per HTTP phase: one attempt per user, a full pool
    int connections = 300;       // set-ups timed per phase
};

TlsSettings parseSettings(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "What TLS to Redis costs: connection set-up, check-ins through the library, and a grab storm through lanternd "
            "serve, each over plaintext and over TLS against one redis-server of the bench's own (--redis is not used)."));
    addHttpOptions(parser);
    parser.addOptions({
            {QStringLiteral("checkins"), QStringLiteral("Check-ins per library phase."), QStringLiteral("n"), QStringLiteral("100000")},
            {QStringLiteral("envelopes"), QStringLiteral("Grabs per HTTP phase (one per user, the whole pool)."), QStringLiteral("n"),
             QStringLiteral("50000")},
            {QStringLiteral("connections"), QStringLiteral("Connection set-ups timed per phase."), QStringLiteral("n"), QStringLiteral("300")},
    });
    processArguments(parser, app);
    TlsSettings settings;
    settings.http = httpSettings(parser);
    settings.checkins = integerOption(parser, QStringLiteral("checkins"), 1, 100'000'000);
    settings.envelopes = integerOption(parser, QStringLiteral("envelopes"), 1, MaxEnvelopeCount);
    settings.connections = int(integerOption(parser, QStringLiteral("connections"), 1, 100'000));
    return settings;
}

class TlsCost final {
public:
    explicit TlsCost(const TlsSettings &settings)
        : m_settings(settings), m_http(settings.http), m_keys(m_http.bench.prefix), m_out(stdout)
    {
        m_server = std::make_unique<test::TlsRedis>(
                m_certs, m_certs.issue(QStringLiteral("redis"), QStringLiteral("localhost"), {QStringLiteral("IP:127.0.0.1")}));
        m_plain = RedisUrl::parse(m_server->server().urlText());
        m_plain.db = 0;
        m_tls = RedisUrl::parse(m_server->urlText());
        m_tls.tls.caFile = m_certs.caFile();
        m_db = QStringLiteral("sqlite://") + m_work.filePath(QStringLiteral("campaign.db"));
        m_out << "redis-server " << m_server->server().command({"INFO", "server"}).split('\n').value(1).trimmed()
              << " on 127.0.0.1: plaintext port " << m_plain.port << ", TLS port " << m_tls.port
              << " (tls-auth-clients no, an EC P-256 certificate; TLS 1.3, verify full)\n\n";
    }

    void run()
    {
        const double setupPlain = connectionSetup(QStringLiteral("plaintext"), m_plain);
        const double setupTls = connectionSetup(QStringLiteral("TLS"), m_tls);
        const std::vector<double> library = libraryCheckins();
        const std::vector<double> http = httpGrabs();
        m_out << "\n| figure | plaintext | TLS | TLS / plaintext |\n|---|---:|---:|---:|\n";
        m_out << "| connection set-up, median us | " << QString::number(setupPlain, 'f', 0) << " | " << QString::number(setupTls, 'f', 0)
              << " | " << ratioText(setupTls, setupPlain) << " |\n";
        m_out << "| check-ins/s through the library (" << m_http.bench.clients << " threads) | " << rate(library[0]) << " | "
              << rate(library[1]) << " | **" << ratioText(library[1], library[0]) << "** |\n";
        m_out << "| grabs/s through lanternd serve (wrk -c " << m_http.bench.clients << ") | " << rate(http[0]) << " | " << rate(http[1])
              << " | **" << ratioText(http[1], http[0]) << "** |\n";
        m_out.flush();
        const QString clients = QString::number(m_http.bench.clients);
        appendSummaryRows(m_http.bench.summaryFile,
                          {{QStringLiteral("grabs/s through lanternd serve, Redis over TLS (wrk -c %1)").arg(clients), rate(http[1]),
                            QStringLiteral("the same over plaintext"), rate(http[0]), ratioText(http[1], http[0])},
                           {QStringLiteral("check-ins/s through the library, Redis over TLS (%1 threads)").arg(clients), rate(library[1]),
                            QStringLiteral("the same over plaintext"), rate(library[0]), ratioText(library[1], library[0])},
                           {QStringLiteral("connection set-up over TLS, median us (TCP, TLS 1.3, certificate check)"),
                            QString::number(setupTls, 'f', 0), QStringLiteral("plaintext TCP"), QString::number(setupPlain, 'f', 0),
                            ratioText(setupTls, setupPlain)}});
    }

private:
    /** Median µs of open() + PING on a fresh blocking connection. */
    double connectionSetup(const QString &label, const RedisUrl &url)
    {
        std::vector<double> micros;
        for (int i = 0; i < m_settings.connections; ++i) {
            QElapsedTimer timer;
            timer.start();
            RedisConnection connection(url.seeds().first(), url, RedisOptions{});
            connection.open({{"PING"}});
            micros.push_back(double(timer.nsecsElapsed()) / 1000.0);
        }
        std::sort(micros.begin(), micros.end());
        const double p50 = micros[micros.size() / 2];
        m_out << "Connection set-up, " << label << ": " << micros.size() << " opens (connect, handshake, PING), median "
              << QString::number(p50, 'f', 0) << " us, p99 " << QString::number(micros[micros.size() * 99 / 100], 'f', 0) << " us\n";
        return p50;
    }

    std::vector<double> libraryCheckins()
    {
        m_out << "\nCheck-ins through CheckinService, " << m_http.bench.clients << " client threads, " << m_settings.checkins
              << " fresh uids per phase; Redis CPU per check-in and its share of one core over the phase (INFO cpu):\n\n"
              << "| round | phase | check-ins/s | p50 ms | p99 ms | client CPU us | Redis CPU us | Redis busy |\n"
              << "|---|---|---:|---:|---:|---:|---:|---:|\n";
        qint64 nextUid = 1'000'000;
        const QDate today = QDate::currentDate();
        RedisClient admin(m_plain);
        const auto redisSeconds = [&admin] {
            const QMap<QString, double> cpu = serverCpu(admin);
            return std::accumulate(cpu.cbegin(), cpu.cend(), 0.0);
        };
        const auto phase = [&](const QString &label, const RedisUrl &url) -> RoundPhase {
            return [&, label, url](int round) {
                std::vector<qint64> uids(size_t(m_settings.checkins));
                std::iota(uids.begin(), uids.end(), nextUid);
                nextUid += m_settings.checkins;
                const double redisBefore = redisSeconds();
                const PhaseFigures figures = runClientLoad(url, m_http.bench.clients, uids, [&](RedisClient &redis) -> ClientRequest {
                    auto service = std::make_shared<CheckinService>(redis, m_keys, CheckinRules{});
                    return [service, today](qint64 uid) { service->checkin(uid, today, today, QDateTime::currentMSecsSinceEpoch()); };
                });
                const double redis = redisSeconds() - redisBefore;
                m_out << "| " << round << " | " << label << " | " << rate(figures.perSecond) << " | " << QString::number(figures.p50Ms, 'f', 2)
                      << " | " << QString::number(figures.p99Ms, 'f', 2) << " | " << QString::number(figures.clientMicros, 'f', 1) << " | "
                      << QString::number(redis * 1e6 / double(m_settings.checkins), 'f', 1) << " | "
                      << QString::number(100.0 * redis / figures.seconds, 'f', 0) << " % |\n";
                m_out.flush();
                return figures.perSecond;
            };
        };
        return runAlternatingRounds(m_http.bench.rounds, {phase(QStringLiteral("plaintext"), m_plain), phase(QStringLiteral("TLS"), m_tls)});
    }

    std::vector<double> httpGrabs()
    {
        RedisClient admin(m_plain);
        BenchServer server(admin);
        const QByteArray prefix = m_http.bench.prefix.toUtf8();
        const KeysRemovedOnExit cleanup(server, prefix);
        const std::unique_ptr<SqlConnection> sql = openMigrated(DbUrl::parse(m_db));
        CampaignService campaigns(admin, *sql, m_keys);
        const Campaign campaign = launchBenchCampaign(campaigns, QStringLiteral("lantern-bench-tls"), m_settings.envelopes, m_http.bench.seed);
        const UserTokens tokens(QStringLiteral("lantern"), m_http.tokenSecret.toUtf8());
        const QString bearers = m_work.filePath(QStringLiteral("bearers.txt"));
        const std::vector<qint64> uids = sampleUids(m_settings.envelopes, m_settings.envelopes, m_http.bench.seed);
        const qint64 lines = writeBearerFile(bearers, tokens, QDateTime::currentSecsSinceEpoch() + 86'400, uids, 1, m_http.bench.seed);

        const auto serveOn = [&](const QString &name, const QString &url, const QStringList &extra) {
            HttpSettings settings = m_http;
            settings.redisUrl = url;
            const QString dir = m_work.filePath(name);
            QDir().mkpath(dir);
            return std::make_unique<ServeProcess>(m_http.lanternd, serveArguments(settings, m_http.serveThreads, m_db) + extra, dir,
                                                  m_http.serverCpus);
        };
        const auto plainServe = serveOn(QStringLiteral("serve-plain"), m_server->server().urlText(), {});
        const auto tlsServe = serveOn(QStringLiteral("serve-tls"), m_server->urlText(), {QStringLiteral("--redis-ca"), m_certs.caFile()});
        m_out << "\nGrab storm: " << lines << " grabs (one per user, the whole pool) per phase, wrk -c " << m_http.bench.clients
              << ", lanternd serve --threads " << m_http.serveThreads << "; the campaign launched again before each phase.\n\n"
              << stormTableHeader(QStringLiteral("grabs/s"), QStringLiteral("envelopes"));
        const auto phase = [&](const QString &label, const ServeProcess &serve) -> RoundPhase {
            return [&, label](int round) {
                server.removeKeys(prefix);
                // Live in SQL, gone from Redis: the pools go back first (launch alone only moves the status now).
                campaigns.prepare(campaign.id);
                campaigns.launch(campaign.id);
                WrkOptions wrk;
                wrk.program = m_http.wrk;
                wrk.script = m_http.wrkScript;
                wrk.url = QStringLiteral("http://127.0.0.1:%1/v1/campaigns/%2/grab").arg(serve.port()).arg(campaign.id);
                wrk.bearerFile = bearers;
                wrk.threads = m_http.wrkThreads;
                wrk.connections = m_http.bench.clients;
                StormFigures figures = runHttpStorm(server, serve, wrk, lines);
                figures.client = QStringLiteral("%1: %2").arg(round).arg(label);
                m_out << stormTableRow(figures, QString::number(figures.wrk ? figures.wrk->outcomes.value(QStringLiteral("ok")) : 0)) << '\n';
                m_out.flush();
                return figures.perSecond;
            };
        };
        const std::vector<double> medians = runAlternatingRounds(
                m_http.bench.rounds, {phase(QStringLiteral("serve, Redis plaintext"), *plainServe), phase(QStringLiteral("serve, Redis TLS"), *tlsServe)});
        plainServe->stop();
        tlsServe->stop();
        return medians;
    }

    const TlsSettings &m_settings;
    const HttpSettings &m_http;
    KeySchema m_keys;
    QTextStream m_out;
    QTemporaryDir m_work;
    QString m_db;
    test::TestCertificates m_certs;
    std::unique_ptr<test::TlsRedis> m_server;
    RedisUrl m_plain;
    RedisUrl m_tls;
};

int run(const QCoreApplication &app)
{
    const TlsSettings settings = parseSettings(app);
    TlsCost(settings).run();
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-tls"), run);
}
