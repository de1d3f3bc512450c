// lantern-bench-payout: envelopes paid per second by one `lanternd work --once` when the provider
// takes 100 ms and fails a fifth of its calls (issue 12), with the simulated provider and over
// HTTP, next to the same worker paying one envelope at a time and next to one Qt network manager
// (6 connections). After each phase it checks that every envelope was paid exactly once: SQL's
// paid rows, the provider's own ledger and `lanternd verify` agree. It measures; it asserts nothing
// about time.
#include "benchcampaign.h"
#include "benchserver.h"
#include "benchsettings.h"
#include "clientload.h"
#include "payoutprovider.h"
#include "phasefigures.h"
#include "rounds.h"
#include "summaryrows.h"
#include "uidsample.h"

#include "core/errors.h"
#include "envelope/campaignservice.h"
#include "envelope/envelopesplitter.h"
#include "payout/httppayoutgateway.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/dburl.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QSqlError>
#include <QSqlQuery>
#include <QTextStream>

#include <sys/resource.h>

using namespace lantern;
using namespace lantern::bench;

namespace {

const QString WorkerId = QStringLiteral("bench-payout");
constexpr qint64 PayoutKeyspace = 1'000'000'000;

struct PayoutSettings {
    BenchSettings bench;
    QString redisText;
    QString dbText;
    DbUrl db;
    QString lanternd;
    qint64 envelopes = 20'000;   // the fast phases
    qint64 http6Envelopes = 1'000;  // one network manager: 6 connections
    qint64 serialEnvelopes = 200;   // one payout at a time
    int delayMs = 100;
    double failRate = 0.2;
    int batch = 500;
    QList<int> inFlights{64, 128};
    bool http = true;
};

PayoutSettings parseSettings(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "Envelopes paid per second by one `lanternd work --once` against a slow, failing provider (simulated, and over HTTP "
            "from a provider this bench runs), next to one payout at a time and to one Qt network manager. Point it at a private "
            "database: it refuses to start unless `grab` and `payout` are empty, and empties them before each phase."));
    addBenchOptions(parser);
    parser.addOptions({
            {QStringLiteral("db"), QStringLiteral("MySQL / MariaDB URL (mysql://user:password@host:port/dbname)."), QStringLiteral("url")},
            {QStringLiteral("lanternd"), QStringLiteral("The lanternd program (default: the one built next to the bench)."), QStringLiteral("path")},
            {QStringLiteral("envelopes"), QStringLiteral("Envelopes of the phases with payouts in flight."), QStringLiteral("n"), QStringLiteral("20000")},
            {QStringLiteral("http6-envelopes"), QStringLiteral("Envelopes of the phase with one network manager."), QStringLiteral("n"),
             QStringLiteral("1000")},
            {QStringLiteral("serial-envelopes"), QStringLiteral("Envelopes of the phase paying one at a time."), QStringLiteral("n"),
             QStringLiteral("200")},
            {QStringLiteral("delay-ms"), QStringLiteral("The provider's latency (LANTERN_PAYOUT_DELAY_MS)."), QStringLiteral("ms"), QStringLiteral("100")},
            {QStringLiteral("fail-percent"), QStringLiteral("Calls that fail, in percent (LANTERN_PAYOUT_FAIL_RATE x 100)."), QStringLiteral("n"),
             QStringLiteral("20")},
            {QStringLiteral("in-flight"), QStringLiteral("lanternd work --in-flight values, comma-separated."), QStringLiteral("list"),
             QStringLiteral("64,128")},
            {QStringLiteral("no-http"), QStringLiteral("Skip the HTTP provider's phases.")},
    });
    processArguments(parser, app);
    PayoutSettings settings;
    settings.bench = benchSettings(parser);
    settings.redisText = parser.value(QStringLiteral("redis"));
    settings.dbText = parser.value(QStringLiteral("db"));
    if (settings.dbText.isEmpty())
        throw InvalidInputError(QStringLiteral("--db is required"));
    settings.db = DbUrl::parse(settings.dbText);
    if (settings.db.dialect != DbUrl::Dialect::MySql)
        throw InvalidInputError(QStringLiteral("--db must be a mysql:// URL"));
    settings.lanternd = parser.value(QStringLiteral("lanternd"));
    if (settings.lanternd.isEmpty())
        settings.lanternd = QDir::cleanPath(QCoreApplication::applicationDirPath() + QStringLiteral("/../app/lanternd/lanternd"));
    settings.envelopes = integerOption(parser, QStringLiteral("envelopes"), 1, MaxEnvelopeCount);
    settings.http6Envelopes = integerOption(parser, QStringLiteral("http6-envelopes"), 1, MaxEnvelopeCount);
    settings.serialEnvelopes = integerOption(parser, QStringLiteral("serial-envelopes"), 1, MaxEnvelopeCount);
    settings.delayMs = static_cast<int>(integerOption(parser, QStringLiteral("delay-ms"), 0, 60'000));
    settings.failRate = static_cast<double>(integerOption(parser, QStringLiteral("fail-percent"), 0, 90)) / 100;
    settings.inFlights.clear();
    for (const QString &text : parser.value(QStringLiteral("in-flight")).split(QLatin1Char(','))) {
        bool ok = false;
        const int value = text.trimmed().toInt(&ok);
        if (!ok || value < 1 || value > 1024)
            throw InvalidInputError(QStringLiteral("--in-flight takes numbers from 1 to 1024"));
        settings.inFlights << value;
    }
    settings.http = !parser.isSet(QStringLiteral("no-http"));
    return settings;
}

/** One campaign of the bench: launched, grabbed empty, its queue saved to be put back per phase. */
struct BenchCampaign {
    qint64 id = 0;
    qint64 envelopes = 0;
    qint64 totalCents = 0;
    QByteArray queue;
    QByteArray saved;
};

/** One phase: which provider, how many payouts in flight, over which campaign. */
struct Phase {
    QString label;
    bool http = false;
    int inFlight = 64;
    int connections = 0;  // HTTP: LANTERN_PAYOUT_CONNECTIONS, 0: the default (= in flight)
    const BenchCampaign *campaign = nullptr;
};

/** What one phase measured and checked. */
struct PhaseResult {
    double seconds = 0;
    double perSecond = 0;
    qint64 providerCalls = 0;
    double cpuMsPerPayout = 0;
    qint64 retried = 0;
    QString exactlyOnce;  // "yes" or what was wrong
};

class PayoutBench final {
public:
    explicit PayoutBench(const PayoutSettings &settings);
    Q_DISABLE_COPY_MOVE(PayoutBench)

    void run();

private:
    BenchCampaign prepareCampaign(CampaignService &campaigns, const QString &name, qint64 envelopes, quint64 seed);
    double measure(const Phase &phase, int round);
    PhaseResult runPhase(const Phase &phase);
    /** `lanternd ARGS` with the bench's servers and prefix; its stdout's JSON object. */
    QJsonObject lanternd(const QStringList &arguments, const QProcessEnvironment &environment, double *seconds = nullptr);
    QString checkExactlyOnce(const Phase &phase, const QJsonObject &work, qint64 &providerCalls);
    qint64 simulatedCalls();

    const PayoutSettings &m_settings;
    QTextStream m_out{stdout};
    const KeySchema m_keys;
    RedisClient m_redis;
    BenchServer m_server{m_redis};
    const KeysRemovedOnExit m_keysCleanup{m_server, m_keys.prefix()};
    std::unique_ptr<SqlConnection> m_sql;
    SimulatedPayoutGateway m_ledger;
    std::unique_ptr<test::PayoutProvider> m_http;
    QString m_httpLabel;  // the pooled HTTP phase's settings, for the summary row
    QList<BenchCampaign> m_campaigns;
};

PayoutBench::PayoutBench(const PayoutSettings &settings)
    : m_settings(settings), m_keys(settings.bench.prefix), m_redis(settings.bench.redis),
      m_ledger(m_redis, m_keys.prefix(), SimulationKnobs{}, settings.bench.seed)
{
    m_server.removeKeys(m_keys.prefix());
    m_sql = openMigrated(settings.db);
    for (const QString &table : {QStringLiteral("grab"), QStringLiteral("payout")}) {
        QSqlQuery count = m_sql->exec(QStringLiteral("SELECT COUNT(*) FROM ") + table);
        if (count.next() && count.value(0).toLongLong() > 0)
            throw InvalidInputError(QStringLiteral("%1 already holds %2 rows; the bench empties that table, so give it a private database "
                                                   "(scripts/bench starts one)")
                                            .arg(settings.db.redacted(), table));
    }
    if (settings.http) {
        test::ProviderScript script;
        script.delayMs = settings.delayMs;
        script.failRate = settings.failRate;
        script.seed = settings.bench.seed;
        script.keepRequests = false;
        m_http = std::make_unique<test::PayoutProvider>(script);
    }
}

BenchCampaign PayoutBench::prepareCampaign(CampaignService &campaigns, const QString &name, qint64 envelopes, quint64 seed)
{
    BenchCampaign campaign;
    const Campaign launched = launchBenchCampaign(campaigns, name, envelopes, seed);
    campaign.id = launched.id;
    campaign.envelopes = envelopes;
    campaign.totalCents = launched.totalCents;
    runClientLoad(m_settings.bench.redis, m_settings.bench.clients, sampleUids(envelopes, PayoutKeyspace, seed + 7),
                  grabClients(m_keys, campaign.id));
    campaign.queue = m_keys.campaignTasks(campaign.id);
    campaign.saved = campaign.queue + ":saved";
    if (m_server.listLength(campaign.queue) != envelopes)
        throw LanternError(QStringLiteral("%1 grabs queued %2 tasks").arg(envelopes).arg(m_server.listLength(campaign.queue)));
    m_server.copyKey(campaign.queue, campaign.saved);
    m_redis.command({QByteArrayLiteral("DEL"), campaign.queue});
    return campaign;
}

void PayoutBench::run()
{
    const PayoutSettings &s = m_settings;
    // The rows the phases wrote and the bench's campaigns go, however the run ends.
    const auto cleanup = qScopeGuard([this] {
        try {
            for (const QString &table : {QStringLiteral("grab_refused"), QStringLiteral("grab"), QStringLiteral("payout")})
                m_sql->exec(QStringLiteral("DELETE FROM ") + table);
            for (const BenchCampaign &campaign : std::as_const(m_campaigns)) {
                m_sql->exec(QStringLiteral("DELETE FROM envelope WHERE campaign_id = ?"), {campaign.id});
                m_sql->exec(QStringLiteral("DELETE FROM campaign WHERE id = ?"), {campaign.id});
            }
        } catch (const LanternError &) {
            // Best effort: the error that ended the run is the one to report.
        }
    });
    CampaignService campaigns(m_redis, *m_sql, m_keys);
    m_campaigns << prepareCampaign(campaigns, QStringLiteral("lantern-bench-payout"), s.envelopes, s.bench.seed)
                << prepareCampaign(campaigns, QStringLiteral("lantern-bench-payout-http6"), s.http6Envelopes, s.bench.seed + 1)
                << prepareCampaign(campaigns, QStringLiteral("lantern-bench-payout-serial"), s.serialEnvelopes, s.bench.seed + 2);
    const BenchCampaign &big = m_campaigns[0];

    const QString provider = QStringLiteral("%1 ms, %2 % failing").arg(s.delayMs).arg(qRound(s.failRate * 100));
    std::vector<Phase> phases;
    phases.push_back({QStringLiteral("simulated, one payout at a time (--in-flight 1)"), false, 1, 0, &m_campaigns[2]});
    for (const int inFlight : s.inFlights)
        phases.push_back({QStringLiteral("simulated, --in-flight %1").arg(inFlight), false, inFlight, 0, &big});
    if (s.http) {
        // At the worker's default window: over one network manager's 6 connections, then over as many
        // connections as calls in flight (the default), spread over ceil(n / 6) managers.
        const int window = DefaultPayoutsInFlight;
        const int managers = (window + HttpPayoutGateway::ConnectionsPerManager - 1) / HttpPayoutGateway::ConnectionsPerManager;
        phases.push_back({QStringLiteral("HTTP, --in-flight %1, one network manager (LANTERN_PAYOUT_CONNECTIONS=6)").arg(window), true, window,
                          HttpPayoutGateway::ConnectionsPerManager, &m_campaigns[1]});
        phases.push_back({QStringLiteral("HTTP, --in-flight %1, %1 connections (%2 network managers)").arg(window).arg(managers), true, window, 0, &big});
        m_httpLabel = QStringLiteral("--in-flight %1 (the default) on %1 keep-alive connections (%2 network managers)").arg(window).arg(managers);
    }

    m_out << "Envelopes paid per second by one `lanternd work --once`, provider " << provider << ", " << s.bench.rounds
          << (s.bench.rounds == 1 ? " round" : " rounds") << ".\n\n"
          << "- campaigns (CampaignService on `" << s.db.redacted() << "`, grabbed empty by " << s.bench.clients
          << " GrabService clients; their payout tasks saved once and put back before each phase): " << big.envelopes << " envelopes (campaign "
          << big.id << "), " << m_campaigns[1].envelopes << " (campaign " << m_campaigns[1].id << ") for one network manager, "
          << m_campaigns[2].envelopes << " (campaign " << m_campaigns[2].id << ") for one payout at a time\n"
          << "- before each phase: `grab` and `payout` truncated, the provider's ledger emptied, the worker's backup list and the dead "
             "letters removed\n"
          << "- worker: `" << QDir(QDir::currentPath()).relativeFilePath(s.lanternd) << " work --once --id " << WorkerId
          << " --batch " << s.batch << " --in-flight N` on MariaDB\n"
          << "- simulated provider: `LANTERN_PAYOUT_DELAY_MS=" << s.delayMs << " LANTERN_PAYOUT_FAIL_RATE=" << s.failRate
          << "` (each call answered " << s.delayMs << " ms after it started; half the failures before paying, half after: a lost answer)\n";
    if (s.http)
        m_out << "- HTTP provider: the tests' PayoutProvider (tests/support/payoutprovider.h: HttpRequestParser, HTTP/1.1 keep-alive) on a thread of this bench, each request answered " << s.delayMs
              << " ms after it arrived, " << qRound(s.failRate * 100)
              << " % answered 503 (half before paying, half after), its own ledger by Idempotency-Key; `LANTERN_PAYOUT_URL` set\n";
    m_out << "- exactly once: the worker's report (paid = envelopes, nothing dead-lettered), SQL (one paid payout per envelope, their "
             "sum the campaign's total), the provider's ledger (one payment per envelope, the same sum) and `lanternd verify --campaign`\n"
          << "- bound: what the window allows (Little's law), calls in flight / latency x (1 - fail rate): each call holds its slot "
          << s.delayMs << " ms and " << qRound(s.failRate * 100) << " % of them pay nothing; with one network manager the window is its 6 connections\n\n"
          << "| round: phase | envelopes | seconds | envelopes/s | bound | provider calls per envelope | retried later | lanternd CPU ms per "
             "envelope | exactly once |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
    m_out.flush();

    std::vector<RoundPhase> rounds;
    for (const Phase &phase : phases)
        rounds.push_back([this, phase](int round) { return measure(phase, round); });
    const std::vector<double> medians = runAlternatingRounds(s.bench.rounds, rounds);

    std::vector<std::pair<QString, double>> rates;
    for (size_t i = 0; i < phases.size(); ++i)
        rates.emplace_back(phases[i].label, medians[i]);
    std::vector<Ratio> ratios;
    std::vector<SummaryRow> summary;
    for (size_t i = 1; i <= static_cast<size_t>(s.inFlights.size()); ++i) {
        ratios.push_back({QStringLiteral("ratio --in-flight %1 / one at a time").arg(phases[i].inFlight), medians[i], medians[0]});
        summary.push_back({QStringLiteral("envelopes paid/s, one lanternd work, --in-flight %1%2, simulated provider %3 (exactly once, verify ok)")
                                   .arg(phases[i].inFlight)
                                   .arg(phases[i].inFlight == DefaultPayoutsInFlight ? QStringLiteral(" (the default)") : QString(), provider),
                           rate(medians[i]), QStringLiteral("the same worker paying one at a time (--in-flight 1)"), rate(medians[0]),
                           ratioText(medians[i], medians[0])});
    }
    if (s.http) {
        const size_t one = phases.size() - 2;
        const size_t pool = phases.size() - 1;
        ratios.push_back({QStringLiteral("ratio HTTP %1 connections / one network manager").arg(phases[pool].inFlight), medians[pool], medians[one]});
        summary.push_back({QStringLiteral("envelopes paid/s over HTTP, %1, provider %2").arg(m_httpLabel, provider),
                           rate(medians[pool]), QStringLiteral("one QNetworkAccessManager (6 connections per host)"), rate(medians[one]),
                           ratioText(medians[pool], medians[one])});
    }
    printSummary(m_out, s.bench.rounds, QStringLiteral("envelopes/s"), rates, ratios);
    appendSummaryRows(s.bench.summaryFile, summary);
}

double PayoutBench::measure(const Phase &phase, int round)
{
    const PhaseResult result = runPhase(phase);
    const int window = phase.connections > 0 ? std::min(phase.inFlight, phase.connections) : phase.inFlight;
    const double bound = window * 1000.0 / std::max(1, m_settings.delayMs) * (1 - m_settings.failRate);
    const qint64 envelopes = phase.campaign->envelopes;
    m_out << "| " << round << ": " << phase.label << " | " << envelopes << " | " << QString::number(result.seconds, 'f', 2) << " | "
          << rate(result.perSecond) << " | " << rate(bound) << " | "
          << QString::number(static_cast<double>(result.providerCalls) / static_cast<double>(envelopes), 'f', 2) << " | " << result.retried << " | "
          << QString::number(result.cpuMsPerPayout, 'f', 2) << " | " << result.exactlyOnce << " |\n";
    m_out.flush();
    return result.perSecond;
}

PhaseResult PayoutBench::runPhase(const Phase &phase)
{
    // The same start for every phase: empty tables and ledger, this campaign's tasks queued.
    m_sql->exec(QStringLiteral("DELETE FROM grab_refused"));
    for (const QString &table : {QStringLiteral("grab"), QStringLiteral("payout")}) {
        QSqlQuery truncate(m_sql->database());
        if (!truncate.exec(QStringLiteral("TRUNCATE TABLE ") + table))
            m_sql->fail(QStringLiteral("TRUNCATE"), truncate.lastError());
    }
    m_redis.command({QByteArrayLiteral("DEL"), m_ledger.ledgerKey(), m_ledger.callsKey()});
    for (const BenchCampaign &campaign : std::as_const(m_campaigns))
        m_redis.command({QByteArrayLiteral("DEL"), campaign.queue, m_keys.campaignBackup(campaign.id, WorkerId), m_keys.campaignDeadLetter(campaign.id)});
    m_server.copyKey(phase.campaign->saved, phase.campaign->queue);
    if (m_http)
        m_http->reset();

    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &name : environment.keys()) {
        if (name.startsWith(QLatin1String("LANTERN_")))
            environment.remove(name);
    }
    if (phase.http) {
        environment.insert(QStringLiteral("LANTERN_PAYOUT_URL"), m_http->url().toString());
        if (phase.connections > 0)
            environment.insert(QStringLiteral("LANTERN_PAYOUT_CONNECTIONS"), QString::number(phase.connections));
    } else {
        environment.insert(QStringLiteral("LANTERN_PAYOUT_DELAY_MS"), QString::number(m_settings.delayMs));
        environment.insert(QStringLiteral("LANTERN_PAYOUT_FAIL_RATE"), QString::number(m_settings.failRate));
    }
    environment.insert(QStringLiteral("LANTERN_ERROR_LOG"), QDir::temp().filePath(QStringLiteral("lantern-bench-payout-errors.log")));

    PhaseResult result;
    const double cpuBefore = cpuMicros(RUSAGE_CHILDREN);
    const QJsonObject work = lanternd({QStringLiteral("work"), QStringLiteral("--once"), QStringLiteral("--id"), WorkerId, QStringLiteral("--batch"),
                                       QString::number(m_settings.batch), QStringLiteral("--in-flight"), QString::number(phase.inFlight)},
                                      environment, &result.seconds);
    const double cpu = cpuMicros(RUSAGE_CHILDREN) - cpuBefore;
    const auto envelopes = static_cast<double>(phase.campaign->envelopes);
    result.perSecond = envelopes / result.seconds;
    result.cpuMsPerPayout = cpu / 1000 / envelopes;
    result.retried = work.value(QLatin1String("payouts")).toObject().value(QLatin1String("retried")).toInteger();
    result.exactlyOnce = checkExactlyOnce(phase, work, result.providerCalls);
    const QJsonObject verified = lanternd({QStringLiteral("verify"), QStringLiteral("--campaign"), QString::number(phase.campaign->id)}, environment);
    if (!verified.value(QLatin1String("ok")).toBool())
        result.exactlyOnce = QStringLiteral("**verify: %1**").arg(QString::fromUtf8(QJsonDocument(verified).toJson(QJsonDocument::Compact)));
    return result;
}

QString PayoutBench::checkExactlyOnce(const Phase &phase, const QJsonObject &work, qint64 &providerCalls)
{
    const BenchCampaign &campaign = *phase.campaign;
    const QJsonObject payouts = work.value(QLatin1String("payouts")).toObject();
    QStringList wrong;
    if (payouts.value(QLatin1String("paid")).toInteger() != campaign.envelopes || payouts.value(QLatin1String("dead_lettered")).toInteger() != 0)
        wrong << QStringLiteral("worker: %1").arg(QString::fromUtf8(QJsonDocument(payouts).toJson(QJsonDocument::Compact)));
    QSqlQuery paid = m_sql->exec(QStringLiteral("SELECT COUNT(*), COALESCE(SUM(amount_cents), 0) FROM payout WHERE campaign_id = ? AND status = 'paid'"),
                                 {campaign.id});
    paid.next();
    if (paid.value(0).toLongLong() != campaign.envelopes || paid.value(1).toLongLong() != campaign.totalCents)
        wrong << QStringLiteral("SQL: %1 paid, %2 cents").arg(paid.value(0).toLongLong()).arg(paid.value(1).toLongLong());
    qint64 payments = 0;
    qint64 cents = 0;
    if (phase.http) {
        const test::ProviderFigures figures = m_http->figures();
        payments = figures.payments;
        cents = figures.paidCents;
        providerCalls = figures.requests;
    } else {
        payments = m_ledger.ledgerSize();
        cents = m_ledger.ledgerTotalCents();
        providerCalls = simulatedCalls();
    }
    if (payments != campaign.envelopes || cents != campaign.totalCents)
        wrong << QStringLiteral("provider: %1 payments, %2 cents").arg(payments).arg(cents);
    return wrong.isEmpty() ? QStringLiteral("yes") : QStringLiteral("**%1**").arg(wrong.join(QStringLiteral("; ")));
}

qint64 PayoutBench::simulatedCalls()
{
    qint64 calls = 0;
    QByteArray cursor("0");
    do {
        const RedisValue page = m_redis.command({QByteArrayLiteral("HSCAN"), m_ledger.callsKey(), cursor, QByteArrayLiteral("COUNT"), QByteArrayLiteral("1000")});
        cursor = page.elements.at(0).toBytes();
        const std::vector<RedisValue> &items = page.elements.at(1).elements;
        for (size_t i = 1; i < items.size(); i += 2)
            calls += items[i].toInteger();
    } while (cursor != "0");
    return calls;
}

QJsonObject PayoutBench::lanternd(const QStringList &arguments, const QProcessEnvironment &environment, double *seconds)
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.setProgram(m_settings.lanternd);
    process.setArguments(arguments + QStringList{QStringLiteral("--redis"), m_settings.redisText, QStringLiteral("--db"), m_settings.dbText,
                                                 QStringLiteral("--prefix"), m_settings.bench.prefix});
    QElapsedTimer timer;
    timer.start();
    process.start();
    if (!process.waitForFinished(3'600'000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        throw LanternError(QStringLiteral("lanternd %1 failed: %2").arg(arguments.join(QLatin1Char(' ')), QString::fromUtf8(process.readAllStandardError())));
    if (seconds)
        *seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    return QJsonDocument::fromJson(process.readAllStandardOutput()).object();
}

int run(const QCoreApplication &app)
{
    const PayoutSettings settings = parseSettings(app);
    PayoutBench(settings).run();
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-payout"), run);
}
