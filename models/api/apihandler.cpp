#include "api/apihandler.h"

#include "api/featureswitches.h"
#include "api/resultjson.h"
#include "checkin/checkinservice.h"
#include "checkin/checkinstore.h"
#include "core/errors.h"
#include "envelope/grabservice.h"
#include "queue/queueoverview.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "token/usertoken.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QUrlQuery>

#include <chrono>
#include <cstdio>

namespace lantern {

namespace {

qint64 monotonicNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/** A decimal id 1..2^63-1 without sign or leading zeros. */
std::optional<qint64> parseId(QByteArrayView text)
{
    if (text.isEmpty() || text.size() > 19 || text.front() == '0')
        return std::nullopt;
    for (const char c : text) {
        if (c < '0' || c > '9')
            return std::nullopt;
    }
    bool ok = false;
    const qint64 id = text.toLongLong(&ok);
    return ok && id > 0 ? std::optional<qint64>(id) : std::nullopt;
}

} // namespace

ApiResponse apiJson(const QJsonObject &object, int status)
{
    ApiResponse response;
    response.status = status;
    response.body = QJsonDocument(object).toJson(QJsonDocument::Compact);
    return response;
}

ApiResponse apiError(int status, const char *code, const QString &message)
{
    return apiJson({{QStringLiteral("error"), QLatin1String(code)}, {QStringLiteral("message"), message}}, status);
}

ApiShared::ApiShared(Config config)
    : m_config(std::move(config)), m_keys(m_config.keyPrefix, m_config.shards),
      m_buckets{TokenBucket(m_config.api.checkin), TokenBucket(m_config.api.calendar), TokenBucket(m_config.api.grab),
                TokenBucket(m_config.api.campaign)}
{
}

TokenBucket *ApiShared::bucket(ApiEndpoint endpoint)
{
    switch (endpoint) {
    case ApiEndpoint::Checkin: return &m_buckets[0];
    case ApiEndpoint::Calendar: return &m_buckets[1];
    case ApiEndpoint::Grab: return &m_buckets[2];
    case ApiEndpoint::Campaign: return &m_buckets[3];
    default: return nullptr;
    }
}

ApiHandler::ApiHandler(ApiShared &shared)
    : m_shared(shared), m_redis(std::make_unique<RedisClient>(shared.config().redis)),
      m_checkins(std::make_unique<CheckinService>(*m_redis, shared.keys(), shared.config().checkin)),
      m_grabs(std::make_unique<GrabService>(*m_redis, shared.keys())),
      m_switches(std::make_unique<FeatureSwitches>(*m_redis, shared.keys())),
      m_tokens(std::make_unique<UserTokens>(shared.config().tokenSalt, shared.config().tokenSecret.toUtf8()))
{
}

ApiHandler::~ApiHandler() = default;

ApiHandler::Route ApiHandler::route(const QByteArray &path)
{
    Route route;
    if (path == "/v1/checkin") {
        route = {ApiEndpoint::Checkin, QByteArrayLiteral("POST")};
    } else if (path == "/v1/calendar") {
        route = {ApiEndpoint::Calendar, QByteArrayLiteral("GET")};
    } else if (path == "/healthz") {
        route = {ApiEndpoint::Health, QByteArrayLiteral("GET")};
    } else if (path == "/metrics") {
        route = {ApiEndpoint::Metrics, QByteArrayLiteral("GET")};
    } else if (path.startsWith("/v1/campaigns/")) {
        QByteArrayView rest = QByteArrayView(path).sliced(qsizetype(sizeof("/v1/campaigns/") - 1));
        const bool isGrab = rest.endsWith("/grab");
        if (isGrab)
            rest.chop(qsizetype(sizeof("/grab") - 1));
        if (rest.contains('/'))
            return route;
        route = {isGrab ? ApiEndpoint::Grab : ApiEndpoint::Campaign, isGrab ? QByteArrayLiteral("POST") : QByteArrayLiteral("GET")};
        const auto id = parseId(rest);
        route.campaignId = id.value_or(0);
        route.badId = !id;
    }
    return route;
}

ApiResponse ApiHandler::handle(const ApiRequest &request)
{
    const qint64 startNs = monotonicNs();
    const Route where = route(request.path);
    ApiResponse response;
    try {
        response = dispatch(where, request);
    } catch (const InvalidInputError &error) {
        response = apiError(400, "bad_request", error.message());
    } catch (const UnavailableError &error) {
        response = apiError(503, "unavailable", error.message());
        response.headers.append({QByteArrayLiteral("Retry-After"), QByteArrayLiteral("1")});
    } catch (const RefusedError &error) {
        response = apiError(409, "refused", error.message());
    } catch (const std::exception &error) {
        std::fprintf(stderr, "lanternd serve: %s %s failed: %s\n", request.method.constData(), request.path.constData(), error.what());
        response = apiError(500, "internal", tr("internal error; the server log has the details"));
    }
    m_shared.metrics().recordRequest(where.endpoint, response.status, double(monotonicNs() - startNs) / 1e9);
    return response;
}

ApiResponse ApiHandler::dispatch(const Route &where, const ApiRequest &request)
{
    if (where.endpoint == ApiEndpoint::Unknown)
        return apiError(404, "not_found", tr("no such endpoint: %1").arg(QString::fromUtf8(request.path)));
    if (request.method != where.method) {
        ApiResponse response = apiError(405, "method_not_allowed", tr("%1 takes %2 only").arg(QString::fromUtf8(request.path),
                                                                                               QString::fromLatin1(where.method)));
        response.headers.append({QByteArrayLiteral("Allow"), where.method});
        return response;
    }
    if (where.endpoint == ApiEndpoint::Health)
        return health();
    if (where.endpoint == ApiEndpoint::Metrics)
        return metrics();

    if (request.body.size() > MaxBodyBytes)
        return apiError(400, "bad_request", tr("request body too large: at most %1 bytes").arg(MaxBodyBytes));
    if (where.badId)
        return apiError(400, "bad_request", tr("invalid campaign id: expected a positive whole number"));
    int retryAfterS = 1;
    if (TokenBucket *bucket = m_shared.bucket(where.endpoint); bucket && !bucket->take(monotonicNs(), &retryAfterS)) {
        ApiResponse response = apiError(429, "rate_limited", tr("too many requests; retry after %n second(s)", nullptr, retryAfterS));
        response.headers.append({QByteArrayLiteral("Retry-After"), QByteArray::number(retryAfterS)});
        return response;
    }
    const QString feature = where.endpoint == ApiEndpoint::Checkin ? QStringLiteral("checkin")
                            : where.endpoint == ApiEndpoint::Grab  ? QStringLiteral("grab")
                                                                   : QString();
    if (!feature.isEmpty() && !m_switches->isOn(feature, QDateTime::currentMSecsSinceEpoch())) {
        ApiResponse response = apiError(503, "switched_off", tr("%1 is switched off for now").arg(feature));
        response.headers.append({QByteArrayLiteral("Retry-After"), QByteArrayLiteral("30")});
        return response;
    }
    ApiResponse failure;
    const std::optional<qint64> uid = authenticate(request, &failure);
    if (!uid)
        return failure;

    switch (where.endpoint) {
    case ApiEndpoint::Checkin: return checkin(*uid, request);
    case ApiEndpoint::Calendar: return calendar(*uid, request);
    case ApiEndpoint::Grab: return grab(*uid, where.campaignId, request);
    case ApiEndpoint::Campaign: return campaign(*uid, where.campaignId);
    default: break;
    }
    return apiError(404, "not_found", tr("no such endpoint: %1").arg(QString::fromUtf8(request.path)));
}

std::optional<qint64> ApiHandler::authenticate(const ApiRequest &request, ApiResponse *failure) const
{
    static constexpr QByteArrayView Scheme("Bearer ");
    if (request.authorization.isEmpty()) {
        *failure = apiError(401, "unauthorized", tr("missing bearer token: send 'Authorization: Bearer <token>'"));
    } else if (!request.authorization.startsWith(Scheme)) {
        *failure = apiError(401, "unauthorized", tr("unsupported authorization scheme: expected 'Bearer <token>'"));
    } else {
        const QString bearer = QString::fromUtf8(QByteArrayView(request.authorization).sliced(Scheme.size()).trimmed());
        if (const auto uid = m_tokens->verifyBearer(bearer, QDateTime::currentSecsSinceEpoch()))
            return uid;
        *failure = apiError(401, "unauthorized", tr("invalid or expired bearer token"));
    }
    failure->headers.append({QByteArrayLiteral("WWW-Authenticate"), QByteArrayLiteral("Bearer")});
    return std::nullopt;
}

void ApiHandler::requireEmptyObject(const QByteArray &body)
{
    if (body.trimmed().isEmpty())
        return;
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError)
        throw InvalidInputError(tr("malformed JSON body at offset %1: %2").arg(error.offset).arg(error.errorString()));
    if (!document.isObject())
        throw InvalidInputError(tr("the body must be a JSON object"));
    const QStringList fields = document.object().keys();
    if (!fields.isEmpty())
        throw InvalidInputError(tr("unknown field '%1': this endpoint takes no fields").arg(fields.first()));
}

ApiResponse ApiHandler::checkin(qint64 uid, const ApiRequest &request)
{
    requireEmptyObject(request.body);
    const QDate today = m_shared.config().today();
    const CheckinOutcome outcome = m_checkins->checkin(uid, today, today, QDateTime::currentMSecsSinceEpoch());
    m_shared.metrics().recordCheckin(outcome.already);
    return apiJson(checkinOutcomeJson(outcome));
}

ApiResponse ApiHandler::calendar(qint64 uid, const ApiRequest &request)
{
    if (!request.body.isEmpty())
        throw InvalidInputError(tr("GET /v1/calendar takes no body"));
    const QUrlQuery query(QString::fromUtf8(request.query));
    const QDate today = m_shared.config().today();
    QDate month(today.year(), today.month(), 1);
    for (const auto &[name, value] : query.queryItems(QUrl::FullyDecoded)) {
        if (name != QLatin1String("month"))
            throw InvalidInputError(tr("unknown query parameter '%1': only month=YYYY-MM").arg(name));
        month = parseMonth(value);
    }
    // The month first (Redis), then the balance (SQL): an SQL outage answers 503 either way.
    const CalendarMonth days = m_checkins->calendar(uid, month, today);
    qint64 balance = 0;
    try {
        balance = CheckinStore(sql()).pointsBalance(uid);
    } catch (const UnavailableError &) {
        m_sql.reset();  // reopened by the next request
        throw;
    }
    return apiJson(calendarJson(days, balance));
}

ApiResponse ApiHandler::grab(qint64 uid, qint64 campaignId, const ApiRequest &request)
{
    requireEmptyObject(request.body);
    const GrabOutcome outcome = m_grabs->grab(campaignId, uid, QDateTime::currentMSecsSinceEpoch());
    m_shared.metrics().recordGrab(outcome.status);
    return apiJson(grabOutcomeJson(outcome));
}

ApiResponse ApiHandler::campaign(qint64 uid, qint64 campaignId)
{
    const KeySchema &keys = m_shared.keys();
    const std::vector<RedisValue> replies = m_redis->pipeline(
            {{QByteArrayLiteral("HMGET"), keys.campaignMeta(campaignId), QByteArrayLiteral("status"), QByteArrayLiteral("grabbed_count")},
             {QByteArrayLiteral("LLEN"), keys.campaignPool(campaignId)},
             {QByteArrayLiteral("HGET"), keys.campaignDraws(campaignId), QByteArray::number(uid)}});
    const RedisValue &meta = replies.at(0);
    if (meta.elements.size() != 2 || meta.elements[0].isNil())
        return apiError(404, "not_found", tr("campaign %1 is not launched or does not exist").arg(campaignId));
    QJsonObject json{{QStringLiteral("id"), campaignId},
                     {QStringLiteral("status"), QString::fromUtf8(meta.elements[0].toBytes())},
                     {QStringLiteral("grabbed_count"), meta.elements[1].isNil() ? 0 : qint64(meta.elements[1].toInteger())},
                     {QStringLiteral("remaining_count"), qint64(replies.at(1).toInteger())}};
    QJsonValue mine;  // null unless this user holds one
    if (const RedisValue &held = replies.at(2); !held.isNil()) {
        const QByteArray entry = held.toBytes();
        const qsizetype colon = entry.indexOf(':');
        mine = QJsonObject{{QStringLiteral("envelope"), entry.left(colon).toLongLong()},
                           {QStringLiteral("amount_cents"), entry.mid(colon + 1).toLongLong()}};
    }
    json.insert(QStringLiteral("mine"), mine);
    return apiJson(json);
}

ApiResponse ApiHandler::health()
{
    const qint64 startNs = monotonicNs();
    m_redis->command({QByteArrayLiteral("PING")});
    return apiJson({{QStringLiteral("status"), QStringLiteral("ok")}, {QStringLiteral("redis_ms"), double(monotonicNs() - startNs) / 1e6}});
}

ApiResponse ApiHandler::metrics()
{
    std::optional<QueueOverview> queues;
    try {
        queues = QueueOverview::read(*m_redis, m_shared.keys(), QDateTime::currentMSecsSinceEpoch());
    } catch (const UnavailableError &) {
        // lantern_redis_up 0 says so; the counters are still worth scraping.
    }
    ApiResponse response;
    response.contentType = QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8");
    response.body = m_shared.metrics().render(queues ? &*queues : nullptr);
    return response;
}

SqlConnection &ApiHandler::sql()
{
    if (!m_sql)
        m_sql = openMigrated(m_shared.config().db);
    return *m_sql;
}

} // namespace lantern
