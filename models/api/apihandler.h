#pragma once

#include "api/apimetrics.h"
#include "api/tokenbucket.h"
#include "redis/keyschema.h"
#include "settings/config.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QPair>

#include <array>
#include <memory>

namespace lantern {

class CheckinService;
class ClusterTopology;
class RedisClient;
class SqlConnection;

/** One HTTP request as the transport hands it over (already parsed). */
struct ApiRequest {
    QByteArray method;         // "GET", "POST", ...
    QByteArray path;           // "/v1/checkin"
    QByteArray query;          // "month=2026-03", undecoded
    QByteArray authorization;  // the Authorization header
    QByteArray body;
    QList<QPair<QByteArray, QByteArray>> headers;  // only those HttpRequestParser::keepHeaders() named, as named there
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
    /** The Redis Cluster the event loops' pipes route over, or nullptr for one server: set
        once, before the loops start (ClusterTopology::discover). */
    const std::shared_ptr<ClusterTopology> &redisCluster() const { return m_redisCluster; }
    void setRedisCluster(std::shared_ptr<ClusterTopology> cluster) { m_redisCluster = std::move(cluster); }

private:
    Config m_config;
    std::shared_ptr<ClusterTopology> m_redisCluster;
    KeySchema m_keys;
    ApiMetrics m_metrics;
    std::array<TokenBucket, 4> m_buckets;  // checkin, calendar, grab, campaign
};

struct ApiAdmission;

/** The HTTP API's answers to admitted requests (ApiGate let them through), transport-free and
    blocking: it owns a Redis and an SQL connection. `lanternd serve`'s event loops run the hot
    endpoints' ApiCalls on their RedisPipe themselves and hand calendar and metrics, which need
    SQL or many reads, to threads that each own an ApiHandler. */
class ApiHandler final {
    Q_DECLARE_TR_FUNCTIONS(lantern::ApiHandler)

public:
    static constexpr qsizetype MaxBodyBytes = 16 * 1024;

    explicit ApiHandler(ApiShared &shared);
    ~ApiHandler();
    Q_DISABLE_COPY_MOVE(ApiHandler)

    /** The answer to an admitted request, whatever its endpoint (errors become error answers). */
    ApiResponse answer(const ApiAdmission &admission, const ApiRequest &request);

private:
    ApiResponse calendar(qint64 uid, const ApiRequest &request);
    ApiResponse metrics();
    SqlConnection &sql();

    ApiShared &m_shared;
    std::unique_ptr<RedisClient> m_redis;
    std::unique_ptr<CheckinService> m_checkins;
    std::unique_ptr<SqlConnection> m_sql;
};

/** {"error": code, "message": text} with `status`. */
ApiResponse apiError(int status, const char *code, const QString &message);
ApiResponse apiJson(const QJsonObject &object, int status = 200);
/** A 200 whose body is JSON text already (api/answertext.h). */
ApiResponse apiText(QByteArray json);
/** GET /livez's answer, {"status":"ok"}: the process answers; nothing is asked of Redis. */
const ApiResponse &apiAlive();

} // namespace lantern
