#include "strategysettings.h"

#include "uidsample.h"

#include "core/errors.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>

namespace lantern::bench {

namespace {

constexpr qint64 AttemptKeyspace = 1'000'000'000;

QList<Scheme> parseSchemes(const QString &text)
{
    QList<Scheme> schemes;
    for (const QString &item : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int number = item.trimmed().toInt(&ok);
        if (!ok || number < 1 || number > SchemeCount)
            throw InvalidInputError(QStringLiteral("--schemes takes numbers 1 to %1, comma-separated").arg(SchemeCount));
        if (!schemes.contains(static_cast<Scheme>(number)))
            schemes << static_cast<Scheme>(number);
    }
    if (schemes.isEmpty())
        throw InvalidInputError(QStringLiteral("--schemes names no scheme"));
    return schemes;
}

} // namespace

StrategySettings parseStrategySettings(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "The six ways to grab a red envelope of the red-envelope write-up, side by side on the same MariaDB and Redis: "
            "grabs/s, latency, envelopes over- or under-issued, money, users granted twice, then envelopes lost when the "
            "grabbing process is SIGKILLed mid-run and each scheme's own recovery (if any) has run. Point it at a private "
            "database and Redis: it creates and drops the strategy_* tables and removes its keys."));
    addBenchOptions(parser);
    parser.addOptions({
            {QStringLiteral("db"), QStringLiteral("MySQL / MariaDB URL (mysql://user:password@host:port/dbname)."), QStringLiteral("url")},
            {QStringLiteral("lanternd"), QStringLiteral("lanternd of this tree (scheme 6's worker, recover, verify)."), QStringLiteral("path")},
            {QStringLiteral("envelopes"), QStringLiteral("Envelopes in each campaign."), QStringLiteral("n"), QStringLiteral("10000")},
            {QStringLiteral("users"), QStringLiteral("Users grabbing, each at least once."), QStringLiteral("n"), QStringLiteral("30000")},
            {QStringLiteral("double-taps"), QStringLiteral("Users among them who send two grabs at once."), QStringLiteral("n"),
             QStringLiteral("10000")},
            {QStringLiteral("optimistic-attempts"), QStringLiteral("Tries of an optimistic grab (schemes 2 and 4) before it answers busy."),
             QStringLiteral("n"), QStringLiteral("3")},
            {QStringLiteral("lock-lease-ms"), QStringLiteral("PX of scheme 1's lock."), QStringLiteral("ms"), QStringLiteral("3000")},
            {QStringLiteral("lock-wait-ms"), QStringLiteral("How long a grab of scheme 1 waits for the lock."), QStringLiteral("ms"),
             QStringLiteral("5000")},
            {QStringLiteral("heartbeat-ttl-s"), QStringLiteral("LANTERN_HEARTBEAT_TTL_S of scheme 6's workers."), QStringLiteral("s"),
             QStringLiteral("3")},
            {QStringLiteral("kill-at"), QStringLiteral("Percent of the envelopes granted when the grabbing process is killed."),
             QStringLiteral("percent"), QStringLiteral("50")},
            {QStringLiteral("schemes"), QStringLiteral("Schemes to measure, e.g. 1,3,6."), QStringLiteral("list"), QStringLiteral("1,2,3,4,5,6")},
            {QStringLiteral("child-scheme"), QStringLiteral("(internal) run as the grabbing child of a crash run."), QStringLiteral("n"),
             QStringLiteral("0")},
            {QStringLiteral("child-campaign"), QStringLiteral("(internal) the child's campaign."), QStringLiteral("id"), QStringLiteral("0")},
    });
    processArguments(parser, app);
    StrategySettings settings;
    settings.bench = benchSettings(parser);
    if (parser.value(QStringLiteral("db")).isEmpty())
        throw InvalidInputError(QStringLiteral("--db is required"));
    settings.db = DbUrl::parse(parser.value(QStringLiteral("db")));
    settings.redisText = parser.value(QStringLiteral("redis"));
    settings.dbText = parser.value(QStringLiteral("db"));
    if (settings.db.dialect != DbUrl::Dialect::MySql)
        throw InvalidInputError(QStringLiteral("--db must be a mysql:// URL: the schemes are measured on MariaDB/MySQL (InnoDB)"));
    settings.envelopes = integerOption(parser, QStringLiteral("envelopes"), 2, 1'000'000);
    settings.users = integerOption(parser, QStringLiteral("users"), 1, 10'000'000);
    settings.doubleTaps = integerOption(parser, QStringLiteral("double-taps"), 0, settings.users);
    settings.scheme.optimisticAttempts = static_cast<int>(integerOption(parser, QStringLiteral("optimistic-attempts"), 1, 100));
    settings.scheme.lockLeaseMs = static_cast<int>(integerOption(parser, QStringLiteral("lock-lease-ms"), 10, 600'000));
    settings.scheme.lockWaitMs = static_cast<int>(integerOption(parser, QStringLiteral("lock-wait-ms"), 0, 600'000));
    settings.heartbeatTtlS = static_cast<int>(integerOption(parser, QStringLiteral("heartbeat-ttl-s"), 1, 600));
    settings.killAtPercent = static_cast<int>(integerOption(parser, QStringLiteral("kill-at"), 1, 99));
    settings.schemes = parseSchemes(parser.value(QStringLiteral("schemes")));
    settings.childScheme = static_cast<int>(integerOption(parser, QStringLiteral("child-scheme"), 0, SchemeCount));
    settings.childCampaign = integerOption(parser, QStringLiteral("child-campaign"), 0, std::numeric_limits<qint64>::max());
    settings.lanternd = parser.value(QStringLiteral("lanternd"));
    if (settings.childScheme == 0 && settings.schemes.contains(Scheme::LanternPath) && !QFileInfo(settings.lanternd).isExecutable())
        throw InvalidInputError(QStringLiteral("--lanternd must name the lanternd executable (scheme 6 runs its worker, recover and verify)"));
    return settings;
}

std::vector<qint64> grabAttempts(const StrategySettings &settings)
{
    const std::vector<qint64> users = sampleUids(settings.users, AttemptKeyspace, settings.bench.seed);
    std::vector<qint64> attempts;
    attempts.reserve(static_cast<size_t>(settings.users + settings.doubleTaps));
    const qint64 n = settings.users;
    for (qint64 i = 0; i < n; ++i) {
        const qint64 uid = users[static_cast<size_t>(i)];
        attempts.push_back(uid);
        // Spread evenly: user i taps twice when the running share of double taps steps up.
        if ((i + 1) * settings.doubleTaps / n > i * settings.doubleTaps / n)
            attempts.push_back(uid);
    }
    return attempts;
}

QStringList childArguments(const StrategySettings &settings, Scheme scheme, qint64 campaignId)
{
    const BenchSettings &bench = settings.bench;
    return {QStringLiteral("--redis"), settings.redisText, QStringLiteral("--db"), settings.dbText,
            QStringLiteral("--prefix"), bench.prefix, QStringLiteral("--clients"), QString::number(bench.clients),
            QStringLiteral("--seed"), QString::number(bench.seed), QStringLiteral("--users"), QString::number(settings.users),
            QStringLiteral("--double-taps"), QString::number(settings.doubleTaps), QStringLiteral("--envelopes"),
            QString::number(settings.envelopes), QStringLiteral("--optimistic-attempts"), QString::number(settings.scheme.optimisticAttempts),
            QStringLiteral("--lock-lease-ms"), QString::number(settings.scheme.lockLeaseMs), QStringLiteral("--lock-wait-ms"),
            QString::number(settings.scheme.lockWaitMs), QStringLiteral("--schemes"), QString::number(static_cast<int>(scheme)),
            QStringLiteral("--child-scheme"), QString::number(static_cast<int>(scheme)), QStringLiteral("--child-campaign"),
            QString::number(campaignId)};
}

QStringList lanterndConnection(const StrategySettings &settings)
{
    return {QStringLiteral("--redis"), settings.redisText, QStringLiteral("--db"), settings.dbText,
            QStringLiteral("--prefix"), settings.bench.prefix};
}

} // namespace lantern::bench
