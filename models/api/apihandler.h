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
class GrabService;
class RedisClient;
class SqlConnection;
class UserTokens;

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

/** The HTTP API of `lanternd serve` (the seeds' client endpoints), transport-free: one instance
    per server thread, owning that thread's Redis and SQL connections. Every request is answered
    with JSON (or the Prometheus text of /metrics); nothing is written unless the caller is
    authenticated, the feature is on, the limiter lets it through and the input is valid. */
class ApiHandler final {
    Q_DECLARE_TR_FUNCTIONS(lantern::ApiHandler)

public:
    static constexpr qsizetype MaxBodyBytes = 16 * 1024;

    explicit ApiHandler(ApiShared &shared);
    ~ApiHandler();
    Q_DISABLE_COPY_MOVE(ApiHandler)

    ApiResponse handle(const ApiRequest &request);

private:
    struct Route {
        ApiEndpoint endpoint = ApiEndpoint::Unknown;
        QByteArray method;    // the one method the endpoint answers
        qint64 campaignId = 0;
        bool badId = false;   // /v1/campaigns/<not an id>[/grab]
    };
    static Route route(const QByteArray &path);

    ApiResponse dispatch(const Route &route, const ApiRequest &request);
    ApiResponse checkin(qint64 uid, const ApiRequest &request);
    ApiResponse calendar(qint64 uid, const ApiRequest &request);
    ApiResponse grab(qint64 uid, qint64 campaignId, const ApiRequest &request);
    ApiResponse campaign(qint64 uid, qint64 campaignId);
    ApiResponse health();
    ApiResponse metrics();

    /** The caller's uid, or std::nullopt (then `failure` holds the 401). */
    std::optional<qint64> authenticate(const ApiRequest &request, ApiResponse *failure) const;
    /** Throws InvalidInputError unless the body is empty or a JSON object without fields. */
    static void requireEmptyObject(const QByteArray &body);
    SqlConnection &sql();

    ApiShared &m_shared;
    std::unique_ptr<RedisClient> m_redis;
    std::unique_ptr<CheckinService> m_checkins;
    std::unique_ptr<GrabService> m_grabs;
    std::unique_ptr<FeatureSwitches> m_switches;
    std::unique_ptr<UserTokens> m_tokens;
    std::unique_ptr<SqlConnection> m_sql;
};

/** {"error": code, "message": text} with `status`. */
ApiResponse apiError(int status, const char *code, const QString &message);
ApiResponse apiJson(const QJsonObject &object, int status = 200);

} // namespace lantern
