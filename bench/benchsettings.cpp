#include "benchsettings.h"

#include "core/errors.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTextStream>

#include <limits>

namespace lantern::bench {

void addBenchOptions(QCommandLineParser &parser)
{
    parser.addHelpOption();
    parser.addOptions({
            {QStringLiteral("redis"), QStringLiteral("Redis URL."), QStringLiteral("url"), QStringLiteral("redis://127.0.0.1:6379")},
            {QStringLiteral("clients"), QStringLiteral("Concurrent clients."), QStringLiteral("n"), QStringLiteral("50")},
            {QStringLiteral("seed"), QStringLiteral("Seed of the bench's samples (uids, envelope split)."), QStringLiteral("n"),
             QStringLiteral("1")},
            {QStringLiteral("rounds"), QStringLiteral("Rounds of every phase, alternating their order; medians are compared."),
             QStringLiteral("n"), QStringLiteral("1")},
            {QStringLiteral("prefix"), QStringLiteral("Key prefix of the bench's keys (removed before and after)."), QStringLiteral("prefix"),
             QStringLiteral("ltbench:")},
            {QStringLiteral("summary"), QStringLiteral("Append the report's summary rows (tab-separated: figure, value, baseline, "
                                                       "baseline value, ratio) to this file."),
             QStringLiteral("file")},
    });
}

BenchSettings benchSettings(const QCommandLineParser &parser)
{
    BenchSettings settings;
    settings.redis = RedisUrl::parse(parser.value(QStringLiteral("redis")));
    settings.clients = static_cast<int>(integerOption(parser, QStringLiteral("clients"), 1, 10'000));
    settings.seed = static_cast<quint64>(integerOption(parser, QStringLiteral("seed"), 0, std::numeric_limits<qint64>::max()));
    settings.rounds = static_cast<int>(integerOption(parser, QStringLiteral("rounds"), 1, 100));
    settings.prefix = parser.value(QStringLiteral("prefix"));
    settings.summaryFile = parser.value(QStringLiteral("summary"));
    if (settings.prefix.isEmpty())
        throw InvalidInputError(QStringLiteral("--prefix must not be empty: the bench removes every key under it"));
    return settings;
}

qint64 integerOption(const QCommandLineParser &parser, const QString &name, qint64 min, qint64 max)
{
    bool ok = false;
    const qint64 value = parser.value(name).toLongLong(&ok);
    if (!ok || value < min || value > max)
        throw InvalidInputError(QStringLiteral("--%1 must be an integer in %2..%3").arg(name).arg(min).arg(max));
    return value;
}

void processArguments(QCommandLineParser &parser, const QCoreApplication &app)
{
    parser.process(app);
    if (!parser.positionalArguments().isEmpty())
        throw InvalidInputError(QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().first()));
}

int benchMain(int argc, char *argv[], const QString &name, const std::function<int(const QCoreApplication &)> &body)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(name);
    try {
        return body(app);
    } catch (const InvalidInputError &error) {
        QTextStream(stderr) << name << ": " << error.message() << '\n';
        return 2;
    } catch (const std::exception &error) {
        QTextStream(stderr) << name << ": " << error.what() << '\n';
        return 1;
    }
}

} // namespace lantern::bench
