#include "httpsettings.h"

#include "core/errors.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace lantern::bench {

void addHttpOptions(QCommandLineParser &parser)
{
    addBenchOptions(parser);
    parser.addOptions({
            {QStringLiteral("lanternd"), QStringLiteral("The lanternd program (default: the one built next to the bench)."),
             QStringLiteral("path")},
            {QStringLiteral("wrk"), QStringLiteral("The wrk program."), QStringLiteral("path"), QStringLiteral("wrk")},
            {QStringLiteral("wrk-script"), QStringLiteral("bench/wrk/bearers.lua."), QStringLiteral("path"),
             QStringLiteral(LANTERN_BENCH_WRK_DIR "/bearers.lua")},
            {QStringLiteral("http-client"),
             QStringLiteral("The check-in and grab storms' HTTP client: lantern-bench-httpload (default: the one built next to the bench), or wrk "
                            "with --wrk-script."),
             QStringLiteral("path")},
            {QStringLiteral("wrk-threads"), QStringLiteral("wrk's threads (-t); --clients connections are shared out over them."),
             QStringLiteral("n"), QStringLiteral("2")},
            {QStringLiteral("serve-threads"), QStringLiteral("lanternd serve --threads."), QStringLiteral("n"), QStringLiteral("2")},
            {QStringLiteral("server-cpus"),
             QStringLiteral("The CPUs every lanternd serve the bench starts runs on, e.g. 0 or 0-1 (default: the bench's own)."),
             QStringLiteral("list")},
            {QStringLiteral("token-secret"), QStringLiteral("The server's token secret, which signs the bench's bearers."),
             QStringLiteral("secret"), QStringLiteral("lantern-bench-secret")},
            {QStringLiteral("tz"), QStringLiteral("lanternd serve --tz (packaging/lanternd.conf ships Asia/Shanghai)."), QStringLiteral("zone"),
             QStringLiteral("Asia/Shanghai")},
            {QStringLiteral("redis-benchmark"), QStringLiteral("The redis-benchmark program."), QStringLiteral("path"),
             QStringLiteral("redis-benchmark")},
    });
}

void requireProgram(const QString &program, const QString &package)
{
    const QFileInfo file(program);
    if (QStandardPaths::findExecutable(program).isEmpty() && !(file.isFile() && file.isExecutable()))
        throw InvalidInputError(QStringLiteral("%1 not found (%2)").arg(program, package));
}

HttpSettings httpSettings(const QCommandLineParser &parser)
{
    HttpSettings settings;
    settings.bench = benchSettings(parser);
    settings.redisUrl = parser.value(QStringLiteral("redis"));
    settings.lanternd = parser.value(QStringLiteral("lanternd"));
    if (settings.lanternd.isEmpty())
        settings.lanternd = QDir::cleanPath(QCoreApplication::applicationDirPath() + QStringLiteral("/../app/lanternd/lanternd"));
    settings.wrk = parser.value(QStringLiteral("wrk"));
    settings.wrkScript = parser.value(QStringLiteral("wrk-script"));
    settings.httpClient = parser.value(QStringLiteral("http-client"));
    if (settings.httpClient.isEmpty())
        settings.httpClient = QDir::cleanPath(QCoreApplication::applicationDirPath() + QStringLiteral("/lantern-bench-httpload"));
    settings.redisBenchmark = parser.value(QStringLiteral("redis-benchmark"));
    settings.wrkThreads = static_cast<int>(integerOption(parser, QStringLiteral("wrk-threads"), 1, 64));
    settings.serveThreads = static_cast<int>(integerOption(parser, QStringLiteral("serve-threads"), 1, 64));
    settings.tokenSecret = parser.value(QStringLiteral("token-secret"));
    settings.timeZone = parser.value(QStringLiteral("tz"));
    if (parser.isSet(QStringLiteral("server-cpus")))
        settings.serverCpus = parseCpuList(parser.value(QStringLiteral("server-cpus")));
    if (settings.bench.clients < settings.wrkThreads)
        throw InvalidInputError(QStringLiteral("--clients must be at least --wrk-threads (wrk shares the connections out)"));
    if (settings.tokenSecret.isEmpty())
        throw InvalidInputError(QStringLiteral("--token-secret must not be empty"));
    if (!QFileInfo(settings.wrkScript).isFile())
        throw InvalidInputError(QStringLiteral("--wrk-script %1 not found").arg(settings.wrkScript));
    requireProgram(settings.lanternd, QStringLiteral("build the lanternd target"));
    requireProgram(settings.wrk, QStringLiteral("Debian package wrk"));
    requireProgram(settings.httpClient, QStringLiteral("build the lantern-bench-httpload target, or give wrk"));
    requireProgram(settings.redisBenchmark, QStringLiteral("Debian package redis-tools"));
    return settings;
}

QString HttpSettings::httpClientName() const
{
    return QFileInfo(httpClient).fileName();
}

QStringList serveArguments(const HttpSettings &settings, int threads, const QString &db)
{
    return {QStringLiteral("--redis"), settings.redisUrl, QStringLiteral("--db"), db, QStringLiteral("--prefix"),
            settings.bench.prefix, QStringLiteral("--shards"), QStringLiteral("1"), QStringLiteral("--tz"), settings.timeZone,
            QStringLiteral("--token-secret"), settings.tokenSecret, QStringLiteral("--threads"), QString::number(threads)};
}

} // namespace lantern::bench
