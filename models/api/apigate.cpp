#include "api/apigate.h"

#include "core/monotonicclock.h"
#include "token/usertoken.h"

#include <QDateTime>
#include <QSet>
#include <QUrlQuery>

#include <charconv>

namespace lantern {

namespace {

/** A decimal id 1..2^63-1 without sign or leading zeros. */
std::optional<qint64> parseId(QByteArrayView text)
{
    if (text.isEmpty() || text.size() > 19 || text.front() == '0')
        return std::nullopt;
    for (const char c : text) {
        if (c < '0' || c > '9')
            return std::nullopt;
    }
    // std::from_chars: QByteArrayView::toLongLong goes through QLocale (~475 instructions), and
    // every grab's path is routed twice (the loop's endpointOf, then admit).
    qint64 id = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
    return error == std::errc() && end == text.data() + text.size() && id > 0 ? std::optional<qint64>(id) : std::nullopt;
}

/** The first query parameter named more than once (names compared decoded, as the endpoints
    read them: "month" and "%6Donth" are one name), or std::nullopt. */
std::optional<QString> repeatedQueryParameter(const QByteArray &query)
{
    if (query.isEmpty())
        return std::nullopt;
    QSet<QString> names;
    for (const auto &[name, value] : QUrlQuery(QString::fromUtf8(query)).queryItems(QUrl::FullyDecoded)) {
        if (names.contains(name))
            return name;
        names.insert(name);
    }
    return std::nullopt;
}

} // namespace

ApiGate::ApiGate(ApiShared &shared)
    : m_shared(shared), m_tokens(std::make_unique<UserTokens>(shared.config().tokenSalt, shared.config().tokenSecret.toUtf8()))
{
}

ApiGate::~ApiGate() = default;

ApiGate::Route ApiGate::route(const QByteArray &path)
{
    Route route;
    if (path == "/v1/checkin") {
        route = {ApiEndpoint::Checkin, QByteArrayLiteral("POST")};
    } else if (path == "/v1/calendar") {
        route = {ApiEndpoint::Calendar, QByteArrayLiteral("GET")};
    } else if (path == "/healthz") {
        route = {ApiEndpoint::Health, QByteArrayLiteral("GET")};
    } else if (path == "/livez") {
        route = {ApiEndpoint::Live, QByteArrayLiteral("GET")};
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

ApiEndpoint ApiGate::endpointOf(const QByteArray &path)
{
    return route(path).endpoint;
}

std::variant<ApiResponse, ApiAdmission> ApiGate::admit(const ApiRequest &request, const QStringList &switchedOff)
{
    const Route where = route(request.path);
    if (where.endpoint == ApiEndpoint::Unknown)
        return apiError(404, "not_found", tr("no such endpoint: %1").arg(QString::fromUtf8(request.path)));
    if (request.method != where.method) {
        ApiResponse response = apiError(405, "method_not_allowed", tr("%1 takes %2 only").arg(QString::fromUtf8(request.path),
                                                                                               QString::fromLatin1(where.method)));
        response.headers.append({QByteArrayLiteral("Allow"), where.method});
        return response;
    }
    // Which of two values counts would be a guess (the calendar once took the last month given).
    if (const std::optional<QString> repeated = repeatedQueryParameter(request.query))
        return apiError(400, "bad_request",
                        tr("query parameter '%1' appears more than once: send each parameter at most once").arg(*repeated));
    if (where.endpoint == ApiEndpoint::Health || where.endpoint == ApiEndpoint::Metrics || where.endpoint == ApiEndpoint::Live)
        return ApiAdmission{where.endpoint};

    if (request.body.size() > ApiHandler::MaxBodyBytes)
        return apiError(400, "bad_request", tr("request body too large: at most %1 bytes").arg(ApiHandler::MaxBodyBytes));
    if (where.badId)
        return apiError(400, "bad_request", tr("invalid campaign id: expected a positive whole number"));
    int retryAfterS = 1;
    if (TokenBucket *bucket = m_shared.bucket(where.endpoint); bucket && !bucket->take(monotonicNs(), &retryAfterS)) {
        ApiResponse response = apiError(429, "rate_limited", tr("too many requests; retry after %n second(s)", nullptr, retryAfterS));
        response.headers.append({QByteArrayLiteral("Retry-After"), QByteArray::number(retryAfterS)});
        return response;
    }
    if (isSwitchable(where.endpoint)) {
        const QString feature = where.endpoint == ApiEndpoint::Checkin ? QStringLiteral("checkin") : QStringLiteral("grab");
        if (switchedOff.contains(feature)) {
            ApiResponse response = apiError(503, "switched_off", tr("%1 is switched off for now").arg(feature));
            response.headers.append({QByteArrayLiteral("Retry-After"), QByteArrayLiteral("30")});
            return response;
        }
    }
    ApiResponse failure;
    const std::optional<qint64> uid = authenticate(request, &failure);
    if (!uid)
        return failure;
    return ApiAdmission{where.endpoint, *uid, where.campaignId};
}

std::optional<qint64> ApiGate::authenticate(const ApiRequest &request, ApiResponse *failure) const
{
    static constexpr QByteArrayView Scheme("Bearer ");
    if (request.authorization.isEmpty()) {
        *failure = apiError(401, "unauthorized", tr("missing bearer token: send 'Authorization: Bearer <token>'"));
    } else if (!request.authorization.startsWith(Scheme)) {
        *failure = apiError(401, "unauthorized", tr("unsupported authorization scheme: expected 'Bearer <token>'"));
    } else {
        const QByteArrayView bearer = QByteArrayView(request.authorization).sliced(Scheme.size()).trimmed();
        if (const auto uid = m_tokens->verifyBearer(bearer, QDateTime::currentSecsSinceEpoch()))
            return uid;
        *failure = apiError(401, "unauthorized", tr("invalid or expired bearer token"));
    }
    failure->headers.append({QByteArrayLiteral("WWW-Authenticate"), QByteArrayLiteral("Bearer")});
    return std::nullopt;
}

} // namespace lantern
