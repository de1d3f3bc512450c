// lantern-bench-strategies: the six ways to grab a red envelope that the red-envelope write-up
// argues through (distributed lock, optimistic lock, pessimistic lock, pre-allocated rows +
// optimistic lock, Redis queue, Redis queue + asynchronous persistence with a backup list: Lantern's
// path), each against the same MariaDB and Redis on the same campaign and crowd: grabs/s, latency,
// envelopes over- or under-issued, money, users granted twice; then the grabbing process SIGKILLed
// mid-run, the scheme's own recovery, and what was lost. It measures; it asserts nothing.
#include "benchserver.h"
#include "benchsettings.h"
#include "rounds.h"
#include "summaryrows.h"

#include "strategies/schemephases.h"
#include "strategies/strategysettings.h"

#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"

#include <QCoreApplication>
#include <QTextStream>

#include <map>

using namespace lantern;
using namespace lantern::bench;

namespace {

QString ms(double value)
{
    return QString::number(value, 'f', value < 10 ? 2 : 1);
}

QString seconds(double value)
{
    return QString::number(value, 'f', 2);
}

/** What the summary keeps of a scheme: the median round's figures and the worst of every round. */
struct SchemeFigures {
    std::vector<StormResult> storms;
    double medianRate = 0;
    CrashResult crash;

    const StormResult &medianStorm() const
    {
        const StormResult *closest = &storms.front();
        for (const StormResult &storm : storms) {
            if (std::abs(storm.figures.perSecond - medianRate) < std::abs(closest->figures.perSecond - medianRate))
                closest = &storm;
        }
        return *closest;
    }
    qint64 worst(const std::function<qint64(const StormResult &)> &figure) const
    {
        qint64 worst = 0;
        for (const StormResult &storm : storms)
            worst = std::abs(figure(storm)) > std::abs(worst) ? figure(storm) : worst;
        return worst;
    }
};

class StrategiesBench final {
public:
    explicit StrategiesBench(const StrategySettings &settings)
        : m_settings(settings), m_redis(settings.bench.redis), m_sql(openMigrated(settings.db)), m_phases(settings, m_redis, *m_sql)
    {
    }

    void run()
    {
        printSetup();
        m_out << "| round: scheme | grabs/s | p50 ms | p99 ms | last envelope out after s | ok | already | sold out | busy | retries | "
                 "second taps the unique key stopped | over-issued | unissued | lost | money off (cents) | users twice |\n"
                 "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
        m_out.flush();
        std::vector<RoundPhase> phases;
        for (const Scheme scheme : m_settings.schemes)
            phases.push_back([this, scheme](int round) { return storm(scheme, round); });
        const std::vector<double> medians = runAlternatingRounds(m_settings.bench.rounds, phases);
        for (qsizetype i = 0; i < m_settings.schemes.size(); ++i)
            m_figures[m_settings.schemes.at(i)].medianRate = medians[static_cast<size_t>(i)];

        m_out << "\nThe grabbing process SIGKILLed once " << m_settings.killAtPercent
              << " % of the envelopes its storm granted were granted (for 6, the worker too), then the scheme's own recovery; a new client's first "
                 "grab is timed from the kill:\n\n"
                 "| scheme | granted at the kill | what the dead process held | first grab after the kill | recovery | recovered after s | "
                 "granted | still to grab | lost | over-issued | money off (cents) | users twice | lanternd verify |\n"
                 "|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
        m_out.flush();
        for (const Scheme scheme : m_settings.schemes)
            crash(scheme);
        printSummary();
    }

private:
    void printSetup()
    {
        const StrategySettings &s = m_settings;
        const qint64 attempts = s.users + s.doubleTaps;
        m_out << "The six grab schemes of the red-envelope write-up on one MariaDB and one Redis: " << s.envelopes << " envelopes, "
              << s.users << " users (" << s.doubleTaps << " of them double-tapping: " << attempts << " grabs), " << s.bench.clients
              << " clients, " << s.bench.rounds << (s.bench.rounds == 1 ? " round" : " rounds") << ".\n\n"
              << "- each phase: a fresh campaign of " << s.envelopes << " envelopes, " << s.envelopes * 100
              << " cents (1.00 on average), double mean (seed " << s.bench.seed << "), then all " << attempts << " grabs from "
              << s.bench.clients << " client threads (each its own Redis and SQL connection, opened before the timing starts), "
                 "users in random order, a double-tapping user's two grabs side by side so that two clients send them together\n";
        for (const Scheme scheme : s.schemes)
            m_out << "- " << static_cast<int>(scheme) << ". " << schemeName(scheme) << ": " << schemeDescription(scheme) << "\n";
        m_out << "- schemes 1-5: bench code (bench/strategies/), tables strategy_* in InnoDB at the default isolation (REPEATABLE READ), "
                 "every statement prepared once per connection; grab rows keyed by (campaign, uid) as Lantern's are; every scheme first "
                 "looks for the user's grab with a plain read and answers already; 1 and 3 read the remaining count first and answer "
                 "sold out without locking; optimistic tries: "
              << s.scheme.optimisticAttempts << "; lock lease " << s.scheme.lockLeaseMs << " ms, wait bound " << s.scheme.lockWaitMs
              << " ms\n"
              << "- scheme 6: the campaign created and launched through CampaignService, grabs through GrabService, one `lanternd work` "
                 "(LANTERN_HEARTBEAT_TTL_S="
              << s.heartbeatTtlS << ", simulated payout provider) persisting and paying meanwhile; *in SQL after* is from the last "
                 "grab answered until SQL held every grab; then `lanternd verify`\n"
              << "- columns: grabs/s and latencies over every grab as the clients saw them; *last envelope out after* is from the first grab "
                 "sent to the last envelope handed out (the envelopes granted over that time are the last table's *envelopes handed out per s*); *busy* are grabs that gave up (lock wait bound, optimistic tries); *retries* are "
                 "failed SET NX (1), version or row conflicts and deadlocks (2-4); *unissued* are envelopes still to grab at the end; "
                 "*lost* are envelopes neither granted nor still to grab; *money off* is Σ granted + Σ still to grab − total, from "
                 "the database (and the pool in Redis)\n\n";
        m_out.flush();
    }

    double storm(Scheme scheme, int round)
    {
        const StormResult r = m_phases.storm(scheme, round);
        const LedgerState &l = r.ledger;
        QString name = QStringLiteral("%1: %2. %3").arg(round).arg(static_cast<int>(scheme)).arg(schemeName(scheme));
        if (scheme == Scheme::LanternPath)
            name += QStringLiteral(" (in SQL %1 s after; verify %2)").arg(seconds(r.persistSeconds), r.verify);
        m_out << "| " << name << " | " << rate(r.figures.perSecond) << " | " << ms(r.figures.p50Ms) << " | " << ms(r.figures.p99Ms)
              << " | " << seconds(r.sellOutSeconds) << " | " << r.ok << " | " << r.already << " | " << r.soldOut << " | " << r.busy
              << " | " << r.retries << " | " << r.duplicates << " | " << l.overIssued() << " | " << l.available << " | " << l.lost()
              << " | " << l.moneyOff() << " | " << l.usersTwice << " |\n";
        m_out.flush();
        m_figures[scheme].storms.push_back(r);
        return r.figures.perSecond;
    }

    void crash(Scheme scheme)
    {
        qint64 grantable = m_settings.envelopes;
        for (const StormResult &storm : m_figures[scheme].storms)
            grantable = std::min(grantable, storm.ok);
        const CrashResult r = m_phases.crash(scheme, grantable);
        const LedgerState &l = r.ledger;
        const QString granted = r.killed ? QString::number(r.grantedAtKill)
                                         : QStringLiteral("%1 (the run ended before the kill point)").arg(r.grantedAtKill);
        m_out << "| " << static_cast<int>(scheme) << ". " << schemeName(scheme) << " | " << granted << " | " << r.inFlight << " | "
              << r.firstGrabAnswer << " after " << ms(r.firstGrabMs) << " ms | " << r.recovery << " | " << seconds(r.recoveredSeconds)
              << " | " << l.granted << " | " << l.available << " | " << l.lost() << " | " << l.overIssued() << " | " << l.moneyOff()
              << " | " << l.usersTwice << " | " << (r.verify.isEmpty() ? QStringLiteral("-") : r.verify) << " |\n";
        m_out.flush();
        m_figures[scheme].crash = r;
    }

    void printSummary()
    {
        m_out << "\n| " << (m_settings.bench.rounds > 1 ? QStringLiteral("median of %1 rounds").arg(m_settings.bench.rounds) : QStringLiteral("result"))
              << " | grabs/s | p99 ms | envelopes handed out per s | over-issued | unissued | money off (cents) | users twice | lost "
                 "after SIGKILL + recovery | recovered after s |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
        std::vector<SummaryRow> rows;
        const Scheme *previous = nullptr;
        for (const Scheme &scheme : m_settings.schemes) {
            const SchemeFigures &f = m_figures.at(scheme);
            const StormResult &median = f.medianStorm();
            const qint64 over = f.worst([](const StormResult &r) { return r.ledger.overIssued(); });
            const qint64 unissued = f.worst([](const StormResult &r) { return r.ledger.available; });
            const qint64 moneyOff = f.worst([](const StormResult &r) { return r.ledger.moneyOff(); });
            const qint64 twice = f.worst([](const StormResult &r) { return r.ledger.usersTwice; });
            const double soldOutRate = median.sellOutSeconds > 0 ? static_cast<double>(median.ok) / median.sellOutSeconds : 0;
            const LedgerState &crashed = f.crash.ledger;
            m_out << "| " << static_cast<int>(scheme) << ". " << schemeName(scheme) << " | " << rate(f.medianRate) << " | "
                  << ms(median.figures.p99Ms) << " | " << rate(soldOutRate) << " | " << over << " | " << unissued << " | " << moneyOff
                  << " | " << twice << " | " << crashed.lost() << " | " << seconds(f.crash.recoveredSeconds) << " |\n";

            SummaryRow row;
            row.figure = QStringLiteral("%1. %2: grabs/s (%3 envelopes, %4 users + %5 double taps, %6 clients; p99 %7 ms; over-issued %8, "
                                        "unissued %9, money off %10 cents, users twice %11; after SIGKILL and recovery: %12 lost, %13 over-issued, "
                                        "%14 users twice)")
                                 .arg(static_cast<int>(scheme))
                                 .arg(schemeName(scheme))
                                 .arg(m_settings.envelopes)
                                 .arg(m_settings.users)
                                 .arg(m_settings.doubleTaps)
                                 .arg(m_settings.bench.clients)
                                 .arg(ms(median.figures.p99Ms))
                                 .arg(over)
                                 .arg(unissued)
                                 .arg(moneyOff)
                                 .arg(twice)
                                 .arg(crashed.lost())
                                 .arg(crashed.overIssued())
                                 .arg(crashed.usersTwice);
            row.value = rate(f.medianRate);
            if (previous) {
                row.baseline = QStringLiteral("%1. %2 (the scheme before it), grabs/s").arg(static_cast<int>(*previous)).arg(schemeName(*previous));
                row.baselineValue = rate(m_figures.at(*previous).medianRate);
                row.ratio = ratioText(f.medianRate, m_figures.at(*previous).medianRate);
            } else {
                row.baseline = QStringLiteral("none: the write-up's first scheme");
                row.baselineValue = QStringLiteral("-");
                row.ratio = QStringLiteral("-");
            }
            rows.push_back(row);
            previous = &scheme;
        }
        m_out.flush();
        appendSummaryRows(m_settings.bench.summaryFile, rows);
    }

    const StrategySettings &m_settings;
    QTextStream m_out{stdout};
    RedisClient m_redis;
    BenchServer m_server{m_redis};
    const KeysRemovedOnExit m_keysCleanup{m_server, m_settings.bench.prefix.toUtf8()};
    std::unique_ptr<SqlConnection> m_sql;
    SchemePhases m_phases;
    std::map<Scheme, SchemeFigures> m_figures;
};

int run(const QCoreApplication &app)
{
    const StrategySettings settings = parseStrategySettings(app);
    if (settings.childScheme != 0) {
        SchemePhases::runChild(settings);
        return 0;
    }
    {
        RedisClient redis(settings.bench.redis);
        BenchServer(redis).removeKeys(settings.bench.prefix.toUtf8());
    }
    StrategiesBench(settings).run();
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-strategies"), run);
}
