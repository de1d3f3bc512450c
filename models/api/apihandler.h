#pragma once

#include "api/apimetrics.h"
#include "api/tokenbucket.h"
#include "core/config.h"
#include "redis/keyschema.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QPair>

#include <array>
#include <memory>

namespace lantern {

class CheckinService;
class FeatureSwitches;
class RedisClient;
class SqlConnection;

/** One HTTP request as the transport hands it over (already parsed). */
struct ApiRequest {
    QByteArray method;         // "GET", "POST", ...
    QByteArray path;           // "/v1/checkin"
    QByteArray query;          // "month=2026-03", undecoded
    QByteArray authorization;  // the Authorization header
    QByteArray body;
};

/** What to send back. */
struct ApiResponse {
    int status = 200;
    QByteArray contentType = QByteArrayLiteral("application/json");
    QByteArray body;
    QList<QPair<QByteArray, QByteArray>> headers;
};

/** What every server thread shares: the configuration, the rate limiters and the metrics. */
class ApiShared final {
public:
    explicit ApiShared(Config config);
    Q_DISABLE_COPY_MOVE(ApiShared)

    const Config &config() const { return m_config; }
    /** config().today(), worked out at most once a second per thread (the zone conversion is
        the costly part, and a day cannot change within a second). */
    QDate today() const;
    const KeySchema &keys() const { return m_keys; }
    ApiMetrics &metrics() { return m_metrics; }
    /** nullptr for endpoints without a limit (health, metrics). */
    TokenBucket *bucket(ApiEndpoint endpoint);

private:
    Config m_config;
    KeySchema m_keys;
    ApiMetrics m_metrics;
    std::array<TokenBucket, 4> m_buckets;  // checkin, calendar, grab, campaign
};

struct ApiAdmission;
class ApiGate;

/** The HTTP API of `lanternd serve` (the seeds' client endpoints), transport-free and blocking:
    it owns a Redis and an SQL connection. `lanternd serve`'s event loops answer the hot
    endpoints themselves (ApiGate, then an ApiCall on their RedisPipe) and hand calendar and
    metrics, which need SQL or many reads, to threads that each own an ApiHandler. Every request
    is answered with JSON (or the Prometheus text of /metrics); nothing is written unless the
    caller is authenticated, the feature is on, the limiter lets it through and the input is valid. */
class ApiHandler final {
    Q_DECLARE_TR_FUNCTIONS(lantern::ApiHandler)

public:
    static constexpr qsizetype MaxBodyBytes = 16 * 1024;

    explicit ApiHandler(ApiShared &shared);
    ~ApiHandler();
    Q_DISABLE_COPY_MOVE(ApiHandler)

    /** The whole request, start to end (records it in the metrics). */
    ApiResponse handle(const ApiRequest &request);
    /** An admitted request, whatever its endpoint (does not record it). */
    ApiResponse answer(const ApiAdmission &admission, const ApiRequest &request);

private:
    ApiResponse calendar(qint64 uid, const ApiRequest &request);
    ApiResponse metrics();
    SqlConnection &sql();

    ApiShared &m_shared;
    std::unique_ptr<ApiGate> m_gate;
    std::unique_ptr<RedisClient> m_redis;
    std::unique_ptr<CheckinService> m_checkins;
    std::unique_ptr<FeatureSwitches> m_switches;
    std::unique_ptr<SqlConnection> m_sql;
};

/** {"error": code, "message": text} with `status`. */
ApiResponse apiError(int status, const char *code, const QString &message);
ApiResponse apiJson(const QJsonObject &object, int status = 200);

} // namespace lantern
