#include "servecommands.h"

#include "api/apihandler.h"
#include "api/featureswitches.h"
#include "audit/auditlog.h"
#include "commandcontext.h"
#include "core/errors.h"
#include "stopsignal.h"
#include "redis/redisclient.h"
#include "serve/httpserver.h"
#include "sql/sqlconnection.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QThread>
#include <QTimer>

namespace lantern::cli {

int runServe(CommandContext &context)
{
    const HttpServer::Address address = HttpServer::parseAddress(context.line().value(QStringLiteral("listen"), QStringLiteral("127.0.0.1:8080")));
    // One event loop per core: a loop never waits, so more loops only share the same cores
    // (docs/api.md, "Event loops": measured with 1, 2 and 4).
    const int threads = int(context.line().integer(QStringLiteral("threads"), 1, 64, std::max(1, QThread::idealThreadCount())));
    if (context.config().tokenSecret.isEmpty())
        throw InvalidInputError(QCoreApplication::translate("lantern::cli::Commands",
                                                            "serve needs a token secret to check bearers: --token-secret or LANTERN_TOKEN_SECRET"));

    ApiShared shared(context.config());
    HttpServer server(shared, address, threads);
    const QString where = server.where();
    std::fprintf(stderr, "lanternd serve: listening on http://%s with %d threads\n", qPrintable(where), threads);
    std::fflush(stderr);
    warnIfGrabsCanBeLost(context, "serve");

    // SIGTERM/SIGINT set a flag (async-signal-safe); the main loop looks at it ten times a second.
    QTimer stopWatch;
    QObject::connect(&stopWatch, &QTimer::timeout, &stopWatch, [] {
        if (stopRequested())
            QCoreApplication::quit();
    });
    stopWatch.start(100);
    QCoreApplication::exec();

    server.stop();  // each loop stops accepting, answers what is under way, and returns
    quint64 answered = 0;
    for (int e = 0; e < ApiEndpointCount; ++e) {
        for (const int status : ApiMetrics::Statuses)
            answered += shared.metrics().requests(ApiEndpoint(e), status);
    }
    printJson({{QStringLiteral("listen"), where}, {QStringLiteral("threads"), threads}, {QStringLiteral("requests"), qint64(answered)}});
    return 0;
}

int runSwitch(CommandContext &context)
{
    const QString feature = context.line().required(QStringLiteral("feature"));
    FeatureSwitches::validateFeature(feature);
    const QString state = context.line().required(QStringLiteral("state"));
    if (state != QLatin1String("on") && state != QLatin1String("off"))
        throw InvalidInputError(QCoreApplication::translate("lantern::cli::Commands", "invalid --state '%1': expected on or off").arg(state));
    SqlConnection &sql = context.sql();  // the audit row must be writable before anything changes
    FeatureSwitches::set(context.redis(), context.keys(), feature, state == QLatin1String("on"));
    AuditLog(sql).record(context.actor(), QStringLiteral("api.switch"), feature, {{QStringLiteral("state"), state}}, context.nowMs());
    printJson({{QStringLiteral("feature"), feature}, {QStringLiteral("state"), state}});
    return 0;
}

} // namespace lantern::cli
